"""Gold items in the judges' queues, disputes re-judged, and adjudications.

* ``rounds`` gains ``gold_every`` — one known-answer (gold) item is mixed into each block of
  that many items a judge is served (NULL on rounds set before: 10, the default; 0: none) —
  and ``max_overlap`` — how many judges a disputed item may reach (NULL: the round's
  ``overlap``, no raising);
* ``adjudications``: an admin's grade for a (dataset, query, doc), append-only, the newest row
  of an item counting (``decided_by``, ``decided_at``, an optional ``note``);
* ``filled_labels`` (``0017``'s text, wrapped here): the newest adjudication of an item settles
  it under every policy and basis — its grade over every other, with the source
  ``adjudicated``.  An adjudicated item nobody labelled and the dataset never judged has no
  row to settle (an item is adjudicated because its judges disagree).

The same statements on DuckDB and PostgreSQL but for the view's window (``QUALIFY`` on
DuckDB, ``DISTINCT ON`` on PostgreSQL)."""

from __future__ import annotations

from judge_app.store.migrations.m0003_label_and_vote_views import FILLED_LABELS
from judge_app.store.migrations.m0017_dawid_skene_labels import DAWID_SKENE

TABLES = """
        ALTER TABLE rounds ADD COLUMN gold_every INTEGER;
        ALTER TABLE rounds ADD COLUMN max_overlap INTEGER;
        CREATE SEQUENCE adjudication_ids START 1;
        CREATE TABLE adjudications (
            adjudication_id BIGINT PRIMARY KEY DEFAULT nextval('adjudication_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            decided_by TEXT,
            decided_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            note TEXT
        );
        CREATE INDEX adjudications_by_item ON adjudications (dataset_id, query_id, doc_id);
        DROP VIEW filled_labels;
"""

# the newest adjudication of each (dataset, query, doc)
SETTLED = {
    "duckdb": """
            SELECT dataset_id, query_id, doc_id, grade FROM adjudications
            QUALIFY row_number() OVER (PARTITION BY dataset_id, query_id, doc_id
                                       ORDER BY adjudication_id DESC) = 1""",
    "postgresql": """
            SELECT DISTINCT ON (dataset_id, query_id, doc_id) dataset_id, query_id, doc_id,
                   grade FROM adjudications
            ORDER BY dataset_id, query_id, doc_id, adjudication_id DESC""",
}

VIEW = """
        CREATE VIEW filled_labels AS
            SELECT f.dataset_id, f.basis, f.policy, f.query_id, f.doc_id,
                   coalesce(a.grade, f.grade) AS grade,
                   CASE WHEN a.grade IS NULL THEN f.source ELSE 'adjudicated' END AS source,
                   f.judges
            FROM ({filled}{dawid_skene}) AS f
            LEFT JOIN ({settled}) AS a
                ON a.dataset_id = f.dataset_id AND a.query_id = f.query_id
                   AND a.doc_id = f.doc_id;
"""

SQL = {backend: TABLES + VIEW.replace("{filled}", FILLED_LABELS)
       .replace("{dawid_skene}", DAWID_SKENE).replace("{settled}", SETTLED[backend])
       for backend in ("duckdb", "postgresql")}
