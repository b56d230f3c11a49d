"""The sxs judging app: ``streamlit run judge_app/ui/app.py`` (or ``sxs serve``).

The entry point settles who the judge is, then routes to the pages; admin pages are listed
only for admins.
"""

from __future__ import annotations

import streamlit as st

from judge_app.ui import resources, state
from judge_app.ui.components import plain

PAGES = "app_pages"


def current_judge() -> str | None:
    """The judge's name: from the identity provider when OIDC is configured, else asked once
    and kept in the URL (``?judge=``) so a reload resumes."""
    if resources.oidc_configured():
        if not st.user.is_logged_in:
            st.title("sxs judging")
            st.button("Sign in", on_click=st.login, type="primary")
            st.stop()
        return str(st.user.get("email") or st.user.get("name"))
    name = st.session_state.get(state.JUDGE) or st.query_params.get("judge")
    if name and name.strip():
        st.session_state[state.JUDGE] = name.strip()
        st.query_params["judge"] = name.strip()
        return name.strip()
    return None


def ask_name() -> None:
    st.title("sxs judging")
    st.write("Two rankings for the same query, side by side. Say which serves the query "
             "better, and grade the results nobody has labelled yet.")
    with st.form("who"):
        name = st.text_input("Your name", max_chars=80)
        if st.form_submit_button("Start judging", type="primary") and name.strip():
            st.session_state[state.JUDGE] = name.strip()
            st.query_params["judge"] = name.strip()
            st.rerun()


def main() -> None:
    st.set_page_config(page_title="sxs judging", page_icon=":material/compare_arrows:",
                       layout="wide")
    judge = current_judge()
    if judge is None:
        ask_name()
        return
    pages = {
        "Judge": [
            st.Page(f"{PAGES}/judge.py", title="Side by side", icon=":material/compare:",
                    default=True),
            st.Page(f"{PAGES}/backfill.py", title="Backfill labels", icon=":material/edit:"),
            st.Page(f"{PAGES}/dashboard.py", title="Dashboard", icon=":material/monitoring:"),
        ],
    }
    if judge in resources.admins():
        pages["Admin"] = [
            st.Page(f"{PAGES}/import_data.py", title="Import", icon=":material/upload:"),
            st.Page(f"{PAGES}/export_data.py", title="Export", icon=":material/download:"),
            st.Page(f"{PAGES}/settings.py", title="Settings", icon=":material/settings:"),
            st.Page(f"{PAGES}/llm_judge.py", title="LLM judge", icon=":material/smart_toy:"),
        ]
    with st.sidebar:
        st.caption(f"Judging as {plain(judge)}")
    st.navigation(pages).run()


main()
