"""``gold_items``: known-answer items an admin marked, append-only (the newest row of an item
counts; a row with ``retracted`` true unmarks it).

An item is either graded — (dataset, query, doc) with the expected ``grade`` — or a pair —
(dataset, query, run_1 < run_2) with the run expected to be preferred (``preferred_run``, one
of the two).  Each row says who marked it (``marked_by``; NULL for the operator at the command
line), when, and where from: ``source`` is ``file`` (``origin`` the file's path), ``dataset``
(the dataset's own judgment) or ``adjudication``.  The same statement on DuckDB and
PostgreSQL."""

from __future__ import annotations

GOLD = """
        CREATE SEQUENCE gold_ids START 1;
        CREATE TABLE gold_items (
            gold_id BIGINT PRIMARY KEY DEFAULT nextval('gold_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT,
            grade INTEGER,
            run_1 TEXT,
            run_2 TEXT,
            preferred_run TEXT,
            retracted BOOLEAN NOT NULL DEFAULT false,
            source TEXT NOT NULL CHECK (source IN ('file', 'dataset', 'adjudication')),
            origin TEXT,
            marked_by TEXT,
            marked_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            CHECK ((doc_id IS NOT NULL AND run_1 IS NULL AND run_2 IS NULL
                    AND preferred_run IS NULL AND (grade IS NOT NULL OR retracted))
                   OR (doc_id IS NULL AND grade IS NULL AND run_1 IS NOT NULL
                       AND run_2 IS NOT NULL AND run_1 < run_2
                       AND (preferred_run IN (run_1, run_2) OR retracted)))
        );
        CREATE INDEX gold_items_by_item ON gold_items (dataset_id, query_id, doc_id);
    """

SQL = {"duckdb": GOLD, "postgresql": GOLD}
