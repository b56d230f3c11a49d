"""``rounds.queue_policy``: the order a judging round's vote queue serves queries in, by name
(the values of :class:`judge_app.services.queue.QueuePolicy` when this migration was written:
``difference``, ``moves_decision``).  NULL — every round started before this migration, and
any round saved without one — reads as ``difference``, the queue's order before policies
could be chosen.  No CHECK on the name: the services validate it, and a later policy needs no
migration.  The same statement on DuckDB and PostgreSQL."""

from __future__ import annotations

SQL = {backend: """
        ALTER TABLE rounds ADD COLUMN queue_policy TEXT;
""" for backend in ("duckdb", "postgresql")}
