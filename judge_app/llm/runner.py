"""Running many LLM calls against a real endpoint: concurrency, retries, budget, resume.

A run is a list of *jobs*.  A job is one item to judge (one (query, document) to grade, one
query to compare two runs on) made of one or more *calls* (the preference protocol asks twice,
once per side order), and a ``finish`` function turning the calls' records into its result.

* **Concurrency**: at most ``concurrency`` jobs are in flight, on a thread pool; results,
  ``on_result`` and ``progress`` are delivered on the calling thread, in completion order, so
  the caller may write each one to the store as it arrives (a stopped run loses nothing).
* **Retries**: HTTP 408/409/429/5xx, timeouts and connection failures are retried up to
  ``RetryPolicy.max_attempts`` attempts in all.  Before retry *n* (1, 2, ...) the runner waits
  ``min(max_backoff_s, backoff_s * 2**(n-1)) * U(1 - jitter, 1)``, or the server's
  ``Retry-After`` when that is longer; a ``Retry-After`` beyond ``max_retry_after_s`` ends
  the call as a failure.  Other errors, and answers that do not parse, are not retried.
* **Budget**: ``max_calls`` bounds the HTTP requests the endpoint sees in this runner's life,
  retries included — never exceeded, whatever the concurrency.  A job starts only when all
  its first attempts fit; a retry takes one more request from what is left, and when none is
  left the call fails with "call budget spent".  Jobs never started are counted as
  ``unstarted`` and yield nothing, so a later run picks them up.
* **Unreachable endpoint**: a connection that cannot be made at all (refused, no such host)
  is retried like the rest, but ``max_unreachable`` such failures in a row (across every call;
  any HTTP answer, even a 429, resets the count) mean the endpoint is wrong, not busy: the run
  starts nothing more, lets the calls in flight end, and raises :class:`EndpointUnreachable`.
  A timeout while the endpoint has never answered counts the same way (a call cancelled
  before it connected cannot tell the two apart; an endpoint that never answers within the
  timeout is no more use).  So does a run ending with every request this runner made having
  failed to connect.  What
  was answered before is delivered (and stored) as usual, so running again resumes.
* **Resume**: jobs whose key is in ``done`` are skipped (counted as ``skipped``).
* **Failures**: a call that ends in error, refusal, an empty or malformed answer, or an
  off-scale value yields a :class:`CallRecord` with ``failure`` set, the raw text kept and
  ``value`` None.  If a job's call fails, its later calls are not made.
* **Cost**: prompt and completion tokens are summed from each answer's ``usage``; with
  :class:`Prices` the cost is ``prompt/1000 * prompt_per_1k + completion/1000 *
  completion_per_1k``.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Collection, Hashable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from judge_app.errors import SxsError
from judge_app.llm.answers import AnswerError
from judge_app.llm.client import (
    CallError,
    CallTimeout,
    ChatClient,
    Completion,
    RetryableError,
    Unreachable,
)
from judge_app.llm.prompts import Messages, PromptTemplate, messages_sha256

log = logging.getLogger(__name__)

R = TypeVar("R")
Parse = Callable[[str], tuple[int | str, str]]  # reply text -> (value, reason); AnswerError
Progress = Callable[[int, int, int], None]  # (jobs finished, jobs to do, failed jobs)


@dataclass(frozen=True)
class RetryPolicy:
    """How failed calls are retried; see the module docstring for the formula."""

    max_attempts: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 60.0
    jitter: float = 0.5  # the wait is scaled by U(1 - jitter, 1)
    max_retry_after_s: float = 300.0

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise SxsError(f"max_attempts must be at least 1; got {self.max_attempts}")
        if not 0 <= self.jitter <= 1:
            raise SxsError(f"jitter must be between 0 and 1; got {self.jitter}")
        if self.backoff_s < 0 or self.max_backoff_s < 0:
            raise SxsError("backoff times cannot be negative")

    def backoff(self, retry: int, rng: random.Random) -> float:
        """The wait before retry number ``retry`` (1 for the first retry)."""
        base = min(self.max_backoff_s, self.backoff_s * 2 ** (retry - 1))
        return base * rng.uniform(1 - self.jitter, 1)


@dataclass(frozen=True)
class Prices:
    """The endpoint's price per 1,000 prompt tokens and per 1,000 completion tokens."""

    prompt_per_1k: float
    completion_per_1k: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        return (prompt_tokens / 1000 * self.prompt_per_1k
                + completion_tokens / 1000 * self.completion_per_1k)


@dataclass(frozen=True)
class CallSpec:
    """One request to make: the messages, the template they came from, how to read the reply.

    ``order`` and ``left_run`` say which side order a preference call showed (0 and None for a
    grade)."""

    messages: Messages
    template: PromptTemplate
    parse: Parse
    order: int = 0
    left_run: str | None = None


@dataclass(frozen=True)
class CallRecord:
    """Everything one call produced, ready for the store.

    ``value`` is the parsed answer (a grade, or a vote choice relative to the sides as shown)
    and ``reason`` the LLM's one-line reason — both None when ``failure`` says why the call
    failed.  ``raw`` is the reply text, or the error body, with the API key masked.
    ``prompt_sha256`` hashes the exact messages sent; ``template_sha256`` the template.
    ``latency_ms`` is the last attempt's, ``attempts`` counts HTTP requests made."""

    item_key: tuple[str, ...]
    order: int
    left_run: str | None
    judge: str
    model: str
    served_model: str | None
    base_url: str
    prompt_version: str
    template_sha256: str
    prompt_sha256: str
    temperature: float
    raw: str
    value: int | str | None
    reason: str | None
    failure: str | None
    prompt_tokens: int
    completion_tokens: int
    latency_ms: int | None
    attempts: int
    asked_at: datetime

    @property
    def ok(self) -> bool:
        return self.failure is None

    def row(self) -> dict[str, Any]:
        """The record as a flat dict (``item_key`` kept as a tuple)."""
        return asdict(self)


@dataclass(frozen=True)
class Job(Generic[R]):
    """One item to judge: its key (for resume), its calls in order, and how to finish it."""

    key: tuple[str, ...]
    calls: tuple[CallSpec, ...]
    finish: Callable[[tuple[CallRecord, ...]], R]


@dataclass
class RunSummary(Generic[R]):
    """What a run did.  ``results`` are in completion order; ``total`` counts the jobs this
    run set out to do (those not already ``done``)."""

    results: list[R] = field(default_factory=list)
    total: int = 0
    skipped: int = 0
    finished: int = 0
    failures: int = 0
    unstarted: int = 0
    conflicts: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None
    budget_exhausted: bool = False
    cancelled: bool = False


class EndpointUnreachable(SxsError):
    """The endpoint could not be reached: one line naming its base URL and the last error."""

    def __init__(self, base_url: str, reason: str, failures: int) -> None:
        super().__init__(
            f"cannot reach the LLM endpoint {base_url} ({failures} connection "
            f"failure{'s' if failures != 1 else ''} in a row; last: {reason}): check "
            "--base-url and that the server is running; what was answered is stored, "
            "run again to go on")
        self.base_url = base_url
        self.reason = reason


class CallBudget:
    """At most ``limit`` HTTP requests in all (``None``: no limit); thread-safe.

    ``claim(n)`` promises ``n`` requests or refuses; ``release(n)`` returns promised ones that
    were not made.  The requests made never exceed the promises, which never exceed the limit.
    """

    def __init__(self, limit: int | None) -> None:
        if limit is not None and limit < 0:
            raise SxsError(f"--max-calls cannot be negative; got {limit}")
        self.limit = limit
        self.promised = 0
        self._lock = threading.Lock()

    def claim(self, n: int = 1) -> bool:
        with self._lock:
            if self.limit is not None and self.promised + n > self.limit:
                return False
            self.promised += n
            return True

    def release(self, n: int) -> None:
        with self._lock:
            self.promised -= n


class Runner:
    """Runs jobs against one :class:`ChatClient`; counters span every run of this runner.

    ``sleep(seconds)`` waits between retries (default: an interruptible wait that
    :meth:`cancel` ends early); ``seed`` seeds the jitter; ``max_unreachable`` connection
    failures in a row end the run with :class:`EndpointUnreachable`."""

    def __init__(self, client: ChatClient, *, concurrency: int = 4, max_calls: int | None = None,
                 retry: RetryPolicy | None = None, prices: Prices | None = None, seed: int = 0,
                 sleep: Callable[[float], object] | None = None,
                 max_unreachable: int = 3) -> None:
        if concurrency < 1:
            raise SxsError(f"concurrency must be at least 1; got {concurrency}")
        if max_unreachable < 1:
            raise SxsError(f"max_unreachable must be at least 1; got {max_unreachable}")
        self.client = client
        self.concurrency = concurrency
        self.retry = retry or RetryPolicy()
        self.prices = prices
        self.budget = CallBudget(max_calls)
        self._stop = threading.Event()
        self._sleep = sleep or self._stop.wait
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._retry_refused = False
        self.max_unreachable = max_unreachable
        self._unreachable_streak = 0  # connection failures in a row, across calls
        self._answered = False  # the endpoint sent an HTTP answer at least once
        self._unreachable: Unreachable | CallTimeout | None = None  # what gave up on it
        self._last_unreachable: Unreachable | CallTimeout | None = None
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0

    def cancel(self) -> None:
        """Start no new job; waits between retries end, and their calls fail as cancelled."""
        self._stop.set()

    @property
    def cancelled(self) -> bool:
        return self._stop.is_set()

    @property
    def cost(self) -> float | None:
        return None if self.prices is None else self.prices.cost(self.prompt_tokens,
                                                                 self.completion_tokens)

    # -- one call ---------------------------------------------------------------------------

    def _backoff(self, retry: int) -> float:
        with self._lock:
            return self.retry.backoff(retry, self._rng)

    def _request(self, messages: Messages) -> Completion:
        with self._lock:
            self.calls += 1
        try:
            completion = self.client.complete(messages)
        except Unreachable as error:
            self._not_reached(error)
            raise
        except CallTimeout as error:
            if not self._has_answered():  # never reached: as a connection failure
                self._not_reached(error)
            raise
        except CallError:
            self._reached()
            raise
        self._reached()
        with self._lock:
            self.prompt_tokens += completion.prompt_tokens
            self.completion_tokens += completion.completion_tokens
        return completion

    def _failure_level(self, unreached: bool) -> int:
        """A failed call is a warning, but a connection failure while the endpoint has never
        answered, or once the run gave up on it, is told once, by
        :class:`EndpointUnreachable`."""
        with self._lock:
            told_at_the_end = unreached and (not self._answered or self._unreachable is not None)
        return logging.INFO if told_at_the_end else logging.WARNING

    def _why_stopped(self) -> str:
        return "cancelled" if self._unreachable is None else "the endpoint is unreachable"

    def _has_answered(self) -> bool:
        with self._lock:
            return self._answered

    def _reached(self) -> None:
        with self._lock:
            self._answered = True
            self._unreachable_streak = 0

    def _not_reached(self, error: Unreachable | CallTimeout) -> None:
        """Count a connection failure (or a timeout while the endpoint never answered); at
        ``max_unreachable`` in a row, give up the run."""
        with self._lock:
            self._unreachable_streak += 1
            self._last_unreachable = error
            if self._unreachable_streak >= self.max_unreachable and self._unreachable is None:
                self._unreachable = error
                self._stop.set()

    def _check_reachable(self) -> None:
        """Raise :class:`EndpointUnreachable` when the run gave up on the endpoint, or when
        no request this runner made ever reached it."""
        with self._lock:
            given_up = self._unreachable
            if given_up is None and self._unreachable_streak and not self._answered:
                given_up = self._last_unreachable
            streak = self._unreachable_streak
        if given_up is not None:
            raise EndpointUnreachable(self.client.endpoint.base_url, given_up.reason, streak)

    def _retry_or_why_not(self, key: tuple[str, ...], error: RetryableError,
                          attempts: int) -> str | None:
        """Wait before the next attempt and return None, or say why there is none."""
        if attempts >= self.retry.max_attempts:
            return f"{error.reason}; gave up after {attempts} attempts"
        wait_s = self._backoff(attempts)
        if error.retry_after is not None:
            if error.retry_after > self.retry.max_retry_after_s:
                return f"{error.reason}; the server asked to wait {error.retry_after:g} s"
            wait_s = max(wait_s, error.retry_after)
        if self._stop.is_set():
            return f"{error.reason}; {self._why_stopped()}"
        if not self.budget.claim(1):
            self._retry_refused = True
            return f"{error.reason}; call budget spent after {attempts} attempts"
        log.info("%s: %s; retry %d in %.2f s", "/".join(key), error.reason, attempts, wait_s)
        self._sleep(wait_s)
        if self._stop.is_set():
            self.budget.release(1)
            return f"{error.reason}; {self._why_stopped()}"
        return None

    def ask(self, key: tuple[str, ...], spec: CallSpec) -> CallRecord:
        """Make one call with retries; its first request must already be claimed."""
        asked_at = datetime.now(UTC)
        endpoint = self.client.endpoint
        attempts, completion, failure, raw = 0, None, None, ""
        unreached = False  # the last attempt could not connect
        while True:
            attempts += 1
            try:
                completion = self._request(spec.messages)
                break
            except RetryableError as error:
                raw, unreached = error.raw, isinstance(error, Unreachable)
                failure = self._retry_or_why_not(key, error, attempts)
                if failure is not None:
                    break
            except CallError as error:
                failure, raw = error.reason, error.raw
                break
        value, reason, latency = None, None, None
        if completion is not None:
            raw, latency, failure = completion.text, completion.latency_ms, None
            if completion.refusal is not None:
                failure = f"refused: {completion.refusal}"
                raw = raw or completion.refusal
            else:
                try:
                    value, reason = spec.parse(completion.text)
                except AnswerError as error:
                    failure = error.reason
                    if completion.finish_reason == "length":
                        failure += " (the answer was cut at max_tokens)"
        if failure is not None:
            log.log(self._failure_level(unreached), "%s: failed: %s", "/".join(key), failure)
        return CallRecord(
            item_key=key, order=spec.order, left_run=spec.left_run, judge=endpoint.judge,
            model=endpoint.model,
            served_model=completion.served_model if completion else None,
            base_url=endpoint.base_url, prompt_version=spec.template.tag,
            template_sha256=spec.template.sha256, prompt_sha256=messages_sha256(spec.messages),
            temperature=endpoint.temperature, raw=self.client.mask(raw), value=value,
            reason=reason, failure=failure,
            prompt_tokens=completion.prompt_tokens if completion else 0,
            completion_tokens=completion.completion_tokens if completion else 0,
            latency_ms=latency, attempts=attempts, asked_at=asked_at)

    def _job(self, job: Job[R]) -> R:
        """Run a job's calls in order (their first requests claimed); stop at a failure."""
        records: list[CallRecord] = []
        try:
            for spec in job.calls:
                record = self.ask(job.key, spec)
                records.append(record)
                if not record.ok:
                    break
        finally:
            self.budget.release(len(job.calls) - len(records))
        return job.finish(tuple(records))

    # -- a run ------------------------------------------------------------------------------

    def run(self, jobs: Iterable[Job[R]], *, done: Collection[Hashable] = frozenset(),
            on_result: Callable[[R], object] | None = None,
            progress: Progress | None = None) -> RunSummary[R]:
        """Run ``jobs`` in the order given (the first ones get the budget first).

        Results must have ``ok`` (and may have ``conflicted``).  ``on_result`` and
        ``progress`` are called on this thread; an exception from ``on_result`` stops the run
        (calls in flight finish, their results are dropped) and is raised."""
        every = list(jobs)
        pending = [job for job in every if job.key not in done]
        summary: RunSummary[R] = RunSummary(total=len(pending), skipped=len(every) - len(pending))
        before = (self.calls, self.prompt_tokens, self.completion_tokens)
        if progress:
            progress(0, summary.total, 0)
        queue = iter(pending)
        held: Job[R] | None = None  # the next job, waiting for budget that calls may return
        in_flight: set[Future[R]] = set()
        with ThreadPoolExecutor(max_workers=self.concurrency,
                                thread_name_prefix="llm-judge") as pool:
            try:
                while True:
                    while len(in_flight) < self.concurrency and not self._stop.is_set():
                        job, held = held or next(queue, None), None
                        if job is None:
                            break
                        if not self.budget.claim(len(job.calls)):
                            held = job
                            break
                        in_flight.add(pool.submit(self._job, job))
                    if not in_flight:
                        break
                    finished, in_flight = wait(in_flight, return_when=FIRST_COMPLETED)
                    for future in finished:
                        result = future.result()
                        summary.results.append(result)
                        summary.finished += 1
                        summary.failures += not result.ok
                        summary.conflicts += bool(getattr(result, "conflicted", False))
                        if on_result:
                            on_result(result)
                        if progress:
                            progress(summary.finished, summary.total, summary.failures)
            except BaseException:
                self._stop.set()
                raise
        self._check_reachable()
        summary.unstarted = summary.total - summary.finished
        summary.budget_exhausted = held is not None or self._retry_refused
        summary.cancelled = self._stop.is_set()
        summary.calls = self.calls - before[0]
        summary.prompt_tokens = self.prompt_tokens - before[1]
        summary.completion_tokens = self.completion_tokens - before[2]
        if self.prices is not None:
            summary.cost = self.prices.cost(summary.prompt_tokens, summary.completion_tokens)
        return summary

