"""Small rendering helpers.  User-supplied text (queries, titles, fields, names) is always
shown as text: markdown characters are escaped and HTML is never allowed."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st

from judge_app.errors import SxsError
from judge_app.services.judging import ResultRow
from judge_app.ui import state

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(text: object) -> str:
    """Text with every markdown character escaped, safe to pass to st.markdown."""
    return _MARKDOWN.sub(r"\\\1", str(text)).replace("\n", " ")


@contextmanager
def user_errors(strip: str | None = None) -> Iterator[None]:
    """The pages' error boundary: an SxsError inside is shown with ``st.error`` (``strip``
    removed from it, e.g. a temporary folder) and the page stops; anything else is a bug and
    propagates."""
    try:
        yield
    except SxsError as error:
        message = str(error) if strip is None else str(error).replace(strip, "")
        st.error(plain(message))
        st.stop()


def reports_errors(callback: Callable[..., Any]) -> Callable[..., Any]:
    """For widget callbacks: an SxsError is kept and shown by :func:`show_callback_error` on
    the page's next run instead of a traceback."""

    @functools.wraps(callback)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except SxsError as error:
            st.session_state[state.CALLBACK_ERROR] = str(error)
            return None

    return wrapper


def show_callback_error() -> None:
    """Show (once) the error a callback kept."""
    message = st.session_state.pop(state.CALLBACK_ERROR, None)
    if message:
        st.error(plain(message))


def grade_badge(row: ResultRow) -> None:
    if row.grade is None:
        st.badge("unlabelled", icon=":material/help:", color="orange")
    elif row.label_source == "expert":
        st.badge(f"{plain(row.grade_name)} (expert)", icon=":material/person:", color="violet")
    else:
        st.badge(plain(row.grade_name or row.grade), icon=":material/label:",
                 color="green" if row.grade and row.grade > 0 else "gray")


def result_card(row: ResultRow, fields: list[str], other_side: str) -> None:
    """Rank, title, chosen fields, the label badge and the shared mark of one result."""
    st.markdown(f"**{int(row.rank)}.** {plain(row.title)}")
    badges = st.container(horizontal=True, gap="small")
    with badges:
        grade_badge(row)
        if row.other_rank is not None:
            st.badge(f"shared: #{int(row.other_rank)} on the {plain(other_side)}",
                     icon=":material/link:", color="blue")
    for name in fields:
        value = row.fields.get(name)
        if value:
            shown = value if len(value) <= 300 else value[:300] + "…"
            st.caption(f"{plain(name)}: {plain(shown)}")
