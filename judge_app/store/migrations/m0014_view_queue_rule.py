"""``views.queue_rule``: why the query was drawn for the judge, the value of a
:class:`~judge_app.services.queue.Rule` (``largest_difference``, ``undone``, …) written by
:func:`~judge_app.services.next_query.next_query`; NULL for a view of a query named directly
(the CLI, the LLM judge, views issued before this migration).  Plain text, no check: a new
rule needs no migration.  The same statement on DuckDB and PostgreSQL."""

from __future__ import annotations

QUEUE_RULE = """
        ALTER TABLE views ADD COLUMN queue_rule TEXT;
    """

SQL = {"duckdb": QUEUE_RULE, "postgresql": QUEUE_RULE}
