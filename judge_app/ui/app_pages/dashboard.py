"""Dashboard: the metrics with the gaps filled, A vs B with honest uncertainty, the experts,
and whether the metric agrees with them.  Every figure states its settings."""

from __future__ import annotations

import altair as alt
import streamlit as st

from judge_app.io.rules import parse_rules
from judge_app.policies import LabelPolicy, choices
from judge_app.services.checks import run_checks
from judge_app.services.dashboard import (
    MISSING,
    Dashboard,
    Settings,
    dashboard,
    delta_chart_data,
    filling_table,
    number,
    per_run_table,
    readable,
)
from judge_app.ui import resources
from judge_app.ui.components import plain, user_errors
from judge_app.ui.setup import session_setup

store = resources.store()
setup = session_setup(store)
st.title("Dashboard")
if setup is None:
    st.info("Choose a dataset and two runs in the sidebar.")
    st.stop()

options = st.container(horizontal=True)
with options:
    gain = st.segmented_control("Gain", ["linear", "exponential"], default="linear",
                                required=True)
    discount = st.segmented_control("Discount", ["log2", "reciprocal"], default="log2",
                                    required=True)
    policy = st.selectbox("Label policy", choices(LabelPolicy), width=200)
settings = Settings(setup.k, gain, discount, policy)


@st.cache_data(ttl=3600, max_entries=16, show_spinner="Computing the dashboard…")
def cached(db: str, dataset: str, run_a: str, run_b: str, settings: Settings,
           version: tuple) -> Dashboard:
    found = store.dataset(dataset)
    return dashboard(store, found, run_a, run_b, settings, permutations=5000)


with user_errors():
    board = cached(str(store.path), setup.dataset.name, setup.run_a, setup.run_b, settings,
                   store.data_version(setup.dataset))

queries = len(board.health)
st.caption(f"A = {plain(board.run_a)} (baseline), B = {plain(board.run_b)} (candidate) · "
           f"{plain(settings.stamp())} · {queries:,} queries")

st.header("Per run")
st.caption("Mean and [95% BCa bootstrap interval] over the queries, filled labels · "
           f"{plain(settings.stamp())}")
st.dataframe(per_run_table(board))
st.subheader("What filling the gaps changed")
st.caption(f"Before → after the experts' labels, means over {queries:,} queries · "
           f"{plain(settings.stamp())}")
st.dataframe(filling_table(board))

st.header("Dataset health")
st.metric(f"Mean best NDCG-m@{int(setup.k)} over {queries:,} queries",
          number(board.health.mean()))
chart = alt.Chart(board.health.rename("best").reset_index()).mark_bar().encode(
    alt.X("best:Q", bin=alt.Bin(extent=[0, 1], step=0.1), title=f"best NDCG-m@{int(setup.k)}"),
    alt.Y("count():Q", title="queries"))
st.altair_chart(chart.properties(
    title=f"Query ceilings · {queries:,} queries · {settings.stamp()}"))
st.caption(f"{len(board.low_ceiling)} of {queries:,} queries cannot reach "
           f"{settings.low_ceiling:g}: the corpus has nothing good for them (with the labels "
           "we have).")
if len(board.low_ceiling):
    st.dataframe(readable(board.low_ceiling), hide_index=True)

st.header("A vs B")
compared = int(board.comparison["n"].max()) if len(board.comparison) else 0
st.caption(f"Deltas are B - A over {compared:,} queries; p-values: randomization, t-test, "
           f"Wilcoxon; CI: BCa bootstrap · mean RBO@{int(setup.k)} between the runs "
           f"{number(board.rbo_mean)} · {plain(settings.stamp())}")
st.dataframe(readable(board.comparison.rename(columns={"n": "queries"}), digits=4))
measure = st.selectbox("Per-query deltas of", list(board.comparison.index))
data = delta_chart_data(board, measure)
bars = alt.Chart(data).mark_bar().encode(
    alt.X("position:O", axis=None, title="queries, sorted by delta"),
    alt.Y("delta:Q", title=f"{measure} B - A"),
    color=alt.condition(alt.datum.delta > 0, alt.value("#2e7d32"), alt.value("#c62828")),
    tooltip=["query_id", "delta"])
st.altair_chart(bars.properties(
    title=f"{measure} per query · {len(data):,} queries · {settings.stamp()}"))

st.header("Experts")
st.caption("Win rate of B over A among decided votes, Wilson 95% interval, sign test; ties "
           "and both-bad votes shown, left out of the test. One vote is one query judged by "
           f"one judge; {MISSING} = no decided vote yet.")
if len(board.experts):
    st.dataframe(readable(board.experts))
else:
    st.info("No votes on these two runs yet: judge some queries on the Side by side page.")
st.subheader("Does the metric agree with the experts?")
st.caption("Over the voted queries (column votes): sign agreement between the metric's delta "
           f"and the vote, Kendall's tau-b; {MISSING} = no decided vote to compare with yet.")
st.dataframe(readable(board.metric_vs_expert))
st.subheader("Agreement between judges")
if board.items_multiply_judged:
    st.write(f"Krippendorff's alpha (ordinal): **{number(board.alpha)}** over "
             f"{int(board.items_multiply_judged)} results graded by two or more judges; "
             f"agreement on preferences: **{number(board.preference_agreement)}**.")
    st.dataframe(readable(board.kappas), hide_index=True)
else:
    st.caption("No result has been graded by two judges yet, so there is no agreement to "
               f"show; agreement on preferences: {number(board.preference_agreement)}.")

st.header("Checks")
st.caption("Unit-test-style expectations (the same TOML as `sxs check`), run on B with the "
           "filled labels.")
rules_text = st.text_area("Rules (TOML)", height=160, placeholder=(
    "[[rule]]\nquery = \"red shoes\"\nexpect = \"all_field\"\nfield = \"category\"\n"
    "equals = \"footwear\"\ntop = 5"))
if rules_text.strip():
    with user_errors():
        results = run_checks(store, setup.dataset, setup.run_b,
                             parse_rules(rules_text, "the rules above"), filled=True,
                             policy=policy)
    failed = sum(not r.passed for r in results)
    (st.error if failed else st.success)(f"{len(results) - failed} passed, {failed} failed")
    st.dataframe([{"result": "pass" if r.passed else "FAIL", "rule": r.rule.label,
                   "detail": r.detail, "offending docs": ", ".join(r.offending[:10])}
                  for r in results], hide_index=True)
