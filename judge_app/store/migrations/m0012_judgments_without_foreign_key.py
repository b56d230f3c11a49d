"""On DuckDB, ``judgments`` drops its foreign key to ``datasets``, as ``run_results`` never had
one: DuckDB keeps an index over a foreign key's column in the referencing table (an entry per
row, all alike within a dataset), and building it was about half the time of a 1M-line qrels
import (issue 12).  Dataset ids come from ``datasets`` in every writer, and a dataset's
judgments are purged before its row (:mod:`judge_app.store.deletion`).  The table is rebuilt
with the same columns in the same order, every row kept; the views that read it find it by
name.  On PostgreSQL the key stays: checking it costs little."""

from __future__ import annotations

REBUILD = """
        CREATE TEMP TABLE judgments_kept AS SELECT * FROM judgments;
        DROP TABLE judgments;
        CREATE TABLE judgments (
            dataset_id INTEGER NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            source TEXT NOT NULL,
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        INSERT INTO judgments SELECT * FROM judgments_kept;
        DROP TABLE judgments_kept;
    """

# nothing on PostgreSQL
SQL = {"duckdb": REBUILD, "postgresql": ""}
