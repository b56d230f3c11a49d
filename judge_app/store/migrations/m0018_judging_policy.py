"""``judging_policy``: the judging policy in force when an expert label or a vote was given,
recorded with it — the vote queue's policy (``difference``, ``moves_decision``) for a vote
and a grade given beside it, the backfill order (``weight``, ``decision``, ``pool``,
``random``) for a backfill grade.  NULL for labels and votes imported from files (the policy
they were given under is not known here, unless a votes file carries it) and for those
written before this migration.  Plain text, no check: a new policy needs no migration.  The
same statements on DuckDB and PostgreSQL."""

from __future__ import annotations

JUDGING_POLICY = """
        ALTER TABLE expert_labels ADD COLUMN judging_policy TEXT;
        ALTER TABLE preferences ADD COLUMN judging_policy TEXT;
    """

SQL = {"duckdb": JUDGING_POLICY, "postgresql": JUDGING_POLICY}
