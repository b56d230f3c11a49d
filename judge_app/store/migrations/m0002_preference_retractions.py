"""``preference_retractions``: a judge's undo of a vote, as a row of its own (the vote is kept)."""

from __future__ import annotations

TABLES = """
        CREATE TABLE preference_retractions (
            preference_id BIGINT NOT NULL REFERENCES preferences (preference_id),
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            client_token TEXT NOT NULL UNIQUE
        );
    """

SQL = {"duckdb": TABLES, "postgresql": TABLES}
