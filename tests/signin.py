"""Signing an AppTest session in as an invited judge (what a sign-in link and its cookie do),
for page tests that are about something else than identity."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from judge_app.ui import state


def signed_in(at: AppTest, db: Path, name: str, admin: bool = False) -> AppTest:
    """``at`` signed in as ``name`` (invited now, an admin if asked) on the app's own store."""
    from judge_app.ui.resources import open_store

    store = open_store(str(db))
    _judge, session = store.sign_in(store.invite_judge(name, admin=admin))
    at.session_state[state.SESSION] = session
    return at
