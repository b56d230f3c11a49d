"""``judging_slots``: one row per (dataset, query, unordered pair of runs) ever issued, the row
a judging assignment locks (issue 15).  On PostgreSQL, issuing a view takes it with ``FOR
UPDATE SKIP LOCKED`` (a query another replica is assigning right now is skipped) and a vote
with ``FOR UPDATE``, so the count of judges per query is read and changed by one transaction at
a time across every replica.  DuckDB's one writer needs no lock; the table is the same on both.

And, on PostgreSQL only, the indexes a judge page's reads of one query use (``LOOKUP_INDEXES``;
DuckDB's scans need none)."""

from __future__ import annotations

TABLE = """
        CREATE TABLE judging_slots (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            run_1 TEXT NOT NULL,
            run_2 TEXT NOT NULL,
            PRIMARY KEY (dataset_id, query_id, run_1, run_2)
        );
    """

LOOKUP_INDEXES = """
        CREATE INDEX expert_labels_by_query ON expert_labels (dataset_id, query_id, doc_id);
        CREATE INDEX expert_labels_by_judge ON expert_labels (dataset_id, judge, query_id,
                                                             doc_id);
        CREATE INDEX judgments_by_query ON judgments (dataset_id, query_id, doc_id);
        CREATE INDEX run_results_by_run ON run_results (run_id, query_id, rank);
        CREATE INDEX views_by_query ON views (dataset_id, query_id, run_1, run_2);
        CREATE INDEX preferences_by_query ON preferences (dataset_id, query_id, run_1, run_2);"""

SQL = {"duckdb": TABLE, "postgresql": TABLE + LOOKUP_INDEXES}
