"""Dashboard: the metrics with the gaps filled, A vs B with honest uncertainty, the experts,
and whether the metric agrees with them.  Every figure states its settings."""

from __future__ import annotations

import altair as alt
import streamlit as st

from judge_app.io.rules import parse_rules
from judge_app.policies import LabelPolicy, choices
from judge_app.services.checks import run_checks
from judge_app.services.dashboard import Dashboard, Settings, dashboard, delta_chart_data
from judge_app.ui import resources, state
from judge_app.ui.components import plain, user_errors
from judge_app.ui.setup import session_setup
from metrics.conventions import DISCOUNTS, GAINS

store = resources.store()
setup = session_setup(store)
st.title("Dashboard")
if setup is None:
    st.info("Choose a dataset and two runs in the sidebar.")
    st.stop()

options = st.container(horizontal=True)
with options:
    gain = st.segmented_control("Gain", GAINS, default=GAINS[0],
                                required=True)
    discount = st.segmented_control("Discount", DISCOUNTS, default=DISCOUNTS[0],
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

st.caption(f"A = {plain(board.run_a)} (baseline), B = {plain(board.run_b)} (candidate) · "
           f"{plain(settings.stamp())}")

st.header("Per run")
st.caption("Mean and 95% BCa bootstrap interval over queries, filled labels · "
           f"{plain(settings.stamp())}")
st.dataframe(board.per_run, hide_index=True)
st.subheader("What filling the gaps changed")
st.dataframe(board.filling, hide_index=True)

st.header("Dataset health")
st.metric(f"Mean best NDCG-m@{int(setup.k)}", f"{board.health.mean():.3f}")
chart = alt.Chart(board.health.rename("best").reset_index()).mark_bar().encode(
    alt.X("best:Q", bin=alt.Bin(extent=[0, 1], step=0.1), title=f"best NDCG-m@{int(setup.k)}"),
    alt.Y("count():Q", title="queries"))
st.altair_chart(chart.properties(title=f"Query ceilings · {settings.stamp()}"))
st.caption(f"{len(board.low_ceiling)} queries cannot reach {settings.low_ceiling:g}: the "
           "corpus has nothing good for them (with the labels we have).")
st.dataframe(board.low_ceiling, hide_index=True)

st.header("A vs B")
st.caption("Deltas are B - A; p-values: randomization, t-test, Wilcoxon; CI: BCa bootstrap · "
           f"mean RBO@{int(setup.k)} between the runs {board.rbo_mean:.3f} · "
           f"{plain(settings.stamp())}")
st.dataframe(board.comparison)
measure = st.selectbox("Per-query deltas of", list(board.comparison.index))
data = delta_chart_data(board, measure)
bars = alt.Chart(data).mark_bar().encode(
    alt.X("position:O", axis=None, title="queries, sorted by delta"),
    alt.Y("delta:Q", title=f"{measure} B - A"),
    color=alt.condition(alt.datum.delta > 0, alt.value("#2e7d32"), alt.value("#c62828")),
    tooltip=["query_id", "delta"])
st.altair_chart(bars.properties(title=f"{measure} per query · {settings.stamp()}"))

st.header("Experts")
st.caption("Win rate of B over A among decided votes, Wilson 95% interval, sign test; ties "
           "and both-bad votes shown, left out of the test.")
# Per-judge figures and other judges' names are for admins; a judge sees the total and their
# own row (issue 11).
identity = st.session_state.get(state.IDENTITY)
is_admin = bool(identity is not None and identity.admin)
shown_experts = board.experts if is_admin or board.experts.empty else board.experts[
    board.experts.index.isin(["all", identity.shown if identity else ""])]
st.dataframe(shown_experts)
if board.stale_votes:
    st.caption(f"{int(board.stale_votes)} stale votes (cast on a ranking since replaced) "
               "are kept and not counted.")
st.subheader("Does the metric agree with the experts?")
st.dataframe(board.metric_vs_expert)
st.subheader("Agreement between judges")
st.write(f"Krippendorff's alpha (ordinal): **{board.alpha:.3f}** over "
         f"{int(board.items_multiply_judged)} results graded by two or more judges; agreement on "
         f"preferences: **{board.preference_agreement:.3f}**.")
if is_admin:
    st.dataframe(board.kappas, hide_index=True)

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
