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
from judge_app.services.judging import ResultRow
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


SNIPPET_CHARS = 1000
"""How much of a field a result shows when the full text is asked for (one line otherwise)."""

RESULTS_CSS = """
<style>
[data-testid="stMainBlockContainer"] {
  padding-top: 3.9rem; padding-bottom: 2rem; padding-left: 2.5rem; padding-right: 2.5rem; }
[data-testid="stMain"] [data-testid="stVerticalBlock"]:not([class*="st-key-rank-"]) {
  gap: 0.55rem; }
[data-testid="stMain"] h3 { font-size: 1.3rem; line-height: 1.3; padding: 0.1rem 0 0.3rem; }
[class*="st-key-rank-"] { gap: 0.15rem; min-height: 0; }
[class*="st-key-rank-"] [data-testid="stMarkdownContainer"] { margin-bottom: 0; }
[class*="st-key-rank-"] [data-testid="stMarkdownContainer"] p { margin-bottom: 0.1rem; }
[class*="st-key-rank-"] [data-testid="stButtonGroup"] button {
  min-height: 1.4rem; padding: 0 0.45rem; }
[class*="st-key-rank-"] [data-testid="stButtonGroup"] button p { font-size: 0.78rem; }
[class*="st-key-rank-"] [data-testid="stButtonGroup"] > div { gap: 0.25rem; }
[data-testid="stMain"] [class*="st-key-rank-"] {
  display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  grid-template-rows: auto auto; grid-auto-flow: column; column-gap: 1.5rem;
  border-top: 1px solid rgba(49, 51, 63, 0.12); padding-top: 0.35rem; margin-top: -0.2rem; }
[class*="st-key-rank-"] > * { width: auto !important; max-width: 100%; min-width: 0; }
</style>
"""
"""The judge page's compact layout: a tighter header (a smaller query title, less space
between the bars), and results as rank rows of a title (clamped unless the full text is
shown), one line of badges and snippet, and small grade pills — under 120 px a row."""

_ONE_LINE = """
<style>
[class*="st-key-rank-"] [data-testid="stMarkdownContainer"] p:first-child {
  display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical;
  overflow: hidden; line-height: 1.4; }
[class*="st-key-rank-"] [data-testid="stMarkdownContainer"] p + p {
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
@media (max-width: 1600px) {
  [class*="st-key-rank-"] [data-testid="stMarkdownContainer"] p:first-child {
    -webkit-line-clamp: 1; } }
</style>
"""
"""Titles clamped to two lines (one on screens narrower than 1600 px, so a laptop shows as
many results as it can), snippets to one line."""


def use_results_css(full_text: bool = False) -> None:
    """Draw :data:`RESULTS_CSS` (our own style sheet, never user text); titles and snippets are
    clamped (:data:`_ONE_LINE`) unless ``full_text``."""
    st.html(RESULTS_CSS if full_text else RESULTS_CSS + _ONE_LINE)


def grade_badge(row: ResultRow) -> str:
    """The result's label as an inline markdown badge (escaped)."""
    if row.grade is None:
        return ":orange-badge[:material/help: unlabelled]"
    if row.label_source == "expert":
        return f":violet-badge[:material/person: {plain(row.grade_name)} (expert)]"
    colour = "green" if row.grade and row.grade > 0 else "gray"
    return f":{colour}-badge[:material/label: {plain(row.grade_name or row.grade)}]"


def result_details(row: ResultRow, fields: list[str], other_side: str,
                   full_text: bool = False) -> str:
    """The line under a result's title, as escaped markdown: the label badge, the shared mark
    and the chosen fields (one ellipsized line unless ``full_text``, see
    :func:`use_results_css`)."""
    parts = [grade_badge(row)]
    if row.other_rank is not None:
        parts.append(f":blue-badge[:material/link: #{int(row.other_rank)} "
                     f"{plain(other_side)}]")
    snippet = []
    for name in fields:
        value = row.fields.get(name)
        if value:
            limit = SNIPPET_CHARS if full_text else 200  # one line never shows more
            shown = value if len(value) <= limit else value[:limit] + "…"
            snippet.append(f"{plain(name)}: {plain(shown)}")
    line = " ".join(parts)
    if snippet:
        line += " :small[:gray[" + " · ".join(snippet) + "]]"
    return line


def result_card(row: ResultRow, fields: list[str], other_side: str,
                full_text: bool = False) -> None:
    """One markdown element (each one costs the browser time on every new query): rank and
    title, then :func:`result_details`."""
    st.markdown(f"**{int(row.rank)}.** {plain(row.title)}\n\n"
                f"{result_details(row, fields, other_side, full_text)}")


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
