"""Managing judges through the service the Judges page and ``sxs invite`` share."""

from __future__ import annotations

import pytest

from judge_app.errors import SxsError
from judge_app.services import judges
from judge_app.store import Store
from judge_app.store.judges import SignInRefused


@pytest.fixture
def store(tmp_path):
    with Store(tmp_path / "judges.duckdb") as opened:
        yield opened


def test_an_invitation_carries_a_working_link_shown_once(store: Store) -> None:
    invitation = judges.invite(store, "  alice ", admin=True, base_url="http://h:8502/")
    assert invitation.name == "alice" and invitation.admin
    assert invitation.link.startswith("http://h:8502/?token=")
    token = invitation.link.split("?token=")[1]
    assert len(token) >= 22  # at least 128 bits, url-safe base64
    judge, _session = store.sign_in(token)
    assert (judge.name, judge.admin, judge.verified) == ("alice", True, True)
    # the store keeps no token: inviting again makes a new link and ends the old one
    again = judges.invite(store, "alice", admin=False, base_url="http://h:8502")
    assert again.link != invitation.link
    with pytest.raises(SignInRefused):
        store.sign_in(token)
    assert not store.sign_in(again.link.split("?token=")[1])[0].admin


def test_the_list_says_how_each_judge_signs_in_and_who_is_revoked(store: Store) -> None:
    judges.invite(store, "bob", admin=False, base_url="http://h")
    judges.invite(store, "root", admin=True, base_url="http://h")
    store.typed_judge("walk-in")
    store.machine_judge("llm:model")
    judges.revoke(store, "bob", by="root")
    listed = judges.judge_list(store)
    assert listed.columns.tolist() == ["judge", "signs in", "admin", "revoked"]
    assert listed["judge"].tolist() == ["bob", "root", "walk-in"]  # no machine witness
    assert listed["signs in"].tolist() == ["invite link", "invite link",
                                           "typed name (unverified)"]
    assert listed["admin"].tolist() == [False, True, False]
    assert listed["revoked"].iloc[0] != "" and listed["revoked"].iloc[1:].tolist() == ["", ""]
    assert not listed.isna().any().any()


def test_revoking_ends_the_sessions_and_nobody_revokes_themselves(store: Store) -> None:
    link = judges.invite(store, "carol", admin=False, base_url="http://h").link
    _judge, session = store.sign_in(link.split("?token=")[1])
    assert store.session_judge(session) is not None
    with pytest.raises(SxsError, match="yourself"):
        judges.revoke(store, "carol", by="carol")
    judges.revoke(store, "carol", by="root")
    assert store.session_judge(session) is None
    with pytest.raises(SxsError, match="no judge"):
        judges.revoke(store, "nobody", by="root")


def test_a_bad_name_is_refused_and_nothing_is_written(store: Store) -> None:
    for bad in ("", "   ", "llm:gpt", "x" * 81):
        with pytest.raises(SxsError):
            judges.invite(store, bad, admin=False, base_url="http://h")
    assert judges.judge_list(store).empty


def test_nobody_revokes_the_last_admin(store: Store) -> None:
    """Neither the page (an identity-provider admin not in the store yet) nor the command line
    (no judge name) leaves the app without an admin."""
    judges.invite(store, "root", admin=True, base_url="http://h")
    judges.invite(store, "dan", admin=False, base_url="http://h")
    for by in ("ops@example.org", None):
        with pytest.raises(SxsError, match=r"^root is the last admin: invite another admin"):
            judges.revoke(store, "root", by=by)
    judges.revoke(store, "dan", by=None)  # not an admin: nothing to keep
    judges.invite(store, "eve", admin=True, base_url="http://h")
    judges.revoke(store, "root", by=None)
    with pytest.raises(SxsError, match=r"^eve is the last admin"):
        judges.revoke(store, "eve", by="ops@example.org")
    assert judges.judge_list(store).set_index("judge")["revoked"].ne("").to_dict() == {
        "dan": True, "eve": False, "root": True}
