"""The test suite's one way of waiting: poll a condition until a deadline."""

from __future__ import annotations

import pytest

from tests.polling import WaitTimeout, wait_until


def test_returns_the_first_truthy_value_as_soon_as_it_holds() -> None:
    calls = []

    def third_time() -> str | None:
        calls.append(1)
        return "ready" if len(calls) == 3 else None

    assert wait_until(third_time, timeout=30, what="the third call") == "ready"
    assert len(calls) == 3


def test_fails_at_the_deadline_naming_what_it_waited_for() -> None:
    with pytest.raises(WaitTimeout, match=r"timed out after 0\.2 s waiting for the moon"):
        wait_until(lambda: False, timeout=0.2, what="the moon")


def test_an_error_in_the_condition_propagates_at_once() -> None:
    def dead() -> bool:
        raise RuntimeError("server exited")

    with pytest.raises(RuntimeError, match="server exited"):
        wait_until(dead, timeout=60, what="never")
