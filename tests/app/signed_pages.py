"""AppTest pages of the app signed in as a judge, and their text as a reader sees it: shared
by the page tests on the tiny store of :mod:`tests.services.decided_pair`."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


def page(db: Path, name: str, script: str, admin: bool = False) -> AppTest:
    """The app on ``db``, signed in as ``name`` (an admin if ``admin``), on page ``script``."""
    at = signed_in(AppTest.from_file(APP, default_timeout=60), db, name, admin=admin).run()
    at.switch_page(script).run()
    assert not at.exception, at.exception
    return at


def shown(text: str) -> str:
    """Text as a reader sees it: the markdown escapes and bold marks dropped."""
    return text.replace("\\", "").replace("**", "")
