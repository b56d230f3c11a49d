"""The judge page follows the dataset's round: a tab drawn on one round is told when a new
round starts ("a new round started: …") and moved to it — on the page's next rerun (a vote, a
grade, a skip: a vote cast there is stored against the round it was cast on, then the judge
is told) and, when ``SXS_ROUND_CHECK_SECONDS`` is set above 0, in an idle tab by a check every
so many seconds.  That periodic check is off by default: a ``run_every`` fragment's run
right after the judging area's rerun can leave the previous query's elements on screen until
the next rerun (Streamlit's stale-element clean-up is then scoped to the wrong fragment; e.g.
streamlit/streamlit#16708), which showed as two sets of vote buttons.  Moving is a
whole-page rerun: the sidebar reads the new round, the session's plan and view (keyed by the
set-up) are drawn anew.  What changed
and what the judge is told is :mod:`judge_app.services.round_change`'s.
"""

from __future__ import annotations

import os
from datetime import timedelta

import streamlit as st

from judge_app.services import round_change
from judge_app.store import Store
from judge_app.store.votes import Round
from judge_app.ui.components import plain
from judge_app.ui.setup import Setup

CHECK_SECONDS_ENV = "SXS_ROUND_CHECK_SECONDS"
DEFAULT_CHECK_SECONDS = 0.0
_SEEN = "sxs.round_watch.seen"  # (dataset name, round id) the page was drawn with
_TOLD = "sxs.round_watch.told"  # the notice to show on the next whole-page run


def check_seconds() -> float | None:
    """Seconds between an idle tab's checks (``SXS_ROUND_CHECK_SECONDS``); None: off."""
    text = os.environ.get(CHECK_SECONDS_ENV, "").strip()
    try:
        seconds = float(text) if text else DEFAULT_CHECK_SECONDS
    except ValueError:
        seconds = DEFAULT_CHECK_SECONDS
    return seconds if seconds > 0 else None


def drawn_with(setup: Setup, found: Round | None) -> None:
    """On every whole-page run: remember the round the page is drawn with (None: none, or
    one the set-up does not match, so the next check moves the page), and show the notice
    a move left."""
    matches = found is not None and (found.run_a, found.run_b, found.k, found.blind,
                                     found.overlap) == (setup.run_a, setup.run_b, setup.k,
                                                        setup.blind, setup.overlap)
    st.session_state[_SEEN] = (setup.dataset.name, found.round_id if matches else None)
    told = st.session_state.pop(_TOLD, None)
    if told:
        st.info(plain(told), icon=":material/sync:")


def follow(store: Store, setup: Setup) -> None:
    """In the judging area, before drawing: move the page to a new round (a whole-page rerun,
    the judge told) if one started since the page was drawn."""
    seen = st.session_state.get(_SEEN)
    if seen is None or seen[0] != setup.dataset.name:
        return
    change = round_change.round_change(store, setup.dataset, seen[1])
    if change is not None:
        st.session_state[_TOLD] = change.notice
        st.rerun(scope="app")


def watch(store: Store, setup: Setup) -> None:
    """An idle tab's periodic check (a fragment that draws nothing)."""
    every = check_seconds()
    if every is None:
        return

    @st.fragment(run_every=timedelta(seconds=every))
    def round_watch() -> None:
        follow(store, setup)

    round_watch()
