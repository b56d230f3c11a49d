"""How soon after the next query appears a vote counts.

A vote cast within ``SXS_MIN_SECONDS_BETWEEN_VOTES`` seconds (default
:data:`DEFAULT_MIN_SECONDS`, 0.4 s) of the session's previous vote — that is, of the next query
appearing — cannot have been an informed one (nobody reads two rankings that fast; it is a key
held down, a double click or a key pressed for the query before).  It is refused, and the judge
is told at once (:class:`VoteTooFast`, one line): never silently dropped.

Edge cases: a session that has not voted yet has no window; a setting that is not a number, or
is negative, is an :class:`~judge_app.errors.SxsError` naming the setting; 0 turns the window
off.
"""

from __future__ import annotations

import os

from judge_app.errors import SxsError

MIN_SECONDS_ENV = "SXS_MIN_SECONDS_BETWEEN_VOTES"
DEFAULT_MIN_SECONDS = 0.4
TOO_FAST = "not counted: too soon after the query appeared — look at the results first"


class VoteTooFast(SxsError):
    """A vote within the window after the previous one: not counted (the judge is told)."""


def min_seconds_between_votes() -> float:
    """The window, from ``SXS_MIN_SECONDS_BETWEEN_VOTES`` (seconds, ≥ 0), else 0.4."""
    text = os.environ.get(MIN_SECONDS_ENV, "").strip()
    if not text:
        return DEFAULT_MIN_SECONDS
    try:
        value = float(text)
    except ValueError:
        raise SxsError(f"{MIN_SECONDS_ENV} must be a number of seconds; got {text!r}") from None
    if not value >= 0:
        raise SxsError(f"{MIN_SECONDS_ENV} must be at least 0; got {text!r}")
    return value


def check_pace(last_vote_at: float | None, now: float, window: float | None = None) -> None:
    """:class:`VoteTooFast` when ``now - last_vote_at`` (monotonic seconds) is under the
    window; nothing when the session has not voted (``last_vote_at`` None)."""
    window = min_seconds_between_votes() if window is None else window
    if last_vote_at is not None and now - last_vote_at < window:
        raise VoteTooFast(TOO_FAST)
