"""Backfill page: grade the unlabelled results one at a time, in the order the round serves
(:mod:`judge_app.services.backfill_order`: by value for the decision between the round's two
runs, or by weight), recorded with every grade."""

from __future__ import annotations

import uuid

import streamlit as st

from judge_app.services import backfill_order, disputes, gold_queue, judging
from judge_app.store.votes import DEFAULT_GOLD_EVERY
from judge_app.ui import resources, state
from judge_app.ui.basis import basis_control
from judge_app.ui.components import (
    grade_shortcuts,
    plain,
    reports_errors,
    show_callback_error,
    user_errors,
)
from judge_app.ui.decision_panel import backfill_decision
from judge_app.ui.setup import session_setup

store = resources.store()
judge: str = st.session_state[state.JUDGE]
setup = session_setup(store)

st.title("Backfill labels")
show_callback_error()
if setup is None:
    st.info("Choose a dataset and runs in the sidebar.")
    st.stop()

if setup.blind:  # the runs' names, A first, would say which run is which
    runs = [setup.run_a, setup.run_b]
else:
    runs = st.multiselect("Runs whose top k to fill", store.run_names(setup.dataset),
                          default=[setup.run_a, setup.run_b])
if not runs:
    st.stop()
basis = basis_control()
with user_errors():
    coverage = store.judged_at_k(setup.dataset, runs, setup.k, basis)
start_key = (setup.dataset.name, tuple(runs), setup.k, basis)
starts = st.session_state.setdefault(state.BACKFILL_START, {})
before = starts.setdefault(start_key, coverage)

found_round = store.current_round(setup.dataset)
served = backfill_order.backfill_served(store, setup.dataset, runs, setup.k, judge,
                                        setup.run_a, setup.run_b,
                                        backfill_order.policy_in_force(found_round), basis)
pairs = gold_queue.mix_backfill(
    disputes.rejudge_first(
        served.pairs,
        disputes.rejudge_queue(store, setup.dataset, judge,
                               found_round.max_overlap if found_round else None)),
    store, setup.dataset, judge, found_round.gold_every if found_round else DEFAULT_GOLD_EVERY)
metrics = st.columns(3)
metrics[0].metric(f"judged@{int(setup.k)} when you started", f"{before:.1%}")
metrics[1].metric(f"judged@{int(setup.k)} now", f"{coverage:.1%}",
                  f"{coverage - before:+.1%}" if coverage != before else None)
st.caption(f"labels: {plain(basis)} · order: {plain(served.policy.value)} "
           f"({plain(served.policy.description)})")
if served.note:
    st.caption(plain(served.note))
metrics[2].metric("left for you to grade", f"{len(pairs):,}")
if backfill_decision(store, setup, runs):  # the round stops serving a decided pair
    st.stop()

if pairs.empty:
    st.success("Every result in these top-k lists has a label. Thank you!")
    st.stop()

pair = pairs.iloc[0]
view_id = st.session_state.setdefault(state.BACKFILL_VIEW, uuid.uuid4().hex)
text = store.query_text(setup.dataset, pair["query_id"])
docs = store.documents(setup.dataset, [pair["doc_id"]])
with st.container(border=True):
    st.caption(f"Query {plain(pair['query_id'])} · weight {pair['weight']:.2f} · "
               f"{int(pair['experts'])} other judge(s)")
    st.subheader(plain(text if text is not None else pair["query_id"]))
    if len(docs):
        doc = docs.iloc[0]
        st.markdown(f"**{plain(doc['title'] or doc['doc_id'])}**")
        for name in setup.fields:
            value = doc["fields"].get(name)
            if value:
                st.caption(f"{plain(name)}: {plain(str(value)[:600])}")
    else:
        st.markdown(f"**{plain(pair['doc_id'])}** (not in the document catalog)")


@reports_errors
def grade_pair(value: int, policy: str) -> None:
    judging.record_grade(store, setup.dataset, st.session_state[state.BACKFILL_VIEW],
                         pair["query_id"], pair["doc_id"], value, judge, policy=policy)
    st.session_state[state.BACKFILL_VIEW] = uuid.uuid4().hex


scale = setup.dataset.scale
row = st.container(horizontal=True)
with row:
    for value, name, key in grade_shortcuts(scale):
        st.button(name, key=f"bf:{value}", on_click=grade_pair,
                  args=(value, served.policy.value), shortcut=key)
