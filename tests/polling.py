"""Waiting for a condition in tests: poll it until a deadline, never sleep a fixed time.

A fixed sleep is either too short on a loaded machine (a flaky test) or too long everywhere
(a slow one).  ``wait_until`` returns as soon as the condition holds and fails with a message
saying what did not happen, and within how long.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


class WaitTimeout(AssertionError):
    """The condition did not hold before the deadline."""


def wait_until(predicate: Callable[[], T], timeout: float, what: str,
               first_interval: float = 0.01, max_interval: float = 0.25) -> T:
    """Call ``predicate`` until it returns a truthy value, and return that value.

    Between calls the pause starts at ``first_interval`` and doubles up to ``max_interval``,
    so a quick condition is seen within milliseconds and a slow one costs little CPU.  After
    ``timeout`` seconds raise :class:`WaitTimeout` naming ``what`` was awaited.  An exception
    from ``predicate`` propagates at once (e.g. "the server process exited").
    """
    deadline = time.monotonic() + timeout
    interval = first_interval
    pause = threading.Event()  # never set: its wait() is the pause between two polls
    while True:
        result = predicate()
        if result:
            return result
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise WaitTimeout(f"timed out after {timeout:g} s waiting for {what}")
        pause.wait(min(interval, remaining))
        interval = min(interval * 2, max_interval)
