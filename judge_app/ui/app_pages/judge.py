"""Side-by-side page: one query, two blind rankings, a vote, inline grades.

The sidebar (the round) is drawn by the full page; everything below it is a fragment, so a
vote, a grade, a skip or an undo reruns only the fragment.  Which query comes next, and why, is
:func:`judge_app.services.next_query.next_query`'s; the page keeps what the session remembers
between draws (the judge's plan, advanced locally after their own vote: see :func:`kept_plan`;
the view on screen; a query to bring back; the skipped ones) and draws what it returns.  Every
rule that matters is the store's, checked on each write: a vote names its view, a query another
judge took meanwhile is refused a view (the next one is drawn), a revoked judge is refused.
"""

from __future__ import annotations

import time
import uuid

import streamlit as st

from judge_app.services import grading, judging, next_query, vote_pace
from judge_app.services.next_query import Focus
from judge_app.services.queue import QueuePolicy, Rule
from judge_app.store.votes import (
    DEFAULT_GOLD_EVERY,
    DEFAULT_LEASE_SECONDS,
    QueryFull,
    Round,
    StaleView,
)
from judge_app.ui import resources, round_watch, state
from judge_app.ui.components import (
    plain,
    reports_errors,
    scroll_to_top,
    show_callback_error,
    use_judge_page_css,
    user_errors,
)
from judge_app.ui.decision_panel import decision_line
from judge_app.ui.query_opening import opened_view, query_picker
from judge_app.ui.results_grid import grid_data, results_grid, sent_state
from judge_app.ui.setup import Setup, session_setup
from metrics.votes import Choice

# How long the session's queue is reused before it is recomputed from the store (other
# judges' votes only reorder or shorten it; the store refuses a query that is full).
PLAN_SECONDS = 60.0

store = resources.store()
judge: str = st.session_state[state.JUDGE]  # the verified identity (app.py), never typed here
setup = session_setup(store)
found_round = store.current_round(setup.dataset) if setup is not None else None
lease_seconds = found_round.lease_seconds if found_round else DEFAULT_LEASE_SECONDS
stop_when_decided = bool(found_round.stop_when_decided) if found_round else False
gold_every = found_round.gold_every if found_round else DEFAULT_GOLD_EVERY
queue_policy = QueuePolicy.of_round(found_round.queue_policy if found_round else None)


def setup_key(setup: Setup) -> tuple:
    return (setup.dataset.name, setup.run_a, setup.run_b, setup.k, setup.blind, setup.overlap,
            queue_policy.value)


def kept_plan(setup: Setup) -> judging.Plan | None:
    """The judge's plan as this session keeps it: None (computed again from the store) when
    the set-up changed, after an undo, a refused or a second-tab vote, or after
    :data:`PLAN_SECONDS`; in between, their own stored vote advances it
    (:func:`judging.advance`) without a round trip."""
    kept = st.session_state.get(state.PLAN)
    if kept is not None and kept[0] == setup_key(setup) and (
            time.monotonic() - kept[1] < PLAN_SECONDS):
        return kept[2]
    return None


def forget_plan() -> None:
    st.session_state.pop(state.PLAN, None)


def draw(setup: Setup) -> next_query.NextQuery:
    """Ask :func:`next_query.next_query` what this judge sees now, with what the session
    remembers, and remember what it returns."""
    key = setup_key(setup)
    plan = kept_plan(setup)
    round_ = Round(setup.dataset.name, setup.run_a, setup.run_b, setup.k, setup.overlap,
                   setup.blind, lease_seconds, stop_when_decided, gold_every,
                   max_overlap=found_round.max_overlap if found_round else None)
    opened_view(store, setup.dataset, round_, st.session_state[state.IDENTITY], key)
    shown = st.session_state.get(state.VIEW)
    drawn = next_query.next_query(
        store, setup.dataset, round_, judge,
        order=lambda: cached_order(str(store.path), setup.dataset.name, setup.run_a,
                                   setup.run_b, setup.k, queue_policy.value),
        plan=plan, shown=shown if st.session_state.get(state.VIEW_KEY) == key else None,
        focus=st.session_state.pop(state.FOCUS, None),
        skipped=st.session_state.get(state.SKIPPED, ()), policy=queue_policy)
    if drawn.plan is not plan:
        st.session_state[state.PLAN] = (key, time.monotonic(), drawn.plan)
    if drawn.view is not None and drawn.view is not shown:
        st.session_state[state.VIEW] = drawn.view
        st.session_state[state.VIEW_KEY] = key
        st.session_state[state.VIEW_SHOWN_AT] = time.monotonic()
    return drawn


@reports_errors
def vote(choice: str, view_id: str) -> None:
    """Vote on the view whose button was clicked.  The buttons are keyed by the view, so a click
    sent while an earlier query was shown (a double click, a resend) names a widget the next
    draw no longer has, and Streamlit drops it; a click on a view other than the current one
    stores nothing (and says why when it came within the window below).  A key press or a
    click within :func:`vote_pace.min_seconds_between_votes` of a vote (nobody judges a query
    that fast) is refused and the judge told at once (:class:`vote_pace.VoteTooFast`), and
    the store refuses the same view twice whatever the page does."""
    view = st.session_state.get(state.VIEW)
    if view is None or view.view_id != view_id:
        # a key pressed while the next query is being drawn reaches the previous query's
        # button: within the window it is a vote too soon, and the judge is told
        vote_pace.check_pace(st.session_state.get(state.VOTED_AT), time.monotonic())
        return
    vote_pace.check_pace(st.session_state.get(state.VOTED_AT), time.monotonic())
    spent = int((time.monotonic() - st.session_state.get(state.VIEW_SHOWN_AT,
                                                         time.monotonic())) * 1000)
    reason = st.session_state.get(f"reason:{view.view_id}", "")
    try:
        stored = judging.record_vote(store, setup.dataset, view, choice, judge, reason, spent)
    except (StaleView, QueryFull):
        st.session_state[state.KEPT_REASON] = reason  # back in the box of the redrawn query
        st.session_state[state.FOCUS] = Focus(view.query_id, Rule.REDRAWN)
        st.session_state[state.VIEW] = None
        forget_plan()
        raise
    st.session_state[state.VOTED_AT] = time.monotonic()
    if stored:
        st.session_state[state.LAST_REVEAL] = (view.query_text, choice, view.left_run,
                                               view.right_run)
        kept = st.session_state.get(state.PLAN)
        if kept is not None:
            st.session_state[state.PLAN] = (*kept[:2], judging.advance(kept[2], view.query_id))
    else:  # this judge's vote on the query came from another tab: nothing to say
        forget_plan()
    st.session_state[state.VIEW] = None


def skip() -> None:
    view = st.session_state.get(state.VIEW)
    if view is not None:
        st.session_state.setdefault(state.SKIPPED, []).append(view.query_id)
        next_query.skip(store, view, judge)
    st.session_state[state.VIEW] = None


@reports_errors
def undo() -> None:
    query_id = judging.undo_last_vote(store, setup.dataset, judge, setup.run_a, setup.run_b,
                                      f"undo:{uuid.uuid4().hex}")
    if query_id is not None:
        forget_plan()
        st.session_state[state.FOCUS] = Focus(query_id, Rule.UNDONE)
        st.session_state[state.VIEW] = None
        st.session_state[state.LAST_REVEAL] = None
        st.toast(plain(Rule.UNDONE.sentence))


def view_grades() -> dict[str, grading.ViewGrades]:
    """This session's latest views and the grades it stored on each."""
    return st.session_state.setdefault(state.VIEW_GRADES, {})


@reports_errors
def grade() -> None:
    """The results grid sent its state: store what changed (:func:`grading.apply_grades`
    accepts it only for a view this session was issued, docs it shows, grades of the
    scale)."""
    grading.apply_grades(store, setup.dataset, judge, sent_state(), view_grades(),
                         setup.dataset.scale)


@st.cache_data(ttl=120, show_spinner="Ordering the queries…")
def cached_order(db: str, dataset: str, run_a: str, run_b: str, k: int,
                 policy: str) -> judging.QueryOrder:
    return judging.query_order(store, store.dataset(dataset), run_a, run_b, k, policy)


if setup is None:
    st.title("Side by side")
    st.info("Choose a dataset and two runs in the sidebar.")
    st.stop()
if st.session_state[state.IDENTITY].admin:
    query_picker(store, setup.dataset)
round_watch.drawn_with(setup, found_round)


@st.fragment
def judging_area(setup: Setup) -> None:
    """Everything below the sidebar: a vote reruns only this."""
    # Every run draws the same elements in the same places (an error slot, the top row with
    # the last vote's receipt inside it), so a rerun replaces elements where they stand
    # instead of pushing the page down by one.
    round_watch.follow(store, setup)  # a new round moves the whole page (the judge told)
    show_callback_error(st.empty())
    with user_errors():
        drawn = draw(setup)
    plan, view = drawn.plan, drawn.view

    top = st.container(horizontal=True, vertical_alignment="center")
    with top:
        st.markdown(f"**{int(plan.done)} of {int(plan.total)} queries** judged by you")
        st.progress(plan.done / plan.total if plan.total else 1.0, width=240)
        st.button("Undo last vote", on_click=undo, icon=":material/undo:", shortcut="Ctrl+Z",
                  disabled=plan.done == 0)
        st.toggle("Full text", key=state.FULL_TEXT, help="Whole titles and longer snippets")
        reveal = st.session_state.get(state.LAST_REVEAL)
        if reveal:
            text, choice, left_run, right_run = reveal
            st.caption(f"Saved: {plain(Choice(choice).label)} for “{plain(text)}” — left was "
                       f"{plain(left_run)}, right was {plain(right_run)}.")

    # the decision line holds its place but is drawn last: deciding anew after a vote or a
    # grade (tenths of a second) must not hold back the next query and its results
    line = st.empty()
    try:
        if view is None:
            decided = drawn.decided
            st.success(plain(decided.done_line(blind=setup.blind)) if decided is not None else
                       "Nothing left to judge for these two runs. Thank you!")
            return

        scroll_to_top(view.view_id)
        st.subheader(plain(view.query_text), anchor=False)
        st.caption(f"query {plain(view.query_id)} · top {int(setup.k)} · grade any result below "
                   "(your grade is stored as an expert label; the dataset's is kept); vote when "
                   "you have read both sides")
        if drawn.reason is not None:
            st.caption(plain(drawn.reason.sentence))
        kept_reason = st.session_state.pop(state.KEPT_REASON, None)
        if kept_reason:
            st.session_state[f"reason:{view.view_id}"] = kept_reason
        bar = st.container(horizontal=True, vertical_alignment="center")
        with bar:
            st.text_input("Why? (optional)", key=f"reason:{view.view_id}", max_chars=500,
                          width=320, placeholder="Why? (optional)", label_visibility="collapsed")
            for shortcut, choice in enumerate(Choice, start=1):
                st.button(choice.label, key=f"vote:{choice.value}:{view.view_id}", on_click=vote,
                          args=(choice.value, view.view_id),
                          type="primary" if choice in (Choice.LEFT, Choice.RIGHT) else "secondary",
                          shortcut=str(shortcut))
            st.button("Skip", key="skip", on_click=skip, shortcut="S", type="tertiary")

        full_text = bool(st.session_state.get(state.FULL_TEXT, False))
        use_judge_page_css()
        if not view.left and not view.right:
            st.caption("Neither run returned a result for this query.")
            return
        grades = grading.remember_view(view_grades(), view)
        results_grid(grid_data(view, setup.fields, setup.dataset.scale, grades, full_text,
                               run_names=not setup.blind), on_change=grade)
    finally:
        with line.container():
            decision_line(store, setup, drawn.decided)


judging_area(setup)
round_watch.watch(store, setup)
