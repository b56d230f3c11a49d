"""A fake chat-completions endpoint per test, and a sleep that records instead of waiting."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from judge_app.llm.client import ChatClient, Endpoint
from judge_app.llm.runner import RetryPolicy, Runner
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


@pytest.fixture
def runner_for(fake: FakeLLM, environ: dict[str, str], waits: Waits) -> Iterator:
    """``runner_for(**options)``: a Runner on the fake endpoint; short backoff, no real waits."""
    clients: list[ChatClient] = []

    def make(*, base_url: str | None = None, timeout_s: float = 10.0, max_attempts: int = 3,
             backoff_s: float = 0.01, jitter: float = 0.0, max_retry_after_s: float = 300.0,
             **options: object) -> Runner:
        endpoint = Endpoint(base_url or fake.base_url, "judge-model",
                            api_key_env="SXS_TEST_LLM_KEY", temperature=0.0,
                            timeout_s=timeout_s)
        client = ChatClient(endpoint, environ=environ)
        clients.append(client)
        retry = RetryPolicy(max_attempts=max_attempts, backoff_s=backoff_s, jitter=jitter,
                            max_retry_after_s=max_retry_after_s)
        options.setdefault("sleep", waits)
        return Runner(client, retry=retry, **options)  # type: ignore[arg-type]

    yield make
    for client in clients:
        client.close()
