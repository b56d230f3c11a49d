"""Opening a query on the judge page outside the queue (:mod:`judge_app.services.open_query`):
the ``?query=`` a My work link carries, and, for admins, a query search in the sidebar whose
matches open with a click.  The query opens on the page's next draw, drawn by
:attr:`~judge_app.services.queue.Rule.OPENED`."""

from __future__ import annotations

import time

import streamlit as st

from judge_app.errors import SxsError
from judge_app.services.next_query import skip
from judge_app.services.open_query import QUERY_PARAM, find_queries, open_query
from judge_app.store import Dataset, Store
from judge_app.store.judges import Judge
from judge_app.store.votes import Round
from judge_app.ui import state
from judge_app.ui.components import plain

OPEN: str = "sxs.open_query"  # a query id to open on the judge page's next draw
SEARCH: str = "sxs.query_search"  # the admin's query search box
MATCHES = 8  # matches listed under the search box


def _open(query_id: str) -> None:
    st.session_state[OPEN] = query_id


def opened_view(store: Store, dataset: Dataset, round_: Round, judge: Judge,
                key: tuple) -> bool:
    """Open the query asked for (``?query=``, taken from the URL once, or the picker), if
    any: its view becomes the one on screen (for the set-up ``key``; the lease on the query
    it replaces ends); a refusal is shown in one line and the queue goes on.  True when a
    view was opened."""
    asked = st.query_params.get(QUERY_PARAM)
    if asked:
        del st.query_params[QUERY_PARAM]
        _open(asked)
    query_id = st.session_state.pop(OPEN, None)
    if not query_id:
        return False
    try:
        view = open_query(store, dataset, round_, judge, query_id)
    except SxsError as error:
        st.error(plain(str(error)))
        return False
    replaced = st.session_state.get(state.VIEW)
    if replaced is not None:
        skip(store, replaced, judge.name)
    st.session_state[state.VIEW] = view
    st.session_state[state.VIEW_KEY] = key
    st.session_state[state.VIEW_SHOWN_AT] = time.monotonic()
    return True


def query_picker(store: Store, dataset: Dataset) -> None:
    """Admins: search the dataset's queries by id or words (sidebar) and open one."""
    with st.sidebar:
        st.subheader("Open a query")
        text = st.text_input("Find a query", key=SEARCH, placeholder="query id or words",
                             help="Opens the query on this page, outside the queue "
                                  "(admins; a vote there replaces your earlier one)")
        if not text.strip():
            return
        found = find_queries(store, dataset, text, limit=MATCHES + 1)
        if found.empty:
            st.caption("No query matches.")
            return
        for query_id, query in zip(found["query_id"][:MATCHES], found["text"][:MATCHES],
                                   strict=True):
            label = f"{query_id} · {query}" if isinstance(query, str) else str(query_id)
            st.button(plain(label[:70]), key=f"open:{query_id}", on_click=_open,
                      args=(str(query_id),), type="tertiary")
        if len(found) > MATCHES:
            st.caption(f"More than {MATCHES} match: type more words.")
