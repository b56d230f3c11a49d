"""Dashboard: the metrics with the gaps filled, A vs B with honest uncertainty, the experts,
and whether the metric agrees with them.  Every figure states its settings."""

from __future__ import annotations

import altair as alt
import streamlit as st

from judge_app.policies import LabelPolicy, choices
from judge_app.services.clicks import SessionsReplayed, has_clicks, sessions_replayed
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
from judge_app.ui import judges_panel, resources, state
from judge_app.ui.basis import basis_control
from judge_app.ui.checks_panel import checks_panel
from judge_app.ui.components import plain, user_errors
from judge_app.ui.decision_panel import decision_panel
from judge_app.ui.query_charts import delta_chart, low_ceiling_table
from judge_app.ui.setup import session_setup
from metrics.conventions import DISCOUNTS, GAINS

store = resources.store()
setup = session_setup(store)
st.title("Dashboard")
if setup is None:
    st.info("Choose a dataset and two runs in the sidebar.")
    st.stop()

decision_panel(store, setup)  # issue 22: the dashboard opens with the decision

options = st.container(horizontal=True)
with options:
    gain = st.segmented_control("Gain", GAINS, default=GAINS[0],
                                required=True)
    discount = st.segmented_control("Discount", DISCOUNTS, default=DISCOUNTS[0],
                                    required=True)
    policy = st.selectbox("Label policy", choices(LabelPolicy), width=200)
    basis = basis_control()
settings = Settings(setup.k, gain, discount, policy, basis=basis)


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
st.caption("Mean and [95% BCa bootstrap interval] over the queries · "
           f"{plain(board.labels_line())} · {plain(settings.stamp())}")
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
    low_ceiling_table(board.low_ceiling, setup.k)

st.header("A vs B")
compared = int(board.comparison["n"].max()) if len(board.comparison) else 0
st.caption(f"Deltas are B - A over {compared:,} queries; p-values: randomization, t-test, "
           f"Wilcoxon; CI: BCa bootstrap · mean RBO@{int(setup.k)} between the runs "
           f"{number(board.rbo_mean)} · {plain(settings.stamp())}")
st.dataframe(readable(board.comparison.rename(columns={"n": "queries"}), digits=4))
measure = st.selectbox("Per-query deltas of", list(board.comparison.index))
st.altair_chart(delta_chart(delta_chart_data(board, measure), measure, settings.stamp()))

st.header("Experts")
st.caption("Win rate of B over A among decided votes, Wilson 95% interval, sign test; ties "
           "and both-bad votes shown, left out of the test. One vote is one query judged by "
           f"one judge; {MISSING} = no decided vote yet.")
# Per-judge figures and other judges' names are for admins; a judge sees the total and their
# own row (issue 11).
identity = st.session_state.get(state.IDENTITY)
is_admin = bool(identity is not None and identity.admin)
shown_experts = board.experts if is_admin or board.experts.empty else board.experts[
    board.experts.index.isin(["all", identity.shown if identity else ""])]
if len(shown_experts):
    st.dataframe(readable(shown_experts))
else:
    st.info("No votes on these two runs yet: judge some queries on the Side by side page.")
if board.stale_votes:
    st.caption(f"{int(board.stale_votes)} stale votes (cast on a ranking since replaced) "
               "are kept and not counted.")
st.subheader("Does the metric agree with the experts?")
st.caption("Over the voted queries (column votes): sign agreement between the metric's delta "
           f"and the vote, Kendall's tau-b; {MISSING} = no decided vote to compare with yet.")
st.dataframe(readable(board.metric_vs_expert))
st.subheader("Agreement between judges")
if board.items_multiply_judged:
    st.write(f"Krippendorff's alpha (ordinal): **{number(board.alpha)}** over "
             f"{int(board.items_multiply_judged)} results graded by two or more judges; "
             f"agreement on preferences: **{number(board.preference_agreement)}**.")
    if is_admin:
        st.dataframe(readable(board.kappas), hide_index=True)
else:
    st.caption("No result has been graded by two judges yet, so there is no agreement to "
               f"show; agreement on preferences: {number(board.preference_agreement)}.")

if is_admin:  # the per-judge figures and the forms that act on them (issue 23)
    judges_panel.show(store, setup.dataset, identity.name, policy)

checks_panel(store, setup.dataset, setup.run_b, policy)


# ---------------------------------------------------------------- Sessions replayed (issue 13)
# The click log as a second witness, shown only when the dataset has click data.


@st.cache_data(ttl=3600, max_entries=16, show_spinner="Replaying the logged sessions…")
def cached_replay(db: str, dataset: str, run_a: str, run_b: str, settings: Settings,
                  version: tuple) -> SessionsReplayed | None:
    return sessions_replayed(store, store.dataset(dataset), run_a, run_b, settings.k,
                             settings.policy, settings.basis, permutations=2000)


if has_clicks(store, setup.dataset):
    st.header("Sessions replayed")
    with user_errors():
        replayed = cached_replay(
            str(store.path), setup.dataset.name, setup.run_a, setup.run_b, settings,
            (store.data_version(setup.dataset),
             tuple(store.click_imports(setup.dataset)["import_id"])))
    if replayed is not None:
        summary, basis = replayed.replay.summary, replayed.replay.basis
        st.caption(
            "Each logged session replayed under both runs: the weighted mean reciprocal rank "
            "of what the user engaged with, B - A; every query weighs the same; 95% interval "
            f"from a bootstrap over queries · {plain(replayed.stamp)}")
        st.write(
            f"ΔMRR **{summary.delta:+.3f}** [{summary.ci_low:+.3f}, {summary.ci_high:+.3f}] "
            f"(A {summary.mrr_a:.3f}, B {summary.mrr_b:.3f}; p randomization "
            f"{summary.p_randomization:.4f}) · sessions improved {summary.improved:.0%}, "
            f"worsened {summary.worsened:.0%}, unchanged {summary.unchanged:.0%} · basis: "
            f"{basis.sessions:,} sessions, {basis.queries:,} queries, {basis.engagements:,} "
            f"engagements, censored A {basis.censored_a:,} / B {basis.censored_b:,}")
        replay_bars = alt.Chart(replayed.chart).mark_bar().encode(
            alt.X("position:O", axis=None, title="queries, sorted by ΔMRR"),
            alt.Y("delta:Q", title="ΔMRR B - A"),
            color=alt.condition(alt.datum.delta > 0, alt.value("#2e7d32"),
                                alt.value("#c62828")),
            tooltip=["query_id", "text", "delta", "sessions"])
        st.altair_chart(replay_bars.properties(title="Replayed ΔMRR per query"))
        st.subheader("Three witnesses per query")
        behind = ", ".join(f"{name} {n}" for name, n in replayed.counts.items())
        st.caption("Label metric Δ, the experts' win rate for B (decided votes) and the "
                   "replay's ΔMRR side by side; signs agree when every witness that speaks "
                   f"moves the same way. Queries behind each figure: {plain(behind)}")
        st.dataframe(replayed.witnesses, hide_index=True)

# -- the LLM judge against the experts (issue 14): a separate block, last ----------------------
if board.llm is not None and not board.llm.empty:
    st.header("The LLM judge against the experts")
    st.caption("Each llm:<model> judge against each expert and the expert consensus (lower "
               "median grade; majority vote). Grades: quadratic weighted kappa over the items "
               "both graded. Votes on A vs B: agreement and Cohen's kappa over B / A / "
               f"neither · labels in the figures above: {plain(settings.basis)}")
    st.subheader("Grades")
    st.dataframe(board.llm.grades, hide_index=True)
    st.subheader("Votes")
    st.dataframe(board.llm.votes, hide_index=True)
    st.subheader("Position bias")
    st.caption("Queries the LLM answered in both side orders, and how many of those answers "
               "disagreed once put on the same sides (stored as about the same).")
    st.dataframe(board.llm.bias, hide_index=True)
    st.subheader("Reasons: the LLM beside the experts")
    st.caption("Every vote on the queries an LLM voted on, with its reason.")
    st.dataframe(board.llm.reasons, hide_index=True)
