"""``llm_calls``: one append-only row per call an LLM judge made (its provenance).

A grade or a vote the call produced is stored where a person's is (``expert_labels``,
``preferences``, judge ``llm:<model>``); ``output_token`` is that row's client token (the
link), NULL for a failed call, which writes nothing else.  ``kind`` is the prompt's task
(``grade``: query_id and doc_id; ``prefer``: query_id, run_a, run_b, with the side order asked
and the run shown on the left)."""

from __future__ import annotations

TABLES = """
        CREATE SEQUENCE llm_call_ids START 1;
        CREATE TABLE llm_calls (
            call_id BIGINT PRIMARY KEY DEFAULT nextval('llm_call_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            kind TEXT NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT,
            run_a TEXT,
            run_b TEXT,
            side_order INTEGER NOT NULL,
            left_run TEXT,
            judge TEXT NOT NULL,
            model TEXT NOT NULL,
            served_model TEXT,
            base_url TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            template_sha256 TEXT NOT NULL,
            prompt_sha256 TEXT NOT NULL,
            temperature DOUBLE NOT NULL,
            raw TEXT NOT NULL,
            value TEXT,
            reason TEXT,
            failure TEXT,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            latency_ms INTEGER,
            attempts INTEGER NOT NULL,
            asked_at TIMESTAMPTZ NOT NULL,
            recorded_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            output_token TEXT,
            CHECK (failure IS NULL OR (value IS NULL AND output_token IS NULL))
        );
    """

SQL = {
    "duckdb": TABLES,
    # PostgreSQL spells DuckDB's DOUBLE as DOUBLE PRECISION, the one difference
    "postgresql": TABLES.replace("temperature DOUBLE NOT", "temperature DOUBLE PRECISION NOT"),
}
