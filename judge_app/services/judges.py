"""Managing judges from the app (the Judges admin page) and the CLI (``sxs invite``): invite a
judge and hand out their sign-in link once, list who may judge, revoke a judge; and signing in
(an invite link, an identity-provider user, a typed name in open mode).

The store keeps only a hash of each token (:mod:`judge_app.store.judges`), so a link is shown
once, when it is made; inviting the same name again makes a new link and ends the old one.
A link signs in one browser, once (a judge on two devices gets a link per device: invite them
again); a session ends after the idle expiry an admin sets (:func:`set_session_idle`).

Revoking keeps someone able to manage the judges in the app: an admin cannot revoke
themselves on the Judges page, and nobody — the page or ``sxs invite --revoke`` — revokes the
last active admin (invite another admin first).  The command line's operator holds the store
itself and has no judge name, so for them only the second rule applies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store import Store
from judge_app.store.judges import MIN_SESSION_IDLE_SECONDS, Judge, idle_text

IDLE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
"""The units of an idle expiry as typed (``90m``, ``12h``, ``3d``): seconds, minutes, hours,
days."""

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


def revoke(store: Store, name: str, by: str | None) -> None:
    """Revoke ``name``: their link and every session end at once; their votes and grades stay.

    ``by`` is the admin revoking on the Judges page, or None for the command line (whose
    operator has no judge name).  Refused: revoking yourself (it would end the session you act
    in) and revoking the last active admin (nobody could manage the judges in the app; invite
    another admin first).  Admins listed for the identity provider count once they have
    signed in.  Unknown names raise :class:`~judge_app.errors.NotFound`."""
    if by is not None and name == by:
        raise SxsError("you cannot revoke yourself: ask another admin")
    store.revoke_judge(name, keep_an_admin=True)  # checked in the revoke's transaction


def parse_idle(text: str) -> int:
    """An idle expiry typed as a number and a unit (``2d``, ``12h``, ``90m``, ``3600s``; see
    :data:`IDLE_UNITS`) in seconds; anything else, or less than a minute, is refused in one
    line naming the field."""
    found = re.fullmatch(r"\s*(\d{1,7})\s*([smhd])\s*", str(text).lower())
    if found is None:
        raise SxsError(f"session idle: {text!r} is not a duration like 3d, 12h or 90m")
    seconds = int(found[1]) * IDLE_UNITS[found[2]]
    if seconds < MIN_SESSION_IDLE_SECONDS:
        raise SxsError(f"session idle: {text!r} is shorter than a minute")
    return seconds


def set_session_idle(store: Store, seconds: int, by: str | None) -> str:
    """Set how long a session may go unused before its browser must sign in again (``by``:
    the admin, None for the command line); returns the sentence that confirms it."""
    store.set_session_idle(seconds, by=by)
    return f"sessions now end after {idle_text(seconds)} without use"


def session_idle(store: Store) -> str:
    """The idle expiry now, as people say it ("3 days")."""
    return idle_text(store.session_idle_seconds())


def sign_in(store: Store, token: str) -> tuple[Judge, str]:
    """Exchange an invite link's token for (the judge, a new session token), once; a used
    link is :class:`~judge_app.store.judges.LinkUsed`, a revoked or unknown one
    :class:`~judge_app.store.judges.SignInRefused`."""
    return store.sign_in(token)


def session_judge(store: Store, session: str) -> Judge | None:
    """The judge a browser's session token belongs to (None: unknown or revoked); a session
    idle past the expiry is :class:`~judge_app.store.judges.SessionExpired` (and ends).  A
    use moves the session's last use to now."""
    return store.session_judge(session)


def identity_provider_judge(store: Store, email: str, admin: bool) -> Judge:
    """The judge for a user the identity provider signed in (created on first sight; admin
    as the app's admin list says, each time)."""
    return store.oidc_judge(email, admin=admin)


def typed_judge(store: Store, name: str) -> Judge:
    """Open mode: the unverified judge by a typed name; a name an invited or identity-provider
    judge holds is refused."""
    return store.typed_judge(name)
