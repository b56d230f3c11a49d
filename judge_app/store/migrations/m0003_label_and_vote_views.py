"""The derived sets every reader uses, defined once:

* ``current_expert_labels``: the latest label of each (dataset, judge, query, doc), with the
  judge's witness (``expert``, ``clicks``, ``llm``: by the name's prefix);
* ``expert_consensus``: per label basis (``experts``, ``experts+llm``, …) and (dataset, query,
  doc): the lower median of the counted judges' current grades, the most recent of them, and
  how many judges;
* ``label_sources``: per basis, every labelled (dataset, query, doc) with its dataset grade
  beside the consensus;
* ``filled_labels``: the filled label set under each label policy and basis, with the grade's
  source;
* ``current_votes``: side-by-side votes not retracted;
* ``ranked_labels``: per basis, every run row with its pair's labels and whether it counts as
  labelled (a dataset grade >= 0 — negative grades are trec_eval's "pooled, not judged" — or at
  least one counted judge's), the basis of judged@k and the backfill queue.

Readers always filter on ``basis`` (a bound value); experts alone is ``experts``.

The vocabularies are written out as they were when this migration was written
(:mod:`judge_app.policies`): the witnesses ``clicks`` and ``llm`` by their judge-name prefixes
``clicks:`` and ``llm:`` (anyone else is an ``expert``), the four label bases, and the label
policies ``median``, ``latest`` and ``dataset_first``.  A new one is a new migration that
redefines these views.  (``0013`` defines the four label views again from this text, for the
stores given an earlier one.)

Both backends' views give the same rows; PostgreSQL's ``label_sources`` and ``ranked_labels``
are written so that a reader's filter on one query reaches the labels' indexes.
"""

from __future__ import annotations

# the newest row of each (dataset, judge, query, doc)
CURRENT_EXPERT_LABELS = {
    "duckdb": """
            SELECT dataset_id, query_id, doc_id, judge,
                   CASE WHEN starts_with(judge, 'clicks:') THEN 'clicks'
                        WHEN starts_with(judge, 'llm:') THEN 'llm' ELSE 'expert' END AS witness,
                   grade, label_id, created_at, note
            FROM expert_labels
            QUALIFY row_number() OVER (PARTITION BY dataset_id, judge, query_id, doc_id
                                       ORDER BY label_id DESC) = 1""",
    "postgresql": """
            SELECT DISTINCT ON (dataset_id, judge, query_id, doc_id) dataset_id, query_id,
                   doc_id, judge,
                   CASE WHEN starts_with(judge, 'clicks:') THEN 'clicks'
                        WHEN starts_with(judge, 'llm:') THEN 'llm' ELSE 'expert' END AS witness,
                   grade, label_id, created_at, note
            FROM expert_labels
            ORDER BY dataset_id, judge, query_id, doc_id, label_id DESC""",
}

# each label basis with the witnesses it counts
BASES = (("experts", "'expert'"),
         ("experts+clicks", "'expert', 'clicks'"),
         ("experts+llm", "'expert', 'llm'"),
         ("experts+clicks+llm", "'expert', 'clicks', 'llm'"))
# the lower median and the latest of a group's grades
AGGREGATES = {
    "duckdb": ("quantile_disc(grade, 0.5)", "arg_max(grade, label_id)"),
    "postgresql": ("percentile_disc(0.5) WITHIN GROUP (ORDER BY grade)",
                   "(array_agg(grade ORDER BY label_id DESC))[1]"),
}
EXPERT_CONSENSUS = {
    backend: "\n            UNION ALL".join(f"""
            SELECT dataset_id, query_id, doc_id, '{basis}' AS basis,
                   {median} AS median_grade,
                   {latest} AS latest_grade, count(*) AS judges
            FROM current_expert_labels WHERE witness IN ({counted})
            GROUP BY dataset_id, query_id, doc_id""" for basis, counted in BASES)
    for backend, (median, latest) in AGGREGATES.items()}

LABEL_SOURCES = {
    "duckdb": """
            SELECT dataset_id, basis, query_id, doc_id, d.grade AS dataset_grade,
                   e.median_grade, e.latest_grade, coalesce(e.judges, 0) AS judges
            FROM (SELECT j.*, b.basis FROM judgments j
                  CROSS JOIN (VALUES ('experts'), ('experts+clicks'), ('experts+llm'),
                                     ('experts+clicks+llm')) AS b (basis)) d
            FULL OUTER JOIN expert_consensus e USING (dataset_id, basis, query_id, doc_id)""",
    # PostgreSQL cannot push a filter on the keys through a full join: the same rows as a
    # union grouped by the keys (one judgment and one consensus row per key), which lets a
    # reader's query_id reach the labels table
    "postgresql": """
            SELECT dataset_id, basis, query_id, doc_id, max(dataset_grade) AS dataset_grade,
                   max(median_grade) AS median_grade, max(latest_grade) AS latest_grade,
                   coalesce(max(judges), 0) AS judges
            FROM (SELECT j.dataset_id, b.basis, j.query_id, j.doc_id,
                         j.grade AS dataset_grade, NULL::integer AS median_grade,
                         NULL::integer AS latest_grade, NULL::bigint AS judges
                  FROM judgments j
                  CROSS JOIN (VALUES ('experts'), ('experts+clicks'), ('experts+llm'),
                                     ('experts+clicks+llm')) AS b (basis)
                  UNION ALL
                  SELECT dataset_id, basis, query_id, doc_id, NULL, median_grade,
                         latest_grade, judges FROM expert_consensus) AS sides
            GROUP BY dataset_id, basis, query_id, doc_id""",
}

# each label policy with its grade and the grade's source, over label_sources' columns
POLICIES = (
    ("median", "coalesce(median_grade, dataset_grade)",
     "CASE WHEN median_grade IS NULL THEN 'dataset' WHEN dataset_grade IS NULL THEN 'expert' "
     "ELSE 'expert_override' END"),
    ("latest", "coalesce(latest_grade, dataset_grade)",
     "CASE WHEN latest_grade IS NULL THEN 'dataset' WHEN dataset_grade IS NULL THEN 'expert' "
     "ELSE 'expert_override' END"),
    ("dataset_first", "coalesce(dataset_grade, median_grade)",
     "CASE WHEN dataset_grade IS NULL THEN 'expert' ELSE 'dataset' END"),
)
FILLED_LABELS = "\n            UNION ALL".join(f"""
            SELECT dataset_id, basis, '{policy}' AS policy, query_id, doc_id,
                   {grade} AS grade, {source} AS source, judges
            FROM label_sources""" for policy, grade, source in POLICIES)

CURRENT_VOTES = """
            SELECT p.* FROM preferences p
            WHERE NOT EXISTS (SELECT 1 FROM preference_retractions r
                              WHERE r.preference_id = p.preference_id)"""

# every run row once per basis, with its (query, doc)'s labels (``l``, joined below)
RUN_ROWS = """
            SELECT r.run_id, u.dataset_id, b.basis, r.query_id, r.doc_id, r.rank,
                   l.dataset_grade, l.median_grade, coalesce(l.judges, 0) AS judges,
                   coalesce(l.dataset_grade >= 0, false) OR coalesce(l.judges, 0) > 0
                       AS labelled
            FROM run_results r JOIN runs u USING (run_id)
            CROSS JOIN (VALUES ('experts'), ('experts+clicks'), ('experts+llm'),
                               ('experts+clicks+llm')) AS b (basis)"""
RANKED_LABELS = {
    "duckdb": RUN_ROWS + """
            LEFT JOIN label_sources l
                ON l.dataset_id = u.dataset_id AND l.basis = b.basis
                   AND l.query_id = r.query_id AND l.doc_id = r.doc_id""",
    # readers take a run's top k: each row looks its labels up by key (``OFFSET 0`` keeps the
    # lookup a subquery, so the keys reach the labels' index) instead of aggregating every
    # label of the dataset first
    "postgresql": RUN_ROWS + """
            LEFT JOIN LATERAL (
                SELECT * FROM label_sources s
                WHERE s.dataset_id = u.dataset_id AND s.basis = b.basis
                  AND s.query_id = r.query_id AND s.doc_id = r.doc_id OFFSET 0) AS l ON true""",
}

SQL = {backend: f"""
        CREATE VIEW current_expert_labels AS{CURRENT_EXPERT_LABELS[backend]};
        CREATE VIEW expert_consensus AS{EXPERT_CONSENSUS[backend]};
        CREATE VIEW label_sources AS{LABEL_SOURCES[backend]};
        CREATE VIEW filled_labels AS{FILLED_LABELS};
        CREATE VIEW current_votes AS{CURRENT_VOTES};
        CREATE VIEW ranked_labels AS{RANKED_LABELS[backend]};
    """ for backend in ("duckdb", "postgresql")}
