"""``rounds.backfill_policy``: the order a judging round's backfill page serves (query, doc)
pairs in, by name (the values of :class:`metrics.judging_order.JudgingOrder` a round may
choose when this migration was written: ``decision``, ``weight``).

Every round started before this migration reads ``weight``, the only backfill order there
was (the column comes with that default, dropped at once: no row is rewritten, as the store
never rewrites its history): a round is the protocol its admin started, and the grades
gathered under it keep the order they were gathered in until an admin saves the round again
with another.  NULL — a
round saved after this migration without a choice — reads as ``decision``, the default of new
rounds (:func:`judge_app.services.queue.backfill_policy_of_round`).  No CHECK on the name: the
services validate it.  The same statements on DuckDB and PostgreSQL."""

from __future__ import annotations

SQL = {backend: """
        ALTER TABLE rounds ADD COLUMN backfill_policy TEXT DEFAULT 'weight';
        ALTER TABLE rounds ALTER COLUMN backfill_policy DROP DEFAULT;
""" for backend in ("duckdb", "postgresql")}
