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
from judge_app.store import Dataset, Store
from judge_app.store.votes import Round
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
        run_a = st.selectbox("Baseline (A)", runs, key=f"round:{name}:a",
                             index=runs.index(current.run_a)
                             if current and current.run_a in runs else 0)
        run_b = st.selectbox("Candidate (B)", runs, key=f"round:{name}:b",
                             index=runs.index(current.run_b)
                             if current and current.run_b in runs else 1)
        k = st.number_input("Depth k", 1, 100, current.k if current else 10,
                            key=f"round:{name}:k")
        overlap = st.number_input("Judges per query", 1, 20, current.overlap if current else 1,
                                  key=f"round:{name}:overlap")
        blind = st.toggle("Blind (judges see neither run names nor other judges' grades)",
                          value=current.blind if current else True, key=f"round:{name}:blind")
        lease = st.number_input("Lease (idle minutes before a query goes to another judge)",
                                1, 120, (current.lease_seconds // 60) if current else 5,
                                key=f"round:{name}:lease")
        if st.form_submit_button("Start this round", key=submit_key):
            with user_errors():
                saved = judging.start_round(
                    store, dataset, run_a, run_b, int(k), int(overlap), bool(blind),
                    int(lease), by=by,
                    expected_round_id=current.round_id if current else None)
            st.session_state[_DRAWN + name] = saved  # the next save compares with this one
            st.success("Round saved: judges now vote with these settings.")
