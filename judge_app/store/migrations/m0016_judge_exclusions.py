"""``judge_exclusions``: what an admin decided about a judge, as append-only events, and the
views that honour it.

An event is ``exclude``, ``restore`` or ``weight`` (with ``weight`` >= 0), for one dataset
(``dataset_id``) or every dataset (NULL), with who decided (``decided_by``; NULL for the
operator at the command line), when and why.  ``judge_standings`` holds, per (dataset, judge)
with any event: ``excluded`` — the newest ``exclude``/``restore`` event that reaches the
dataset (its own or an every-dataset one) is ``exclude`` — and ``weight`` — the newest
``weight`` event's, else 1.

The label and vote views leave excluded judges out and weigh the rest:

* ``expert_consensus`` (from ``0003``, defined again here): per basis and (dataset, query,
  doc), over the counted witnesses' current labels of judges not excluded: the **weighted
  lower median** — the least grade g whose judges' weights reach half the item's total weight
  (with every weight 1 this is ``0003``'s lower median) — the latest grade and how many
  judges;
* ``counted_votes`` (from ``0005``): current, not stale, and not an excluded judge's.

``current_expert_labels`` keeps every judge (a judge's own page and the per-judge figures read
it); ``label_sources``, ``filled_labels`` and ``ranked_labels`` read ``expert_consensus`` and
need nothing.  The vocabularies are as in ``0003`` (witnesses ``expert``, ``clicks``, ``llm``;
the four label bases, ``0003``'s ``BASES``).
"""

from __future__ import annotations

from judge_app.store.migrations.m0003_label_and_vote_views import BASES

EVENTS = """
        CREATE SEQUENCE judge_exclusion_ids START 1;
        CREATE TABLE judge_exclusions (
            event_id BIGINT PRIMARY KEY DEFAULT nextval('judge_exclusion_ids'),
            judge TEXT NOT NULL,
            dataset_id INTEGER REFERENCES datasets (dataset_id),
            action TEXT NOT NULL CHECK (action IN ('exclude', 'restore', 'weight')),
            weight {double} CHECK ((action = 'weight') = (weight IS NOT NULL) AND weight >= 0),
            decided_by TEXT,
            decided_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            reason TEXT
        );
        CREATE VIEW judge_standings AS
            SELECT s.dataset_id, s.judge,
                   coalesce((SELECT e.action = 'exclude' FROM judge_exclusions e
                             WHERE e.judge = s.judge
                               AND (e.dataset_id IS NULL OR e.dataset_id = s.dataset_id)
                               AND e.action IN ('exclude', 'restore')
                             ORDER BY e.event_id DESC LIMIT 1), false) AS excluded,
                   coalesce((SELECT e.weight FROM judge_exclusions e
                             WHERE e.judge = s.judge
                               AND (e.dataset_id IS NULL OR e.dataset_id = s.dataset_id)
                               AND e.action = 'weight'
                             ORDER BY e.event_id DESC LIMIT 1), 1.0) AS weight
            FROM (SELECT DISTINCT d.dataset_id, e.judge
                  FROM judge_exclusions e JOIN datasets d
                      ON e.dataset_id IS NULL OR e.dataset_id = d.dataset_id) AS s;
"""

LATEST = {"duckdb": "arg_max(grade, label_id)",
          "postgresql": "(array_agg(grade ORDER BY label_id DESC))[1]"}

# a basis' counted labels, each with its judge's weight and the running weight by grade
COUNTED = """
            SELECT c.dataset_id, c.query_id, c.doc_id, c.grade, c.label_id,
                   sum(c.weight) OVER (PARTITION BY c.dataset_id, c.query_id, c.doc_id
                                       ORDER BY c.grade, c.label_id
                                       ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
                       AS reached,
                   sum(c.weight) OVER (PARTITION BY c.dataset_id, c.query_id, c.doc_id)
                       AS total
            FROM (SELECT l.*, coalesce(s.weight, 1.0) AS weight
                  FROM current_expert_labels l LEFT JOIN judge_standings s
                      ON s.dataset_id = l.dataset_id AND s.judge = l.judge
                  WHERE l.witness IN ({counted}) AND NOT coalesce(s.excluded, false)) AS c"""

EXPERT_CONSENSUS = {
    backend: "\n            UNION ALL".join(f"""
            SELECT dataset_id, query_id, doc_id, '{basis}' AS basis,
                   min(grade) FILTER (WHERE reached >= total / 2) AS median_grade,
                   {latest} AS latest_grade, count(*) AS judges
            FROM ({COUNTED.replace("{counted}", counted)}) AS counted
            GROUP BY dataset_id, query_id, doc_id""" for basis, counted in BASES)
    for backend, latest in LATEST.items()}

COUNTED_VOTES = """
            SELECT v.* FROM current_votes v
            WHERE NOT v.stale
              AND NOT EXISTS (SELECT 1 FROM judge_standings s
                              WHERE s.dataset_id = v.dataset_id AND s.judge = v.judge
                                AND s.excluded)"""

SQL = {backend: EVENTS.replace("{double}", double) + f"""
        CREATE OR REPLACE VIEW expert_consensus AS{EXPERT_CONSENSUS[backend]};
        CREATE OR REPLACE VIEW counted_votes AS{COUNTED_VOTES};
""" for backend, double in (("duckdb", "DOUBLE"), ("postgresql", "DOUBLE PRECISION"))}
