"""Who judges: invited judges and their sign-in links, OIDC users, and typed (unverified) names.

* An invite is a random token of 192 bits (``secrets.token_urlsafe(24)``); the store keeps only
  its SHA-256.  Inviting a name again replaces its token (the old link stops working) and lifts
  a revocation.
* Signing in exchanges the invite token for a fresh session token (also 192 bits, stored as its
  SHA-256 in ``sign_ins``): the app keeps the session token in a cookie, never in the URL, so a
  URL shared by mistake carries nothing.  Revoking a judge ends their link and every session.
* A link is exchanged once: the exchange marks it used (``token_used_at``) in the same
  transaction, so a second browser opening it is refused (:class:`LinkUsed`) — even when two
  open it at the same moment.  Inviting the name again makes a new link for the next device
  and keeps the sessions the judge already has.
* A session ends when idle: one not used for longer than the idle expiry an admin set
  (:meth:`Judges.set_session_idle`; :data:`DEFAULT_SESSION_IDLE_SECONDS`, three days, until
  then) signs nobody in (:class:`SessionExpired`) and is deleted.  Using a session moves its
  ``last_seen_at`` to now, at most once every :func:`touch_interval` (a rerun is no write).
* A typed name (``sxs serve --open``) is stored unverified, never admin, and may not take the
  name of an invited or OIDC judge; names never start with a machine witness's prefix.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

import pandas as pd

from judge_app.errors import NotFound, SxsError
from judge_app.io.display_text import neutralized, refuse_hidden
from judge_app.io.nul import plain_text
from judge_app.policies import MACHINE_WITNESSES, Witness, witness_of
from judge_app.store.backend import Backend
from judge_app.store.sql import one

TOKEN_BYTES = 24
DEFAULT_SESSION_IDLE_SECONDS = 3 * 86400
"""How long a session may go unused before it ends, until an admin sets another expiry."""
MIN_SESSION_IDLE_SECONDS = 60


class SignInRefused(SxsError):
    """A sign-in link or session that is unknown, revoked or malformed."""


class LinkUsed(SignInRefused):
    """A sign-in link that was already exchanged for a session (``name``: whose it is)."""

    def __init__(self, message: str, name: str) -> None:
        super().__init__(message)
        self.name = name


class SessionExpired(SignInRefused):
    """A session unused for longer than the idle expiry."""


def touch_interval(idle_seconds: int) -> int:
    """How stale ``last_seen_at`` may be before a use of the session writes it again: a
    minute, or a quarter of a short idle expiry, so a session in use never expires."""
    return max(1, min(60, idle_seconds // 4))


def idle_text(seconds: int) -> str:
    """``seconds`` as people say it: "3 days", "2 hours", "90 minutes", "45 seconds"."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} seconds"


@dataclass(frozen=True)
class Judge:
    """A judge as the app knows them: the name every write carries, and their role."""

    name: str
    admin: bool
    verified: bool
    via: str  # invite, oidc, typed or legacy

    @property
    def shown(self) -> str:
        """The name as outputs show it: unverified judges are marked; a character that hides
        or reorders text (a name stored before they were refused) is written as ``U+XXXX``."""
        name = neutralized(self.name)
        return name if self.verified else f"{name} (unverified)"


def token_hash(token: str) -> str:
    """SHA-256 (hex) of a token: the only form in which tokens are stored."""
    return hashlib.sha256(token.encode()).hexdigest()


def check_judge_name(name: str) -> str:
    """The name stripped; an error if it is empty, too long, holds a NUL or is a machine
    witness's."""
    name = plain_text(name, "judge's name").strip()
    if not name:
        raise SxsError("a judge needs a name")
    refuse_hidden(name, "judge's name")
    if len(name) > 80:
        raise SxsError("a judge's name is at most 80 characters")
    for witness in MACHINE_WITNESSES:
        if name.startswith(witness.prefix):
            raise SxsError(f"judge names may not start with {witness.prefix!r} (the prefix "
                           f"of {witness.value} witnesses)")
    return name


class Judges:
    """Store methods for judges and sign-ins (mixed into :class:`~judge_app.store.Store`)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend


    def invite_judge(self, name: str, admin: bool = False) -> str:
        """Create (or re-invite) a verified judge; returns the raw sign-in token, which the
        store does not keep.  Re-inviting replaces the judge's link (an unused one stops
        working) and keeps their sessions: each device gets its own link."""
        name = check_judge_name(name)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        with self.backend.transaction() as cur:
            found = one(cur, "SELECT judge_id, via FROM judges WHERE name = ?", [name])
            if found is None:
                cur.execute("INSERT INTO judges (name, admin, verified, via, token_hash) "
                            "VALUES (?, ?, true, 'invite', ?)", [name, admin, token_hash(token)])
            else:
                if found[1] == "oidc":
                    raise SxsError(f"{name!r} signs in with the identity provider")
                cur.execute("UPDATE judges SET admin = ?, verified = true, via = 'invite', "
                            "token_hash = ?, token_used_at = NULL, revoked_at = NULL "
                            "WHERE judge_id = ?",
                            [admin, token_hash(token), found[0]])
        return token

    def revoke_judge(self, name: str, keep_an_admin: bool = False) -> None:
        """End a judge's link and sessions; their votes and labels stay.  With
        ``keep_an_admin``, refuse to revoke the last active admin: the active admins' rows are
        locked for the transaction (PostgreSQL), so two admins revoking each other at once
        cannot both pass the check."""
        with self.backend.transaction() as cur:
            found = one(cur, "SELECT judge_id FROM judges WHERE name = ?", [name])
            if found is None:
                raise NotFound(f"no judge {name!r}")
            if keep_an_admin:
                admins = [row[0] for row in cur.execute(
                    "SELECT name FROM judges WHERE admin AND revoked_at IS NULL ORDER BY name"
                    + self.backend.dialect.for_update).fetchall()]
                if admins == [name]:
                    raise SxsError(f"{name} is the last admin: invite another admin first "
                                   "(sxs invite NAME --admin), then revoke them")
            cur.execute("DELETE FROM sign_ins WHERE judge_id = ?", [found[0]])
            cur.execute("UPDATE judges SET revoked_at = current_timestamp, token_hash = NULL "
                        "WHERE judge_id = ?", [found[0]])

    def judges(self) -> pd.DataFrame:
        """Every judge (name, admin, verified, via, created_at, revoked_at), by name."""
        return self.backend.frame("SELECT name, admin, verified, via, created_at, revoked_at "
                           "FROM judges ORDER BY name")

    def sign_in(self, token: str) -> tuple[Judge, str]:
        """Exchange an invite token for (the judge, a new session token), once: the link is
        marked used in the same transaction.  A used link is :class:`LinkUsed`; an unknown
        or revoked one :class:`SignInRefused`."""
        session = secrets.token_urlsafe(TOKEN_BYTES)
        with self.backend.transaction() as cur:
            found = one(cur, "SELECT judge_id, name, admin, verified, via, token_used_at "
                              "FROM judges WHERE token_hash = ? AND revoked_at IS NULL"
                              + self.backend.dialect.for_update, [token_hash(token)])
            if found is None:
                raise SignInRefused("this sign-in link is not valid (revoked or mistyped): "
                                    "ask an admin for a new one")
            if found[5] is not None:
                raise LinkUsed("this sign-in link was already used (each link signs in one "
                               "browser): ask an admin for a new one", found[1])
            cur.execute("UPDATE judges SET token_used_at = current_timestamp "
                        "WHERE judge_id = ?", [found[0]])
            cur.execute("INSERT INTO sign_ins (session_hash, judge_id, last_seen_at) "
                        "VALUES (?, ?, current_timestamp)", [token_hash(session), found[0]])
        return Judge(found[1], bool(found[2]), bool(found[3]), found[4]), session

    def session_idle_seconds(self) -> int:
        """The idle expiry of sessions, in seconds (the default until an admin sets one)."""
        found = one(self.backend.cursor(), "SELECT session_idle_seconds FROM sign_in_settings "
                                           "ORDER BY setting_id DESC LIMIT 1")
        return int(found[0]) if found else DEFAULT_SESSION_IDLE_SECONDS

    def set_session_idle(self, seconds: int, by: str | None = None) -> None:
        """Set the idle expiry of every session (at least a minute); ``by``: the admin, or
        None for the command line.  Sessions idle for longer already end at their next
        use."""
        if isinstance(seconds, bool) or not isinstance(seconds, int) or \
                seconds < MIN_SESSION_IDLE_SECONDS:
            raise SxsError(f"a session's idle expiry is at least {MIN_SESSION_IDLE_SECONDS} "
                           f"seconds; got {seconds!r}")
        if seconds > 2**31 - 1:
            raise SxsError(f"a session's idle expiry is at most {2**31 - 1} seconds")
        with self.backend.transaction() as cur:  # appended: the newest row is current
            cur.execute("INSERT INTO sign_in_settings (session_idle_seconds, set_by) "
                        "VALUES (?, ?)", [seconds, by])

    def session_judge(self, session: str) -> Judge | None:
        """The judge a session token belongs to; None if unknown or revoked.  A session idle
        for longer than the expiry is deleted and :class:`SessionExpired`; a session in use
        has its ``last_seen_at`` moved to now (at most once per :func:`touch_interval`)."""
        idle = self.session_idle_seconds()
        keys = {"h": token_hash(session), "idle": idle, "touch": touch_interval(idle)}
        found = one(self.backend.cursor(), """
            SELECT j.name, j.admin, j.verified, j.via,
                   s.last_seen_at < current_timestamp - to_seconds($idle) AS expired,
                   s.last_seen_at < current_timestamp - to_seconds($touch) AS stale
            FROM sign_ins s JOIN judges j USING (judge_id)
            WHERE s.session_hash = $h AND j.revoked_at IS NULL""", keys)
        if found is None:
            return None
        if found[4]:
            with self.backend.transaction() as cur:
                cur.execute("DELETE FROM sign_ins WHERE session_hash = ?", [keys["h"]])
            raise SessionExpired(f"you were away for more than {idle_text(idle)}, so this "
                                 "browser was signed out: ask an admin for a new sign-in link")
        if found[5]:
            with self.backend.transaction() as cur:
                cur.execute("UPDATE sign_ins SET last_seen_at = current_timestamp "
                            "WHERE session_hash = ?", [keys["h"]])
        return Judge(found[0], bool(found[1]), bool(found[2]), found[3])

    def oidc_judge(self, name: str, admin: bool) -> Judge:
        """The judge for a user the identity provider signed in (created on first sight)."""
        name = check_judge_name(name)
        with self.backend.transaction() as cur:
            found = one(cur, "SELECT via, revoked_at FROM judges WHERE name = ?", [name])
            if found is None:
                cur.execute("INSERT INTO judges (name, admin, verified, via) "
                            "VALUES (?, ?, true, 'oidc')", [name, admin])
            elif found[0] != "oidc" or found[1] is not None:
                raise SignInRefused(f"{name!r} may not sign in here (revoked or invited)")
            else:
                cur.execute("UPDATE judges SET admin = ? WHERE name = ?", [admin, name])
        return Judge(name, admin, True, "oidc")

    def typed_judge(self, name: str) -> Judge:
        """An unverified judge by a typed name (open mode); never admin.  A name that an
        invited or OIDC judge holds is refused."""
        name = check_judge_name(name)
        with self.backend.transaction() as cur:
            found = one(cur, "SELECT verified, revoked_at FROM judges WHERE name = ?", [name])
            if found is None:
                cur.execute("INSERT INTO judges (name, verified, via) "
                            "VALUES (?, false, 'typed')", [name])
            elif found[0] or found[1] is not None:
                raise SignInRefused(f"the name {name!r} is taken: choose another, or use "
                                    "your sign-in link")
        return Judge(name, False, False, "typed")

    def machine_judge(self, name: str) -> Judge:
        """Register (once) a machine witness that writes votes — ``llm:<model>`` — as a judge
        that can never sign in or be an admin."""
        plain_text(name, "witness's name")
        if witness_of(name) is Witness.EXPERT:
            raise SxsError(f"{name!r} is not a machine witness's name (llm:…, clicks:…)")
        with self.backend.transaction() as cur:
            if one(cur, "SELECT 1 FROM judges WHERE name = ?", [name]) is None:
                cur.execute("INSERT INTO judges (name, admin, verified, via) "
                            "VALUES (?, false, true, 'machine')", [name])
        return self.active_judge(name)

    def active_judge(self, name: str) -> Judge:
        """A registered judge who is not revoked (what every app write requires)."""
        found = one(self.backend.cursor(), "SELECT name, admin, verified, via FROM judges "
                                     "WHERE name = ? AND revoked_at IS NULL", [name])
        if found is None:
            raise SignInRefused(f"{name!r} is not a judge here (unknown or revoked)")
        return Judge(found[0], bool(found[1]), bool(found[2]), found[3])
