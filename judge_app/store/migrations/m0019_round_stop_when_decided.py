"""``rounds.stop_when_decided``: a judging round's setting "stop when decided" (default false).
With it, the app stops serving the round's pair of runs once the labels verdict on the
round's first measure is decided (:mod:`judge_app.services.decision_state`) and tells judges
the pair is done.  Rounds started before this migration read false.  The same statement on
DuckDB and PostgreSQL (DuckDB adds no column with a NOT NULL constraint: readers take NULL
as false)."""

from __future__ import annotations

SQL = {backend: """
        ALTER TABLE rounds ADD COLUMN stop_when_decided BOOLEAN DEFAULT false;
""" for backend in ("duckdb", "postgresql")}
