"""The window after a vote in which another vote is refused and said (issue 25)."""

from __future__ import annotations

import pytest

from judge_app.errors import SxsError
from judge_app.services.vote_pace import (
    DEFAULT_MIN_SECONDS,
    MIN_SECONDS_ENV,
    TOO_FAST,
    VoteTooFast,
    check_pace,
    min_seconds_between_votes,
)


def test_a_vote_inside_the_window_is_refused_with_the_reason() -> None:
    with pytest.raises(VoteTooFast, match=r"^not counted: too soon after the query appeared"):
        check_pace(10.0, 10.1, window=0.4)
    check_pace(10.0, 10.4, window=0.4)  # at the edge: counted
    check_pace(None, 0.0, window=0.4)  # no vote yet: no window
    check_pace(10.0, 10.0, window=0.0)  # 0 turns it off
    assert "look at the results first" in TOO_FAST


def test_the_window_is_a_setting(monkeypatch) -> None:
    monkeypatch.delenv(MIN_SECONDS_ENV, raising=False)
    assert min_seconds_between_votes() == DEFAULT_MIN_SECONDS == 0.4
    monkeypatch.setenv(MIN_SECONDS_ENV, "2.5")
    assert min_seconds_between_votes() == 2.5
    for bad in ("soon", "-1", "nan"):
        monkeypatch.setenv(MIN_SECONDS_ENV, bad)
        with pytest.raises(SxsError, match=MIN_SECONDS_ENV):
            min_seconds_between_votes()
