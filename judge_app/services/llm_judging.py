"""The LLM judge as a use case: ask a model, store what it says as the judge ``llm:<model>``.

* :func:`grade` — the top k of the chosen runs that have no dataset grade (>= 0) and that this
  LLM has not graded, in the backfill order (:func:`~judge_app.services.queue.backfill_queue`:
  heaviest on the metric first), the pairs no expert labelled either (the missing labels)
  before those an expert did; graded on the dataset's own scale.  ``only_missing`` leaves the
  expert-labelled ones out (they are what the agreement figures stand on).
* :func:`prefer` — each query's two top-k lists (queries whose lists are identical left out,
  as on the judge page), in the judge page's queue order (lowest RBO first), asked in both
  side orders; a conflict between the two is stored as *About the same*.

Both resume: an item whose answer ``llm_calls`` already links to a stored label or vote (same
judge, same prompt version) is skipped, so a stopped run picks up where it ended and a failed
item is asked again.  What an ok call says goes in as the judge ``llm:<model>`` with its call
rows; a failed call stores its ``llm_calls`` row and nothing else.  The budget
(``max_calls``, retries included), concurrency, retries and timeout come from
:class:`LlmOptions`.  Needs the ``llm`` extra: :func:`require_llm_extra` says so in one line.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import Witness
from judge_app.services.judging import query_order
from judge_app.services.queue import backfill_queue, query_queue
from judge_app.store import Dataset, Store

if TYPE_CHECKING:
    from judge_app.llm import (
        ChatClient,
        Document,
        GradeResult,
        PreferenceResult,
        Runner,
        RunSummary,
    )

INSTALL_HINT = "the LLM judge needs the llm extra: pip install 'sxs[llm]'"
Progress = Callable[[int, int, int], None]  # (items finished, items to do, failed items)


def require_llm_extra() -> None:
    """Raise a one-line :class:`SxsError` when the ``llm`` extra (httpx) is missing."""
    if importlib.util.find_spec("httpx") is None:
        raise SxsError(INSTALL_HINT)


@dataclass(frozen=True)
class LlmOptions:
    """Where to ask and how hard: the endpoint, the model, the key's environment variable
    (its name, never the key), sampling, and the run's limits.  Prices are per 1,000
    tokens; without both, no cost is counted."""

    base_url: str
    model: str
    api_key_env: str | None = None
    temperature: float = 0.0
    concurrency: int = 4
    max_calls: int | None = None
    timeout_s: float = 60.0
    max_attempts: int = 5
    backoff_s: float = 1.0
    price_prompt: float | None = None
    price_completion: float | None = None
    seed: int = 0
    json_mode: bool = False

    @property
    def judge(self) -> str:
        """The judge everything this model says is stored under: ``llm:<model>``."""
        return f"{Witness.LLM.prefix}{self.model}"


class RunControl:
    """Stops a run from another thread (the app's stop button): :meth:`cancel` before the run
    starts or while it runs; no new item starts and waits between retries end."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runner: Runner | None = None
        self._cancelled = False

    def attach(self, runner: Runner) -> None:
        with self._lock:
            self._runner = runner
            if self._cancelled:
                runner.cancel()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            if self._runner is not None:
                self._runner.cancel()

    @property
    def cancelled(self) -> bool:
        return self._cancelled


@dataclass(frozen=True)
class LlmRun:
    """What one run did (the engine's :class:`~judge_app.llm.RunSummary` without the
    results): items to do, already answered before (skipped), finished, failed, never
    started (budget or cancel), position-bias conflicts, HTTP calls, tokens, cost."""

    judge: str
    task: str
    total: int
    skipped: int
    finished: int
    failures: int
    unstarted: int
    conflicts: int
    calls: int
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    budget_exhausted: bool
    cancelled: bool

    @classmethod
    def of(cls, judge: str, task: str, summary: RunSummary) -> LlmRun:
        return cls(judge, task, summary.total, summary.skipped, summary.finished,
                   summary.failures, summary.unstarted, summary.conflicts, summary.calls,
                   summary.prompt_tokens, summary.completion_tokens, summary.cost,
                   summary.budget_exhausted, summary.cancelled)

    def lines(self) -> list[str]:
        """The closing summary, one fact a line."""
        answered = self.finished - self.failures
        out = [f"{self.judge} {self.task}: {answered:,} answered, {self.failures:,} failed, "
               f"{self.unstarted:,} not started, {self.skipped:,} already done"]
        if self.task == "prefer":
            out.append(f"conflicts (the two side orders disagreed: position bias): "
                       f"{self.conflicts:,} of {answered:,}")
        cost = "n/a (no prices given)" if self.cost is None else f"{self.cost:.4f}"
        out.append(f"calls: {self.calls:,} · tokens: {self.prompt_tokens:,} prompt + "
                   f"{self.completion_tokens:,} completion · cost: {cost}")
        if self.budget_exhausted:
            out.append("stopped by --max-calls: run again to go on")
        if self.cancelled and not self.budget_exhausted:
            out.append("stopped before the end: run again to go on")
        return out


def _runner(options: LlmOptions, environ: Mapping[str, str] | None) -> tuple[ChatClient, Runner]:
    from judge_app.llm import ChatClient, Endpoint, Prices, RetryPolicy, Runner

    endpoint = Endpoint(options.base_url, options.model, api_key_env=options.api_key_env,
                        temperature=options.temperature, timeout_s=options.timeout_s,
                        json_mode=options.json_mode)
    priced = options.price_prompt is not None and options.price_completion is not None
    client = ChatClient(endpoint, environ=environ)
    runner = Runner(client, concurrency=options.concurrency, max_calls=options.max_calls,
                    retry=RetryPolicy(max_attempts=options.max_attempts,
                                      backoff_s=options.backoff_s),
                    prices=Prices(options.price_prompt, options.price_completion)
                    if priced else None, seed=options.seed)
    return client, runner


def _documents(store: Store, dataset: Dataset, doc_ids: list[str]) -> dict[str, Document]:
    """The documents as the LLM sees them (title and every field); a document missing from
    the catalogue shows its id as its title."""
    from judge_app.llm import Document

    found = store.documents(dataset, sorted(set(doc_ids)))
    docs = {row.doc_id: Document(row.doc_id, row.title or row.doc_id,
                                 {str(k): str(v) for k, v in row.fields.items()
                                  if v is not None})
            for row in found.itertuples(index=False)}
    return {doc_id: docs.get(doc_id) or Document(doc_id, doc_id) for doc_id in doc_ids}


def output_token(judge: str, key: tuple[str, ...], prompt_sha256: str) -> str:
    """The client token of the label or vote an answer produces: one per (judge, item,
    exact prompt), so asking the same again never stores twice."""
    text = "\x1f".join((judge, *key, prompt_sha256))
    return f"llm:{hashlib.sha256(text.encode()).hexdigest()}"


def grade_items(store: Store, dataset: Dataset, runs: list[str], k: int, judge: str,
                only_missing: bool = False) -> pd.DataFrame:
    """The (query_id, doc_id) pairs to grade, in order (weight, experts): the backfill queue
    of the runs' top k for ``judge``, pairs no expert labelled first."""
    if not runs:
        raise SxsError("choose at least one run whose top k to grade")
    if k < 1:
        raise SxsError(f"k must be at least 1; got {k}")
    queue = backfill_queue(store.backfill_candidates(dataset, runs, k, judge), k)
    if only_missing:
        queue = queue[queue["experts"] == 0]
    labelled = (queue["experts"] > 0).astype(int)
    return queue.iloc[labelled.argsort(kind="stable")].reset_index(drop=True)


def grade(store: Store, dataset: Dataset, runs: list[str], k: int, options: LlmOptions, *,
          only_missing: bool = False, progress: Progress | None = None,
          control: RunControl | None = None,
          environ: Mapping[str, str] | None = None) -> LlmRun:
    """Grade the runs' unlabelled top k with the LLM (see the module doc)."""
    require_llm_extra()
    from judge_app.llm import GRADE, GradeItem, grade_documents

    judge = options.judge
    pairs = grade_items(store, dataset, runs, k, judge, only_missing)
    texts = store.queries(dataset).set_index("query_id")["text"]
    docs = _documents(store, dataset, pairs["doc_id"].tolist())
    items = [GradeItem(str(q), str(texts.get(q, q)), docs[d])
             for q, d in zip(pairs["query_id"], pairs["doc_id"], strict=True)]
    done = store.llm_done(dataset, judge, "grade", GRADE.tag)

    def write(result: GradeResult) -> None:
        record = result.record
        store.add_llm_grade(dataset, record.row(), result.grade,
                            output_token(judge, result.item.key, record.prompt_sha256))

    client, runner = _runner(options, environ)
    with client:
        if control is not None:
            control.attach(runner)
        summary = grade_documents(runner, items, dataset.scale, done=done, on_result=write,
                                  progress=progress)
    return LlmRun.of(judge, "grade", summary)


def store_vote(store: Store, dataset: Dataset, result: PreferenceResult, k: int) -> None:
    """Write one preference result: an ok one as the judge's vote — a view of the query's
    two top-k lists drawn for the machine judge ``llm:<model>`` and the vote cast on it, as a
    person's is, the reason beside it — and its two call rows linked to it (by the view id);
    a failed one as its call rows only.  The one place an LLM vote is written."""
    rows = [record.row() for record in result.records]
    if not result.ok:
        store.add_llm_calls(dataset, rows)
        return
    item, first = result.item, result.records[0]
    left_run, choice = result.vote()
    store.machine_judge(first.judge)
    view = store.issue_view(dataset, item.query_id, item.run_a, item.run_b, left_run, k,
                            first.judge, blind=True)
    store.cast_vote(dataset, view.view_id, choice, first.judge, reason=result.reason)
    store.add_llm_calls(dataset, rows, view.view_id)


def prefer_queries(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int
                   ) -> list[str]:
    """The queries to ask about, in the judge page's order: lowest RBO@k between the two
    runs first, then the most unlabelled weight; identical top-k lists left out."""
    if run_a == run_b:
        raise SxsError("choose two different runs to compare")
    if k < 1:
        raise SxsError(f"k must be at least 1; got {k}")
    order = query_order(store, dataset, run_a, run_b, k)
    nobody = pd.DataFrame({"query_id": pd.Series(dtype=str), "judges": pd.Series(dtype=int),
                           "mine": pd.Series(dtype=bool)})
    return query_queue(order.rbo, order.weight, nobody, overlap=1,
                       identical=set(order.identical))


def prefer(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
           options: LlmOptions, *, progress: Progress | None = None,
           control: RunControl | None = None,
           environ: Mapping[str, str] | None = None) -> LlmRun:
    """Ask which of the two runs' top k serves each query better (see the module doc)."""
    require_llm_extra()
    from judge_app.llm import PREFER, PreferItem, prefer_rankings

    judge = options.judge
    queries = prefer_queries(store, dataset, run_a, run_b, k)
    tops = {run: store.run(dataset, run, depth=k) for run in (run_a, run_b)}
    docs = _documents(store, dataset, [d for top in tops.values() for d in top["doc_id"]])
    lists = {run: top.groupby("query_id")["doc_id"].agg(list) for run, top in tops.items()}
    texts = store.queries(dataset).set_index("query_id")["text"]
    items = [PreferItem(q, str(texts.get(q, q)), run_a, run_b,
                        [docs[d] for d in lists[run_a].get(q, [])],
                        [docs[d] for d in lists[run_b].get(q, [])]) for q in queries]
    done = store.llm_done(dataset, judge, "prefer", PREFER.tag)
    client, runner = _runner(options, environ)
    with client:
        if control is not None:
            control.attach(runner)
        summary = prefer_rankings(runner, items, seed=options.seed, done=done,
                                  on_result=lambda result: store_vote(store, dataset, result, k),
                                  progress=progress)
    return LlmRun.of(judge, "prefer", summary)
