"""Issue 25, sign-in lifetime, in the store on both backends: a sign-in link is exchanged for a
session once (a second browser is refused, in one line, naming what to do); re-inviting gives
the next device a link and keeps the first device's session; a session idle past the expiry
an admin set ends; a session in use does not."""

from __future__ import annotations

import threading

import pytest

from judge_app.errors import SxsError
from judge_app.store import Store
from judge_app.store.judges import (
    DEFAULT_SESSION_IDLE_SECONDS,
    LinkUsed,
    SessionExpired,
    SignInRefused,
    idle_text,
    token_hash,
)


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def idle_for(store: Store, session: str, seconds: int) -> None:
    """Move the session's last use ``seconds`` into the past (as if the judge walked away)."""
    with store.backend.transaction() as cur:
        cur.execute("UPDATE sign_ins SET last_seen_at = current_timestamp - to_seconds(?) "
                    "WHERE session_hash = ?", [seconds, token_hash(session)])


def last_seen_age(store: Store, session: str) -> float:
    (age,) = store.backend.cursor().execute(
        "SELECT epoch(current_timestamp) - epoch(last_seen_at) FROM sign_ins "
        "WHERE session_hash = ?" if store.backend.dialect.name == "duckdb" else
        "SELECT extract(epoch FROM current_timestamp - last_seen_at) FROM sign_ins "
        "WHERE session_hash = ?", [token_hash(session)]).fetchone()
    return float(age)


def test_a_link_signs_in_one_browser_only(store: Store) -> None:
    token = store.invite_judge("alice")
    judge, session = store.sign_in(token)
    assert judge.name == "alice"
    with pytest.raises(LinkUsed) as used:
        store.sign_in(token)  # the same link in a second browser
    message = str(used.value)
    assert "already used" in message and "ask an admin" in message and "\n" not in message
    assert used.value.name == "alice"
    assert store.session_judge(session) == judge  # the first browser stays signed in
    with pytest.raises(SignInRefused, match="not valid"):
        store.sign_in(token + "x")


def test_two_browsers_exchanging_one_link_at_once_get_one_session(store: Store) -> None:
    token = store.invite_judge("alice")
    got: list[object] = []

    def exchange() -> None:
        try:
            got.append(store.sign_in(token))
        except SignInRefused as refused:
            got.append(refused)

    threads = [threading.Thread(target=exchange) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    sessions = [g for g in got if isinstance(g, tuple)]
    assert len(sessions) == 1
    assert all(isinstance(g, SxsError) for g in got if not isinstance(g, tuple))


def test_reinviting_gives_the_next_device_a_link_and_keeps_the_first_session(
        store: Store) -> None:
    first = store.invite_judge("alice")
    _judge, laptop = store.sign_in(first)
    unused = store.invite_judge("alice")
    second = store.invite_judge("alice")  # replaces the unused link
    with pytest.raises(SignInRefused, match="not valid"):
        store.sign_in(unused)
    _judge, phone = store.sign_in(second)
    assert store.session_judge(laptop).name == store.session_judge(phone).name == "alice"
    store.revoke_judge("alice")  # revoking still ends every session and the link
    assert store.session_judge(laptop) is None and store.session_judge(phone) is None


def test_an_idle_session_ends_and_one_in_use_does_not(store: Store) -> None:
    assert store.session_idle_seconds() == DEFAULT_SESSION_IDLE_SECONDS == 3 * 86400
    _judge, session = store.sign_in(store.invite_judge("alice"))
    idle_for(store, session, DEFAULT_SESSION_IDLE_SECONDS - 3600)
    assert store.session_judge(session).name == "alice"  # used in time: last seen is now
    assert last_seen_age(store, session) < 3600
    idle_for(store, session, DEFAULT_SESSION_IDLE_SECONDS + 60)
    with pytest.raises(SessionExpired, match="3 days") as expired:
        store.session_judge(session)
    assert "ask an admin" in str(expired.value)
    assert store.session_judge(session) is None  # deleted: unknown from now on


def test_an_admin_sets_the_idle_expiry(store: Store) -> None:
    _judge, session = store.sign_in(store.invite_judge("alice"))
    idle_for(store, session, 3 * 3600)
    store.set_session_idle(2 * 3600, by="root")
    assert store.session_idle_seconds() == 7200
    with pytest.raises(SessionExpired, match="2 hours"):
        store.session_judge(session)
    store.set_session_idle(86400)  # set again: the newest setting counts
    assert store.session_idle_seconds() == 86400
    for wrong in (59, 0, -5, 1.5, True, 2**31):
        with pytest.raises(SxsError, match="idle expiry"):
            store.set_session_idle(wrong)
    assert store.session_idle_seconds() == 86400


def test_idle_text() -> None:
    assert [idle_text(s) for s in (259200, 86400, 7200, 5400, 60, 45)] == [
        "3 days", "1 day", "2 hours", "90 minutes", "1 minute", "45 seconds"]
