"""The Settings page's judging-round form: it saves exactly what the admin saw and chose.

The form is drawn from the dataset's current round, which the session keeps (with its
``round_id``) until the form is submitted: a round another admin saved meanwhile neither
changes the values this admin sees nor those submitted (the widgets keep fixed keys and the
defaults they were drawn with).  The save is a compare-and-set on the round the form was drawn
with (:func:`judging.start_round` with ``expected_round_id``): a save whose form was drawn
before the current round was set is refused — "the round changed since you opened this page:
reload" — and writes nothing.  Any other run of the page (not this form's submission) draws
the form anew from the current round.
"""

from __future__ import annotations

import streamlit as st

from judge_app.services import judging
from judge_app.services.queue import QueuePolicy
from judge_app.store import Dataset, Store
from judge_app.store.votes import DEFAULT_GOLD_EVERY, Round
from judge_app.ui.backfill_order_select import backfill_order_select
from judge_app.ui.components import plain, user_errors

_DRAWN = "sxs.round_form.drawn:"  # + dataset name: the Round (or None) the form was drawn with


def _drawn_round(store: Store, dataset: Dataset, submitted: bool) -> Round | None:
    """The round this form shows: the one it was drawn with while it is being submitted,
    else the dataset's current round (remembered for the submission)."""
    key = _DRAWN + dataset.name
    if not submitted or key not in st.session_state:
        st.session_state[key] = store.current_round(dataset)
    return st.session_state[key]


def round_form(store: Store, dataset: Dataset, runs: list[str], by: str) -> None:
    """The form that starts a judging round on ``dataset`` (``runs``: at least two)."""
    name = dataset.name
    submit_key = f"round:{name}:start"
    current = _drawn_round(store, dataset, bool(st.session_state.get(submit_key)))
    with st.form(f"round:{name}"):
        st.subheader(f"Judging round on {plain(name)}")
        # in rows, so the whole round fits a laptop's screen (1366x768) above the fold
        first, second, third = st.columns(3)
        run_a = first.selectbox("Baseline (A)", runs, key=f"round:{name}:a",
                                index=runs.index(current.run_a)
                                if current and current.run_a in runs else 0)
        run_b = second.selectbox("Candidate (B)", runs, key=f"round:{name}:b",
                                 index=runs.index(current.run_b)
                                 if current and current.run_b in runs else 1)
        k = third.number_input("Depth k", 1, 100, current.k if current else 10,
                               key=f"round:{name}:k")
        first, second, third = st.columns(3, vertical_alignment="bottom")
        overlap = first.number_input("Judges per query", 1, 20,
                                     current.overlap if current else 1,
                                     key=f"round:{name}:overlap")
        lease = second.number_input("Lease (idle minutes)", 1, 120,
                                    (current.lease_seconds // 60) if current else 5,
                                    key=f"round:{name}:lease",
                                    help="How long a query stays with the judge who opened "
                                         "it, idle, before it goes to another judge.")
        blind = third.toggle("Blind", value=current.blind if current else True,
                             key=f"round:{name}:blind",
                             help="Judges see neither the run names nor other judges' grades.")
        stop = third.toggle("Stop when decided", value=current.stop_when_decided if current
                            else False, key=f"round:{name}:stop",
                            help="Stop serving this pair once the labels decide it (as "
                                 "`sxs decide` does) and tell the judges it is done")
        first, second, third = st.columns(3)
        gold_every = first.number_input("Gold: one in every N items", 0, 100,
                                        current.gold_every if current else DEFAULT_GOLD_EVERY,
                                        key=f"round:{name}:gold",
                                        help="One known-answer item, unmarked, in every N "
                                             "items a judge is served (0: none).")
        max_overlap = second.number_input("Judges per disputed item, at most", 1, 20,
                                          (current.max_overlap or current.overlap) if current
                                          else 1, key=f"round:{name}:max_overlap",
                                          help="Re-judging: items whose judges disagree go to "
                                               "more judges, up to this many (equal to judges "
                                               "per query: none).")
        policies = [p.value for p in QueuePolicy]
        drawn_policy = QueuePolicy.of_round(current.queue_policy if current else None)
        queue_policy = third.selectbox(
            "Queue order", policies, index=policies.index(drawn_policy.value),
            key=f"round:{name}:queue_policy",
            help="Which queries the vote queue serves first (recorded with every vote):\n\n"
                 + "\n".join(f"- `{p.value}`: {p.description}" for p in QueuePolicy))
        backfill_policy = backfill_order_select(current, name)
        if st.form_submit_button("Start this round", type="primary", key=submit_key):
            with user_errors():
                saved = judging.start_round(
                    store, dataset, run_a, run_b, int(k), int(overlap), bool(blind),
                    int(lease), by=by, stop_when_decided=bool(stop),
                    gold_every=int(gold_every), max_overlap=max(int(max_overlap), int(overlap)),
                    expected_round_id=current.round_id if current else None,
                    queue_policy=QueuePolicy(queue_policy), backfill_policy=backfill_policy)
            st.session_state[_DRAWN + name] = saved  # the next save compares with this one
            st.success("Round saved: judges now vote with these settings.")
