"""Which witnesses' labels fill the gaps: experts alone, unless an admin opts in to the LLM
judge's labels (the ``experts+llm`` basis) — then every figure says so (its stamp names the
basis).  One control, shared by the dashboard and the backfill page, kept for the session."""

from __future__ import annotations

import streamlit as st

from judge_app.policies import Witness, label_basis
from judge_app.ui import resources, state


def basis_control() -> str:
    """A toggle an admin can turn on (others see it, off and disabled); returns the basis."""
    admin = st.session_state.get(state.JUDGE) in resources.admins()
    counted = st.toggle("Count the LLM judge's labels", key=state.COUNT_LLM, disabled=not admin,
                        help="Off: the experts' labels alone fill the gaps. On (admins): the "
                             "labels of llm:<model> judges count too, and every figure says "
                             "'labels: experts+llm'.")
    return label_basis([Witness.LLM] if counted and admin else [])
