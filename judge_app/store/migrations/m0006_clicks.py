"""Click logs (issue 13): one ``click_imports`` row per imported file (its source, digest,
format, counts, the query-matching report, the engagement weights given, the logged run it was
stored as, and when), and every impression and event of the file.  ``query_id`` is the
*dataset's* query id the log query matched (NULL when it matched none: the row is kept so the
stored counts equal the file's), ``log_query_id`` the one logged; ``rank`` is 1-based,
``position`` as logged; ``line`` is the file's line."""

from __future__ import annotations

TABLES = """
        CREATE SEQUENCE click_import_ids START 1;
        CREATE TABLE click_imports (
            import_id INTEGER PRIMARY KEY DEFAULT nextval('click_import_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            source TEXT NOT NULL,
            format TEXT NOT NULL,
            digest TEXT NOT NULL,
            impressions BIGINT NOT NULL,
            events BIGINT NOT NULL,
            sessions BIGINT NOT NULL,
            sessions_matched BIGINT NOT NULL,
            log_queries BIGINT NOT NULL,
            queries_matched BIGINT NOT NULL,
            match_report JSON NOT NULL,
            weights TEXT NOT NULL,
            logged_run TEXT,
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            UNIQUE (dataset_id, digest)
        );
        CREATE TABLE click_impressions (
            import_id INTEGER NOT NULL REFERENCES click_imports (import_id),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            session_id TEXT NOT NULL,
            client_id TEXT,
            query_id TEXT,
            log_query_id TEXT,
            query_text TEXT,
            doc_id TEXT NOT NULL,
            position BIGINT NOT NULL,
            rank BIGINT NOT NULL,
            action TEXT NOT NULL,
            timestamp TIMESTAMPTZ,
            line BIGINT NOT NULL
        );
        CREATE TABLE click_events (
            import_id INTEGER NOT NULL REFERENCES click_imports (import_id),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            session_id TEXT NOT NULL,
            client_id TEXT,
            query_id TEXT,
            log_query_id TEXT,
            query_text TEXT,
            doc_id TEXT,
            position BIGINT,
            rank BIGINT,
            action TEXT NOT NULL,
            timestamp TIMESTAMPTZ,
            line BIGINT NOT NULL
        );
    """

SQL = {"duckdb": TABLES, "postgresql": TABLES}
