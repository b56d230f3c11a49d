"""A fake chat-completions endpoint per test, and a sleep that records instead of waiting."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.llm.fake_endpoint import FakeLLM

API_KEY = "sk-test-9f8e7d6c5b4a"


class Waits:
    """Stands in for ``time.sleep``: records each requested wait and returns at once."""

    def __init__(self) -> None:
        self.seconds: list[float] = []
        self._lock = threading.Lock()

    def __call__(self, seconds: float) -> None:
        with self._lock:
            self.seconds.append(seconds)


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM().start()
    yield server
    server.stop()


@pytest.fixture
def waits() -> Waits:
    return Waits()


@pytest.fixture
def environ() -> dict[str, str]:
    return {"SXS_TEST_LLM_KEY": API_KEY}
