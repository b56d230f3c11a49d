"""Sign-in links are a one-time exchange for a session, and sessions end when idle.

* ``judges.token_used_at``: when the judge's current sign-in link was exchanged for a session
  (NULL: not yet).  A used link signs nobody in again; inviting the name again makes a new
  link (a judge on two devices gets one per device).
* ``sign_ins.last_seen_at``: when the session was last used (sessions from before this
  migration start from their ``created_at``); a session idle for longer than the store's idle
  expiry signs nobody in.
* ``sign_in_settings``: the idle expiries admins set, appended (the newest row is current):
  seconds, who set it (NULL: the command line) and when; no row means the default (three
  days, the store's).

The same statement on DuckDB and PostgreSQL."""

from __future__ import annotations

SIGN_IN_LIFETIME = """
        ALTER TABLE judges ADD COLUMN token_used_at TIMESTAMPTZ;
        ALTER TABLE sign_ins ADD COLUMN last_seen_at TIMESTAMPTZ;
        UPDATE sign_ins SET last_seen_at = created_at;
        CREATE SEQUENCE sign_in_setting_ids START 1;
        CREATE TABLE sign_in_settings (
            setting_id INTEGER PRIMARY KEY DEFAULT nextval('sign_in_setting_ids'),
            session_idle_seconds INTEGER NOT NULL CHECK (session_idle_seconds >= 60),
            set_by TEXT,
            set_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
    """

SQL = {"duckdb": SIGN_IN_LIFETIME, "postgresql": SIGN_IN_LIFETIME}
