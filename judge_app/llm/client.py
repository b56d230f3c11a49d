"""One OpenAI-compatible chat-completions endpoint, and one call to it.

``POST {base_url}/chat/completions`` with ``{"model", "messages", "temperature", ...}``; the
answer is ``choices[0].message.content`` and the token counts are ``usage.prompt_tokens`` and
``usage.completion_tokens``.  Hosted providers (OpenAI, Together, Groq, OpenRouter) and local
servers (llama.cpp ``llama-server``, vLLM, Ollama) all speak it.

The API key is read once, from the environment variable whose *name* the caller gives, and is
sent only as ``Authorization: Bearer <key>``.  It is never logged, never part of a repr, and
any text kept from a response (an error body may quote it) has it masked.

A call either returns a :class:`Completion` or raises:

* :class:`RetryableError` — HTTP 408, 409, 429 or 5xx, a timeout or a broken connection;
  carries the server's ``Retry-After`` in seconds when it sent one;
* :class:`CallTimeout` (a :class:`RetryableError`) — no whole answer within ``timeout_s``;
* :class:`Unreachable` (a :class:`RetryableError`) — no connection could be made at all
  (refused, no such host): the runner retries it, but gives up on the endpoint after a few;
* :class:`CallError` — anything retrying will not fix (401, 400, a body that is not
  chat-completions JSON).

The timeout bounds the whole call — connecting, sending and reading the whole answer — not
each read: httpx's own timeouts are per operation, so a server trickling its answer a byte at a
time would never time out.  Every call therefore runs on the client's one event loop (a
background thread owning an ``httpx.AsyncClient``) under ``asyncio.timeout(timeout_s)``, which
cancels the request, and closes its connection, when the deadline passes.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import math
import os
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import httpx

from judge_app.errors import SxsError

RETRYABLE_STATUS = frozenset({408, 409, 429})  # and every 5xx
MASK = "***"
LLM_JUDGE_PREFIX = "llm:"  # the judge an LLM's answers are stored under: llm:<model>


def is_llm_judge(judge: str) -> bool:
    """True for a judge name an LLM's answers are stored under (``llm:<model>``)."""
    return judge.startswith(LLM_JUDGE_PREFIX)


@dataclass(frozen=True)
class Endpoint:
    """Where and how to ask: the endpoint, the model and the sampling settings.

    ``base_url`` ends before ``/chat/completions`` (``https://api.openai.com/v1``,
    ``http://127.0.0.1:8080/v1`` for llama.cpp, ``http://127.0.0.1:11434/v1`` for Ollama).
    ``api_key_env`` names the environment variable holding the key; ``None`` sends no
    ``Authorization`` header (local servers).  ``timeout_s`` bounds each HTTP call as a whole
    (connect, send, and the whole answer).
    ``json_mode`` adds ``response_format: {"type": "json_object"}`` for servers that honour it.
    """

    base_url: str
    model: str
    api_key_env: str | None = None
    temperature: float = 0.0
    max_tokens: int | None = 400
    timeout_s: float = 60.0
    json_mode: bool = False

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise SxsError(f"--base-url must start with http:// or https://; got {self.base_url!r}")
        if not self.model.strip():
            raise SxsError("--model must name the model to ask")
        if not (self.timeout_s > 0 and math.isfinite(self.timeout_s)):
            raise SxsError("the timeout must be a positive number of seconds; "
                           f"got {self.timeout_s}")

    @property
    def judge(self) -> str:
        """The judge name everything this model says is stored under: ``llm:<model>``."""
        return f"{LLM_JUDGE_PREFIX}{self.model}"

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"


@dataclass(frozen=True)
class Completion:
    """What the endpoint answered to one request."""

    text: str  # choices[0].message.content ("" when absent)
    refusal: str | None  # message.refusal, or the finish reason "content_filter"
    finish_reason: str | None
    prompt_tokens: int
    completion_tokens: int
    served_model: str | None  # the response's "model", which may name a snapshot
    latency_ms: int


class CallError(Exception):
    """A failed call that retrying will not fix; ``raw`` is the response text, key masked."""

    def __init__(self, reason: str, raw: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.raw = raw


class RetryableError(CallError):
    """A failed call worth retrying (429, 5xx, timeout, connection); ``retry_after`` in s."""

    def __init__(self, reason: str, raw: str = "", retry_after: float | None = None) -> None:
        super().__init__(reason, raw)
        self.retry_after = retry_after


class CallTimeout(RetryableError):
    """No whole answer within the endpoint's ``timeout_s``."""


class Unreachable(RetryableError):
    """No connection to the endpoint could be made (refused, no such host, TLS failed)."""


def retry_after_seconds(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date; ``None`` if absent or
    unreadable.  A date in the past gives 0."""
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(text)
        except (TypeError, ValueError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, seconds)


class ChatClient:
    """A connection pool to one endpoint; thread-safe: any thread may call :meth:`complete`.

    The requests run on one event loop in a background thread (see the module doc: that is
    what lets the timeout bound the whole call).  Raises :class:`SxsError` at construction
    when ``api_key_env`` names a variable that is not set, naming the variable (never its
    value).  ``transport`` (an ``httpx.AsyncBaseTransport``, such as ``httpx.MockTransport``)
    replaces the network, for tests.
    """

    def __init__(self, endpoint: Endpoint, *, environ: Mapping[str, str] | None = None,
                 transport: httpx.AsyncBaseTransport | None = None) -> None:
        self.endpoint = endpoint
        env = os.environ if environ is None else environ
        headers = {"Content-Type": "application/json"}
        self._key: str | None = None
        if endpoint.api_key_env is not None:
            key = env.get(endpoint.api_key_env, "").strip()
            if not key:
                raise SxsError(f"the environment variable {endpoint.api_key_env} holding the "
                               "API key is not set")
            self._key = key
            headers["Authorization"] = f"Bearer {key}"
        self._http = httpx.AsyncClient(headers=headers,
                                       timeout=httpx.Timeout(endpoint.timeout_s),
                                       transport=transport, follow_redirects=False)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="llm-http",
                                        daemon=True)
        self._thread.start()
        self._closed = False
        self._close_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ChatClient({self.endpoint!r})"

    def __enter__(self) -> ChatClient:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connections and stop the loop; calls still in flight are cancelled."""
        with self._close_lock:
            if self._closed:
                return
            self._closed = True
        asyncio.run_coroutine_threadsafe(self._shutdown(), self._loop).result()
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join()
        self._loop.close()

    async def _shutdown(self) -> None:
        current = asyncio.current_task()
        pending = [task for task in asyncio.all_tasks() if task is not current]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await self._http.aclose()

    def mask(self, text: str) -> str:
        """``text`` with every occurrence of the API key replaced by ``***``."""
        return text.replace(self._key, MASK) if self._key else text

    def body(self, messages: Sequence[Mapping[str, str]]) -> dict[str, object]:
        """The JSON request body for ``messages``."""
        body: dict[str, object] = {"model": self.endpoint.model, "messages": list(messages),
                                   "temperature": self.endpoint.temperature}
        if self.endpoint.max_tokens is not None:
            body["max_tokens"] = self.endpoint.max_tokens
        if self.endpoint.json_mode:
            body["response_format"] = {"type": "json_object"}
        return body

    def complete(self, messages: Sequence[Mapping[str, str]]) -> Completion:
        """One HTTP request, no retry, within ``timeout_s`` in all: the parsed completion, or
        a :class:`CallError`."""
        if self._closed:
            raise SxsError("the LLM client is closed")
        call = asyncio.run_coroutine_threadsafe(self._complete(self.body(messages)), self._loop)
        try:
            return call.result()
        except BaseException:
            call.cancel()  # the caller was interrupted: do not leave the request running
            raise

    async def _complete(self, body: dict[str, object]) -> Completion:
        started = time.perf_counter()
        timeout_s = self.endpoint.timeout_s
        try:
            async with asyncio.timeout(timeout_s):
                response = await self._http.post(self.endpoint.url, json=body)
        except (TimeoutError, httpx.TimeoutException):
            raise CallTimeout(f"no answer within {timeout_s:g} s") from None
        except httpx.ConnectError as error:
            raise Unreachable(self.mask(f"connection failed: {type(error).__name__}: "
                                        f"{_root_cause(error)}")) from None
        except httpx.TransportError as error:
            raise RetryableError(self.mask(f"connection failed: {type(error).__name__}: "
                                           f"{error}")) from None
        latency_ms = round((time.perf_counter() - started) * 1000)
        raw = self.mask(response.text)
        status = response.status_code
        if status in RETRYABLE_STATUS or status >= 500:
            raise RetryableError(f"HTTP {status}", raw,
                                 retry_after_seconds(response.headers.get("Retry-After")))
        if status != 200:
            raise CallError(f"HTTP {status}", raw)
        return _completion(raw, latency_ms)


def _root_cause(error: BaseException) -> BaseException:
    """The first error in ``error``'s chain: "[Errno 111] Connect call failed ..." rather
    than the wrapper's "All connection attempts failed"."""
    seen = {id(error)}
    while (cause := error.__cause__ or error.__context__) is not None and id(cause) not in seen:
        seen.add(id(cause))
        error = cause
    return error


def _completion(raw: str, latency_ms: int) -> Completion:
    try:
        data = _json_object(raw)
        choice = data["choices"][0]
        message = choice.get("message") or {}
        usage = data.get("usage") or {}
        content = message.get("content")
        refusal = message.get("refusal")
        finish = choice.get("finish_reason")
        if not isinstance(content, str | type(None)) or not isinstance(usage, dict):
            raise TypeError("content must be a string")
        return Completion(
            text=content or "",
            refusal=(str(refusal) if refusal else
                     "the provider's content filter stopped the answer"
                     if finish == "content_filter" else None),
            finish_reason=str(finish) if finish is not None else None,
            prompt_tokens=_count(usage.get("prompt_tokens")),
            completion_tokens=_count(usage.get("completion_tokens")),
            served_model=str(data["model"]) if data.get("model") else None,
            latency_ms=latency_ms)
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        raise CallError("the endpoint's answer is not chat-completions JSON "
                        "(choices[0].message.content)", raw) from None


def _json_object(raw: str) -> dict:
    data = json.loads(raw)
    if not isinstance(data, dict):
        raise ValueError("not an object")
    return data


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


__all__ = ["LLM_JUDGE_PREFIX", "CallError", "CallTimeout", "ChatClient", "Completion", "Endpoint",
           "RetryableError", "Unreachable", "is_llm_judge", "retry_after_seconds"]
