"""Reading Retry-After and the endpoint's answer."""

from __future__ import annotations

from datetime import UTC, datetime

import httpx
import pytest

from judge_app.llm.client import (
    CallError,
    ChatClient,
    Endpoint,
    RetryableError,
    retry_after_seconds,
)

NOW = datetime(2026, 12, 3, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(("header", "seconds"), [
    ("3", 3.0), ("0.5", 0.5), (" 120 ", 120.0), ("Thu, 03 Dec 2026 12:00:30 GMT", 30.0),
    ("Thu, 03 Dec 2026 11:00:00 GMT", 0.0), ("-4", 0.0), ("soon", None), ("", None),
    (None, None), ("nan", None), ("inf", None),
])
def test_retry_after_is_seconds_or_an_http_date(header: str | None,
                                                 seconds: float | None) -> None:
    assert retry_after_seconds(header, now=NOW) == seconds


def client_answering(status: int, body: str, headers: dict[str, str] | None = None):
    def reply(request: httpx.Request) -> httpx.Response:
        return httpx.Response(status, text=body, headers=headers or {})

    return ChatClient(Endpoint("http://llm.invalid/v1", "m"),
                      transport=httpx.MockTransport(reply))


@pytest.mark.parametrize("status", [408, 409, 429, 500, 502, 503, 504, 529])
def test_these_statuses_are_worth_a_retry(status: int) -> None:
    with client_answering(status, "busy", {"Retry-After": "7"}) as client, \
            pytest.raises(RetryableError) as caught:
        client.complete([])
    assert caught.value.reason == f"HTTP {status}" and caught.value.retry_after == 7.0


@pytest.mark.parametrize(("status", "body"), [
    (400, '{"error": "bad model"}'), (401, "no"), (404, "no"),
    (200, "<html>a proxy page</html>"), (200, '{"choices": []}'), (200, "[1]"),
    (200, '{"choices": [{"message": {"content": 3}}]}'),
])
def test_these_answers_are_not_retried(status: int, body: str) -> None:
    with client_answering(status, body) as client, pytest.raises(CallError) as caught:
        client.complete([])
    assert not isinstance(caught.value, RetryableError) and caught.value.raw == body


def test_a_content_filter_stop_is_a_refusal() -> None:
    body = ('{"choices": [{"message": {"content": null}, "finish_reason": "content_filter"}],'
            ' "usage": {"prompt_tokens": 12}}')
    with client_answering(200, body) as client:
        completion = client.complete([])
    assert completion.refusal == "the provider's content filter stopped the answer"
    assert (completion.text, completion.prompt_tokens, completion.completion_tokens) == ("", 12, 0)
