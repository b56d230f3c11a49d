"""Managing judges from the app (the Judges admin page) and the CLI (``sxs invite``): invite a
judge and hand out their sign-in link once, list who may judge, revoke a judge.

The store keeps only a hash of each token (:mod:`judge_app.store.judges`), so a link is shown
once, when it is made; inviting the same name again makes a new link and ends the old one.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store import Store

SIGN_IN_VIA = {
    "invite": "invite link",
    "oidc": "identity provider",
    "typed": "typed name (unverified)",
    "machine": "machine witness",
    "legacy": "before sign-in (unverified)",
}
"""How a judge signs in, by the store's ``via``, as the judges list shows it."""


@dataclass(frozen=True)
class Invitation:
    """A judge just invited, with the one sign-in link the app will ever show for it."""

    name: str
    admin: bool
    link: str


def sign_in_link(base_url: str, token: str) -> str:
    """The URL that signs a browser in: the app's address with ``?token=``."""
    return f"{base_url.rstrip('/')}/?token={token}"


def invite(store: Store, name: str, admin: bool, base_url: str) -> Invitation:
    """Invite ``name`` (an admin if asked); a judge invited before gets a new link and the old
    one stops working.  Errors (empty or reserved name, an identity-provider user) are
    :class:`~judge_app.errors.SxsError`."""
    token = store.invite_judge(name, admin=admin)
    clean = name.strip()
    return Invitation(clean, admin, sign_in_link(base_url, token))


def judge_list(store: Store) -> pd.DataFrame:
    """One row per judge, by name: judge, signs in (see :data:`SIGN_IN_VIA`), admin (bool),
    revoked (the date, or "" while active).  Machine witnesses (LLM judges) are left out:
    they never sign in."""
    judges = store.judges()
    judges = judges[judges["via"] != "machine"]
    revoked = judges["revoked_at"].map(
        lambda at: "" if at is None or pd.isna(at) else pd.Timestamp(at).strftime("%Y-%m-%d %H:%M"))
    return pd.DataFrame({
        "judge": judges["name"].astype(str),
        "signs in": judges["via"].map(lambda via: SIGN_IN_VIA.get(via, str(via))),
        "admin": judges["admin"].astype(bool),
        "revoked": revoked,
    }).reset_index(drop=True)


def revoke(store: Store, name: str, by: str) -> None:
    """Revoke ``name``: their link and every session end at once; their votes and grades stay.
    An admin cannot revoke themselves (that would lock the last admin out)."""
    if name == by:
        raise SxsError("you cannot revoke yourself: ask another admin")
    store.revoke_judge(name)
