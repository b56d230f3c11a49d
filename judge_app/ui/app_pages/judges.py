"""Admin: invite judges (the sign-in link is shown once), list them, revoke one."""

from __future__ import annotations

from urllib.parse import urlsplit

import streamlit as st

from judge_app.io.display_text import neutralized
from judge_app.services import judges
from judge_app.ui import resources, state
from judge_app.ui.components import plain, user_errors
from judge_app.ui.session_idle import session_idle_form

store = resources.store()
identity = st.session_state.get(state.IDENTITY)
st.title("Judges")
if identity is None or not identity.admin:  # the page is only listed for admins (app.py)
    st.error("This page is for admins.")
    st.stop()


def app_address() -> str:
    """Where this app is served (scheme and host of the browser's URL), for the links."""
    parts = urlsplit(st.context.url or "")
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme and parts.netloc else (
        "http://localhost:8501")


with st.form("invite", clear_on_submit=True, border=True):
    st.markdown("**Invite a judge**")
    row = st.container(horizontal=True, vertical_alignment="bottom")
    with row:
        name = st.text_input("Name", max_chars=80, width=320)
        admin = st.checkbox("Admin (import, export, settings, judges)")
        invited = st.form_submit_button("Invite", type="primary")
if invited:
    with user_errors():
        invitation = judges.invite(store, name, admin, app_address())
    role = "an admin" if invitation.admin else "a judge"
    st.success(f"{plain(invitation.name)} is {plain(role)}. Send them this sign-in link privately: "
               "it is shown only now and signs in one browser, once (for another device, or if "
               "it was used, invite them again).")
    st.code(invitation.link, language=None, wrap_lines=True)

notice = st.session_state.pop(state.NOTICE, None)
if notice:
    st.success(plain(notice))
listed = judges.judge_list(store)
st.subheader("Who may judge")
st.dataframe(listed.assign(judge=listed["judge"].map(neutralized)), hide_index=True,
             width="stretch",
             column_config={"admin": st.column_config.CheckboxColumn("admin")})

figures_of = [n for n, gone in zip(listed["judge"], listed["revoked"], strict=True)
              if not gone]
if figures_of:  # each judge's figures: the dashboard's Judges section (judges_panel)
    st.caption("Each judge's figures (gold accuracy, agreement, side bias, speed) on the "
               "dashboard of the dataset chosen in the sidebar:")
    with st.container(horizontal=True):
        for name in figures_of:
            st.page_link("app_pages/dashboard.py", label=neutralized(name),
                         icon=":material/monitoring:", query_params={"judge": name})

active = [n for n, gone in zip(listed["judge"], listed["revoked"], strict=True)
          if not gone and n != identity.name]
if active:
    with st.form("revoke", border=True):
        st.markdown("**Revoke a judge** — their link and sessions end at once; their votes "
                    "and grades stay")
        row = st.container(horizontal=True, vertical_alignment="bottom")
        with row:
            who = st.selectbox("Judge", active, width=320, format_func=neutralized)
            revoked = st.form_submit_button("Revoke")
    if revoked:
        with user_errors():
            judges.revoke(store, who, identity.name)
        st.session_state[state.NOTICE] = f"Revoked {who}: their link and sessions ended."
        st.rerun()  # the list above shows the revocation

session_idle_form(store, identity.name)
