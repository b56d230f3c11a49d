"""Is B better yet, on the pages (issue 22): the dashboard's Decision panel with the chart of the
interval narrowing, and the one line the judge and backfill pages show.

Every figure is :mod:`judge_app.services.decision_state`'s (the same as ``sxs decide A B -d DS
-m ndcg_m@k --format json``: filled labels, policy median, experts, confidence 0.95) and the
chart is :func:`judge_app.services.decision_history.decision_history`'s; both are cached on
the store's data version, so a page draw pays one small read while nothing changed.
"""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from judge_app.errors import SxsError
from judge_app.services.dashboard import MISSING
from judge_app.services.decision_history import decision_history
from judge_app.services.decision_state import (
    CONFIDENCE,
    DecisionState,
    decision_state,
    pair_done,
    round_measure,
)
from judge_app.store import Dataset, Store
from judge_app.ui.components import plain
from judge_app.ui.setup import Setup


def state_of(store: Store, setup: Setup) -> DecisionState | None:
    """The session's pair's decision state; None when it cannot be taken (said in a caption:
    the pages go on without it)."""
    try:
        return decision_state(store, setup.dataset, setup.run_a, setup.run_b,
                              round_measure(setup.k))
    except SxsError as error:
        st.caption(f"Decision: not available ({plain(error)})")
        return None


def decision_line(store: Store, setup: Setup, decided: DecisionState | None = None) -> None:
    """The decision state in one line (a caption); nothing when ``decided`` (the page says
    the pair is done instead)."""
    if decided is not None:
        return
    state = state_of(store, setup)
    if state is not None:
        st.caption(plain(state.line(blind=setup.blind)))


def backfill_decision(store: Store, setup: Setup, runs: list[str]) -> bool:
    """The backfill page's line; True (and the judge told) when the round stops serving its
    pair once decided, the runs being filled are that pair, and it is decided."""
    if set(runs) == {setup.run_a, setup.run_b}:
        done = pair_done(store, setup.dataset, store.current_round(setup.dataset))
        if done is not None:
            st.success(plain(done.done_line(blind=setup.blind)))
            return True
    decision_line(store, setup)
    return False


def witness_table(state: DecisionState) -> pd.DataFrame:
    """One column per witness; rows: verdict, what it stands on, the estimate, both
    uncertainties, what is still needed (narrow enough for a laptop's screen)."""
    d, v = state.labels, state.votes
    needed = MISSING
    if d.limit is not None:
        count = d.labels_needed if d.limit.value == "labels" else d.queries_needed
        needed = f"~{count:,} {d.limit.value}" if count is not None else d.limit.value
    labels = {"witness": f"labels: {d.measure}", "verdict": d.verdict.label,
              "stands on": f"{d.judged:,} of {d.judged + d.unjudged:,} pool pairs judged, "
                           f"{d.queries:,} queries",
              "estimate": f"mean Δ {d.expected:+.4f}",
              "label uncertainty": f"certain {d.lower:+.4f} .. {d.upper:+.4f}; "
                                   f"P(B better) {d.p_b_better:.3f}",
              "query uncertainty": f"paired t p = {d.p_query:.3g} (|mean Δ| > "
                                   f"{d.threshold:.4f} needed)",
              "still needed": needed}
    cast = v.wins_a + v.wins_b
    votes = {"witness": "expert votes", "verdict": v.description,
             "stands on": f"{v.wins_b:,} for B, {v.wins_a:,} for A, {v.ties:,} ties or both "
                          "bad",
             "estimate": f"P(B preferred) {v.rate:.3f}" if cast else MISSING,
             "label uncertainty": MISSING,
             "query uncertainty": f"always-valid {v.confidence:.0%} interval "
                                  f"{v.low:.3f} .. {v.high:.3f}",
             "still needed": MISSING if v.verdict.decided else "more votes"}
    return pd.DataFrame([labels, votes]).set_index("witness").T.rename_axis(None, axis=1)


@st.cache_data(ttl=3600, max_entries=16, show_spinner="Replaying the label and vote history…")
def _history(db: str, dataset: str, run_a: str, run_b: str, measure: str, version: tuple,
             _store: Store, _found: Dataset) -> pd.DataFrame:
    return decision_history(_store, _found, run_a, run_b, measure, CONFIDENCE)


def narrowing_charts(history: pd.DataFrame, measure: str) -> tuple[alt.Chart, alt.Chart]:
    """The labels' mean Δ with its certain and probable bands, and the votes' always-valid
    interval, against the expert labels and votes that had arrived."""
    data = history.assign(arrived=history["labels"] + history["votes"])
    x = alt.X("arrived:Q", title="expert labels and votes so far",
              axis=alt.Axis(tickMinStep=1, format="d"))
    tips = ["at:T", "labels:Q", "votes:Q"]
    base = alt.Chart(data)
    labels = alt.layer(
        base.mark_area(opacity=0.18, color="#1f77b4").encode(
            x, alt.Y("lower:Q", title=f"mean Δ {measure} (B - A)"), alt.Y2("upper:Q")),
        base.mark_area(opacity=0.35, color="#1f77b4").encode(
            x, alt.Y("probable_low:Q"), alt.Y2("probable_high:Q")),
        base.mark_line(color="#1f77b4", point=True).encode(
            x, alt.Y("expected:Q"),
            tooltip=[*tips, "expected:Q", "lower:Q", "upper:Q", "p_b_better:Q",
                     "verdict:N"]),
        alt.Chart(pd.DataFrame({"y": [0.0]})).mark_rule(color="#555", strokeDash=[4, 4])
        .encode(y="y:Q"),
    ).properties(title=f"Labels: mean Δ, certain (light) and probable {CONFIDENCE:.0%} "
                       "(dark) bounds", height=260)
    votes = alt.layer(
        base.mark_area(opacity=0.3, color="#2e7d32").encode(
            x, alt.Y("votes_low:Q", title="P(B preferred)", scale=alt.Scale(domain=[0, 1])),
            alt.Y2("votes_high:Q")),
        base.mark_line(color="#2e7d32", point=True).encode(
            x, alt.Y("votes_rate:Q"),
            tooltip=[*tips, "votes_rate:Q", "votes_low:Q", "votes_high:Q",
                     "votes_verdict:N"]),
        alt.Chart(pd.DataFrame({"y": [0.5]})).mark_rule(color="#555", strokeDash=[4, 4])
        .encode(y="y:Q"),
    ).properties(title=f"Expert votes: always-valid {CONFIDENCE:.0%} interval for "
                       "P(B preferred)", height=260)
    return labels, votes


def decision_panel(store: Store, setup: Setup) -> None:
    """The dashboard's opening panel: each witness's verdict and figures, and how the
    intervals narrowed as labels and votes arrived."""
    st.header("Decision")
    measure = round_measure(setup.k)
    state = state_of(store, setup)
    if state is None:
        return
    used = state.report.labels
    # the command in plain text: in a code span, the escapes would show
    command = ["sxs decide", setup.run_a, setup.run_b, "-d", setup.dataset.name, "-m", measure]
    st.caption(f"Is B better than A? {plain(measure)} on the label set {plain(used.name)} "
               f"({plain(used.description)}), confidence {CONFIDENCE:g}: the figures of "
               f"{plain(' '.join(command))}")
    d = state.labels
    (st.success if d.verdict.decided else st.info)(
        f"**Labels: {plain(d.verdict.label)}** (mean Δ {d.expected:+.4f}, certain "
        f"{d.lower:+.4f} .. {d.upper:+.4f}) · **expert votes: "
        f"{plain(state.votes.description)}** · {plain(d.explanation())}")
    st.dataframe(witness_table(state))
    history = _history(str(store.path), setup.dataset.name, setup.run_a, setup.run_b,
                       measure, store.data_version(setup.dataset), store, setup.dataset)
    if len(history) < 2:
        st.caption("No expert label or vote yet: the chart of the interval narrowing starts "
                   "with the first.")
        return
    labels_chart, votes_chart = narrowing_charts(history, measure)
    left, right = st.columns(2)
    left.altair_chart(labels_chart)
    if history["votes"].iloc[-1]:
        right.altair_chart(votes_chart)
    else:
        right.caption("No expert vote on these two runs yet: their interval starts with the "
                      "first.")
    st.caption(f"{len(history)} points: the dataset's judgments alone, then cuts evenly "
               "spaced through the expert labels and votes as they arrived, each decided on "
               "what had arrived by then.")
