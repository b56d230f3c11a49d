"""The Judges page's sign-in lifetime setting: how long a session may go unused before its
browser must sign in again (every judge's; the store keeps it, :mod:`judge_app.store.judges`)."""

from __future__ import annotations

import streamlit as st

from judge_app.services import judges
from judge_app.store import Store
from judge_app.ui import state
from judge_app.ui.components import plain, user_errors

UNITS = {"days": "d", "hours": "h", "minutes": "m"}


def session_idle_form(store: Store, admin: str) -> None:
    """A form showing the idle expiry now and setting a new one (as ``admin``)."""
    with st.form("session_idle", border=True):
        st.markdown(f"**Sign-in lifetime** — a session unused for "
                    f"{plain(judges.session_idle(store))} ends (the judge asks for a new "
                    "link); each link signs in one browser, once")
        row = st.container(horizontal=True, vertical_alignment="bottom")
        with row:
            amount = st.number_input("End sessions unused for", min_value=1, max_value=9999,
                                     value=3, step=1, width=200)
            unit = st.selectbox("Unit", list(UNITS), width=140)
            saved = st.form_submit_button("Save")
    if saved:
        with user_errors():
            seconds = judges.parse_idle(f"{int(amount)}{UNITS[unit]}")
            st.session_state[state.NOTICE] = judges.set_session_idle(store, seconds, by=admin)
        st.rerun()  # the form shows the new expiry; the notice says it was saved
