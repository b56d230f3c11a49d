"""Small rendering helpers.  User-supplied text (queries, titles, fields, names) is always
shown as text: markdown characters are escaped and HTML is never allowed."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st

from judge_app.addresses import redact
from judge_app.errors import SxsError
from judge_app.ui import state
from metrics.scale import GradeScale

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(text: object) -> str:
    """Text with every markdown character escaped, safe to pass to st.markdown."""
    return _MARKDOWN.sub(r"\\\1", str(text)).replace("\n", " ")


@contextmanager
def user_errors(strip: str | None = None) -> Iterator[None]:
    """The pages' error boundary: an SxsError inside is shown with ``st.error`` (``strip``
    removed from it, e.g. a temporary folder; a PostgreSQL password hidden) and the page
    stops; anything else is a bug and propagates."""
    try:
        yield
    except SxsError as error:
        message = str(error) if strip is None else str(error).replace(strip, "")
        st.error(plain(redact(message)))
        st.stop()


def reports_errors(callback: Callable[..., Any]) -> Callable[..., Any]:
    """For widget callbacks: an SxsError is kept and shown by :func:`show_callback_error` on
    the page's next run instead of a traceback."""

    @functools.wraps(callback)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except SxsError as error:
            st.session_state[state.CALLBACK_ERROR] = redact(str(error))
            return None

    return wrapper


def show_callback_error(where: Any = None) -> None:
    """Show (once) the error a callback kept, in ``where`` (a slot such as ``st.empty()``)
    or in place."""
    message = st.session_state.pop(state.CALLBACK_ERROR, None)
    if message:
        (where if where is not None else st).error(plain(message))


JUDGE_PAGE_CSS = """
<style>
[data-testid="stHeader"] { background: transparent; }
/* the header and everything in it (its toolbar too) lets clicks through to the page below,
   but its own buttons and links */
header[data-testid="stHeader"], header[data-testid="stHeader"] * {
  pointer-events: none !important; }
header[data-testid="stHeader"] button, header[data-testid="stHeader"] a {
  pointer-events: auto !important; }
[data-testid="stMainBlockContainer"] {
  padding-top: 1rem; padding-bottom: 2rem; padding-left: 2.5rem; padding-right: 3.5rem; }
[data-testid="stMain"] [data-testid="stVerticalBlock"] { gap: 0.55rem; }
[data-testid="stMain"] h3 { font-size: 1.3rem; line-height: 1.3; padding: 0.1rem 0 0.3rem; }
</style>
"""
"""The judge page's compact header: Streamlit's header bar (60 px, empty but for the menu at
the right) made transparent and click-through, so the progress row starts at the top of the
page instead of ~100 px below it; room on the right for the menu; a smaller query title and
less space between the bars (the results themselves are styled by
:mod:`judge_app.ui.results_grid`)."""


def use_judge_page_css() -> None:
    """Draw :data:`JUDGE_PAGE_CSS` (our own style sheet, never user text)."""
    st.html(JUDGE_PAGE_CSS)


def scroll_to_top(view_id: str) -> None:
    """Scroll the page to its top once per ``view_id`` (the script only runs again when the
    id changes, so grading a result on the same view leaves the page where it is)."""
    token = re.sub(r"[^0-9A-Za-z_-]", "", view_id)
    # on the next frame, not while the new elements are being inserted: a scroll then would
    # force the browser to lay the half-drawn page out once more (~50 ms a query)
    st.html(f"<script>/* view {token} */ requestAnimationFrame(() => {{ for (const el of ["
            "document.querySelector('[data-testid=\"stMain\"]'), document.scrollingElement]) "
            "{ if (el) el.scrollTo({top: 0, behavior: 'instant'}); } });</script>",
            unsafe_allow_javascript=True)


SESSION_COOKIE = "sxs_session"
"""The cookie that keeps a signed-in browser signed in across reloads (a session token; the
store keeps only its hash)."""
SESSION_DAYS = 30


def remember_session(session: str) -> None:
    """Keep the session token in a cookie of this browser (read back on a reload).  The
    token is stripped to [0-9A-Za-z_-] (what ``secrets.token_urlsafe`` makes) before it
    reaches the script."""
    token = re.sub(r"[^0-9A-Za-z_-]", "", session)
    st.html(f"<script>document.cookie = '{SESSION_COOKIE}={token}; path=/; "
            f"max-age={SESSION_DAYS * 86400}; SameSite=Strict';</script>",
            unsafe_allow_javascript=True)


def grade_shortcuts(scale: GradeScale) -> list[tuple[int, str, str | None]]:
    """(value, name, key) per grade, in the scale's order: key "1" is the LOWEST grade, as on
    every page; grades past the ninth get no key."""
    return [(value, name, str(number) if number <= 9 else None)
            for number, (value, name) in enumerate(scale.grades, start=1)]
