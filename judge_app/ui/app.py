"""The sxs judging app: ``streamlit run judge_app/ui/app.py`` (or ``sxs serve``).

The entry point settles who the judge is, then routes to the pages; admin pages are listed
only for admins.  Who may come in (see :mod:`judge_app.store.judges`):

* an invited judge, through the link ``sxs invite`` printed: its ``?token=`` is exchanged once
  for a session token, the token leaves the URL, and the session token is kept in a cookie
  (``SameSite=Strict``) and in the session.  A reload or a second tab of that browser stays
  signed in; a URL copied from the address bar carries no token, so sharing it by mistake
  hands out nothing — least of all admin.  Revoking the judge ends the session at once.  A
  link signs in one browser, once: another browser opening it is told in one line that it
  was used (the browser that used it, opening it again, just stays signed in); a session
  unused for longer than the idle expiry an admin set is told to sign in again.
* an OIDC user (``st.login``), when ``[auth]`` is configured; admins are listed by e-mail.
* with ``sxs serve --open`` only: anyone typing a name not held by a verified judge; they are
  stored as unverified judges (marked so in every output), never admins, and the name is kept
  in the URL (``?judge=``) so a reload resumes.

The judge name pages use (``state.JUDGE``) is written here on every run from the verified
identity; whatever a session set there before is overwritten.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from judge_app.addresses import redact
from judge_app.errors import SxsError
from judge_app.services import judges
from judge_app.store.judges import Judge, LinkUsed, SessionExpired
from judge_app.ui import resources, state
from judge_app.ui.components import SESSION_COOKIE, plain, remember_session

PAGES = "app_pages"
# the page icon, shipped with the app: a material icon would be fetched from a font host
ICON = str(Path(__file__).with_name("icon.png"))
def _from_link() -> None:
    """Exchange a ``?token=`` sign-in link for a session; the token leaves the URL."""
    token = st.query_params.get("token")
    if not token:
        return
    del st.query_params["token"]
    try:
        _judge, session = judges.sign_in(resources.store(), token)
    except LinkUsed as used:
        held = _from_session(quiet=True)
        if held is None or held.name != used.name:  # not the browser that used it
            st.error(plain(redact(str(used))))
        return
    except SxsError as error:
        st.error(plain(redact(str(error))))
        return
    st.session_state[state.SESSION] = session
    remember_session(session)


def _from_session(quiet: bool = False) -> Judge | None:
    """The judge of this browser's session (kept in the session, or the cookie); an expired
    one is told so, unless ``quiet``."""
    store = resources.store()
    for session in (st.session_state.get(state.SESSION), st.context.cookies.get(SESSION_COOKIE)):
        if isinstance(session, str) and session:
            try:
                judge = judges.session_judge(store, session)
            except SessionExpired as expired:
                if not quiet:
                    st.warning(plain(str(expired)))
                continue
            if judge is not None:
                st.session_state[state.SESSION] = session
                return judge
    st.session_state.pop(state.SESSION, None)
    return None


def _typed() -> Judge | None:
    """Open mode only: the name typed (kept in ``?judge=``), as an unverified judge."""
    name = st.session_state.get(state.TYPED_NAME) or st.query_params.get("judge")
    if not name or not name.strip():
        return None
    try:
        judge = judges.typed_judge(resources.store(), name)
    except SxsError as error:
        st.session_state.pop(state.TYPED_NAME, None)
        st.query_params.pop("judge", None)
        st.error(plain(redact(str(error))))
        return None
    st.session_state[state.TYPED_NAME] = judge.name
    st.query_params["judge"] = judge.name
    return judge


def current_judge() -> Judge | None:
    """The verified identity of this session (see the module doc), or None."""
    if resources.oidc_configured():
        if not st.user.is_logged_in:
            st.title("sxs judging")
            st.button("Sign in", on_click=st.login, type="primary")
            st.stop()
        email = str(st.user.get("email") or st.user.get("name"))
        return judges.identity_provider_judge(resources.store(), email,
                                              admin=email in resources.admins())
    _from_link()
    judge = _from_session()
    if judge is None and resources.open_mode():
        judge = _typed()
    return judge


def ask_name() -> None:
    st.title("sxs judging")
    st.write("Two rankings for the same query, side by side. Say which serves the query "
             "better, and grade the results nobody has labelled yet.")
    if not resources.open_mode():
        st.info("Sign in with the link an admin sent you (`sxs invite NAME`).")
        return
    with st.form("who"):
        name = st.text_input("Your name", max_chars=80)
        if st.form_submit_button("Start judging", type="primary") and name.strip():
            st.session_state[state.TYPED_NAME] = name.strip()
            st.rerun()


def main() -> None:
    st.set_page_config(page_title="sxs judging", page_icon=ICON,
                       layout="wide")
    judge = current_judge()
    if judge is None:
        st.session_state.pop(state.JUDGE, None)
        st.session_state.pop(state.IDENTITY, None)
        ask_name()
        return
    st.session_state[state.JUDGE] = judge.name
    st.session_state[state.IDENTITY] = judge
    pages = {
        "Judge": [
            st.Page(f"{PAGES}/judge.py", title="Side by side", icon=":material/compare:",
                    default=True),
            st.Page(f"{PAGES}/backfill.py", title="Backfill labels", icon=":material/edit:"),
            st.Page(f"{PAGES}/my_work.py", title="My work", icon=":material/history:"),
            st.Page(f"{PAGES}/dashboard.py", title="Dashboard", icon=":material/monitoring:"),
        ],
    }
    if judge.admin:
        pages["Admin"] = [
            st.Page(f"{PAGES}/import_data.py", title="Import", icon=":material/upload:"),
            st.Page(f"{PAGES}/export_data.py", title="Export", icon=":material/download:"),
            st.Page(f"{PAGES}/settings.py", title="Settings", icon=":material/settings:"),
            st.Page(f"{PAGES}/judges.py", title="Judges", icon=":material/group:"),
            st.Page(f"{PAGES}/llm_judge.py", title="LLM judge", icon=":material/smart_toy:"),
        ]
    with st.sidebar:
        st.caption(f"Judging as {plain(judge.shown)}{' · admin' if judge.admin else ''}")
    st.navigation(pages).run()


main()
