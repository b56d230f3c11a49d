"""The round form's "Backfill order": which order the round's backfill page serves (query, doc)
pairs in (:data:`~judge_app.services.queue.BACKFILL_POLICIES`), drawn from the round the form
shows (a round saved without one: ``decision``; rounds from before the setting: ``weight``)."""

from __future__ import annotations

import streamlit as st

from judge_app.services.backfill_order import policy_in_force
from judge_app.services.queue import BACKFILL_POLICIES
from judge_app.store.votes import Round


def backfill_order_select(current: Round | None, name: str) -> str:
    """The select box inside the round form of dataset ``name`` (one column of its own row);
    returns the order chosen, by name."""
    orders = [o.value for o in BACKFILL_POLICIES]
    drawn = policy_in_force(current).value
    column, _, _ = st.columns(3)
    return column.selectbox(
        "Backfill order", orders, index=orders.index(drawn), key=f"round:{name}:backfill_policy",
        help="Which (query, result) pairs the Backfill page serves first (recorded with every "
             "grade; `sxs backfill next` prints the decision order):\n\n"
             + "\n".join(f"- `{o.value}`: {o.description}" for o in BACKFILL_POLICIES))
