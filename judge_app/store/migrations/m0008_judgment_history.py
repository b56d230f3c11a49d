"""Every dataset grade an import replaced (``--on-conflict last``, or ``max``/``min`` when
they change it): the grade, where and when it came from, what replaced it and when.  Written in
the import's transaction (see :mod:`judge_app.store.history`).

And ``dataset_deletions``, the datasets being deleted: hidden from every reader from the moment
the row is written, purged table by table (DuckDB cannot delete a row and the rows referencing
it in one transaction), the row going last; see :mod:`judge_app.store.deletion`.  No foreign
key, so that it can go with the dataset."""

from __future__ import annotations

TABLES = """
        CREATE SEQUENCE judgment_history_ids START 1;
        CREATE TABLE judgment_history (
            history_id BIGINT PRIMARY KEY DEFAULT nextval('judgment_history_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            source TEXT NOT NULL,
            imported_at TIMESTAMPTZ NOT NULL,
            replaced_by TEXT NOT NULL,
            replaced_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        CREATE TABLE dataset_deletions (
            dataset_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            requested_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
    """

SQL = {"duckdb": TABLES, "postgresql": TABLES}
