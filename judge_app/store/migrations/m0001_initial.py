"""The first schema: datasets and their grade scales, queries, documents, dataset judgments,
runs and their results, expert labels and side-by-side votes (``preferences``)."""

from __future__ import annotations

TABLES = """
        CREATE SEQUENCE dataset_ids START 1;
        CREATE TABLE datasets (
            dataset_id INTEGER PRIMARY KEY DEFAULT nextval('dataset_ids'),
            name TEXT NOT NULL UNIQUE,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        CREATE TABLE grade_scale (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            grade INTEGER NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (dataset_id, grade)
        );
        CREATE TABLE queries (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (dataset_id, query_id)
        );
        CREATE TABLE documents (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            doc_id TEXT NOT NULL,
            title TEXT,
            fields JSON,
            PRIMARY KEY (dataset_id, doc_id)
        );
        CREATE TABLE judgments (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            source TEXT NOT NULL,
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );  -- one row per (dataset, query, doc): kept by Store.put_judgments
        CREATE SEQUENCE run_ids START 1;
        CREATE TABLE runs (
            run_id INTEGER PRIMARY KEY DEFAULT nextval('run_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            name TEXT NOT NULL,
            source TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            UNIQUE (dataset_id, name)
        );
        CREATE TABLE run_results (
            run_id INTEGER NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            rank INTEGER NOT NULL,
            score DOUBLE
        );
        CREATE SEQUENCE label_ids START 1;
        CREATE TABLE expert_labels (
            label_id BIGINT PRIMARY KEY DEFAULT nextval('label_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            note TEXT,
            client_token TEXT NOT NULL UNIQUE
        );
        CREATE SEQUENCE preference_ids START 1;
        CREATE TABLE preferences (
            preference_id BIGINT PRIMARY KEY DEFAULT nextval('preference_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            run_a TEXT NOT NULL,
            run_b TEXT NOT NULL,
            left_run TEXT NOT NULL,
            choice TEXT NOT NULL CHECK (choice IN ('left', 'right', 'tie', 'both_bad')),
            reason TEXT,
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            ms_spent BIGINT,
            client_token TEXT NOT NULL UNIQUE,
            CHECK (left_run IN (run_a, run_b))
        );
    """

SQL = {
    "duckdb": TABLES,
    # PostgreSQL spells DuckDB's DOUBLE as DOUBLE PRECISION, the one difference
    "postgresql": TABLES.replace("score DOUBLE\n", "score DOUBLE PRECISION\n"),
}
