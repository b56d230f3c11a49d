"""The LLM judge: ``sxs llm-judge grade`` and ``sxs llm-judge prefer``.

Any OpenAI-compatible chat-completions endpoint; the API key stays in the environment and
only its variable's name is given (``--api-key-env``).  Everything the model says is stored as
the judge ``llm:<model>`` with one provenance row per call; a run stopped by ``--max-calls``
(or Ctrl-C) picks up where it ended.  Needs the ``llm`` extra.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from judge_app.cli.base import dataset_option, db_option, friendly, main, open_store

if TYPE_CHECKING:
    from judge_app.services.llm_judging import LlmOptions, LlmRun


def endpoint_options(fn: Callable) -> Callable:
    """The options both commands share: the endpoint, the model, the key, the limits."""
    options = [
        click.option("--base-url", required=True,
                     help="The endpoint's base URL, before /chat/completions (e.g. "
                          "https://api.openai.com/v1, http://127.0.0.1:11434/v1)."),
        click.option("--model", required=True, help="The model to ask; answers are stored "
                                                     "as the judge llm:<model>."),
        click.option("--api-key-env", default=None, metavar="NAME",
                     help="The environment variable holding the API key (its name, not the "
                          "key); leave out for a local server without a key."),
        click.option("--temperature", type=float, default=0.0, show_default=True),
        click.option("--concurrency", type=click.IntRange(min=1), default=4,
                     show_default=True, help="Requests in flight at once."),
        click.option("--max-calls", type=click.IntRange(min=0), default=None,
                     help="Stop after this many HTTP requests, retries included (the "
                          "budget); run again to go on."),
        click.option("--timeout", type=float, default=60.0, show_default=True,
                     help="Seconds each call may take in all: connecting, sending and "
                          "reading the whole answer."),
        click.option("--retries", type=click.IntRange(min=0), default=4, show_default=True,
                     help="Retries of a call on 429, 5xx, timeouts (with backoff).  An "
                          "endpoint that refuses 3 connections in a row stops the run."),
        click.option("--price-prompt", type=float, default=None,
                     help="Price per 1,000 prompt tokens, to count the cost."),
        click.option("--price-completion", type=float, default=None,
                     help="Price per 1,000 completion tokens."),
        click.option("--seed", type=int, default=0, show_default=True,
                     help="Seeds which side order is asked first, and retry jitter."),
        click.option("--json-mode", is_flag=True,
                     help="Ask for response_format json_object (servers that support it)."),
    ]
    for option in (friendly, db_option, *reversed(options)):
        fn = option(fn)
    return fn


def _options(base_url: str, model: str, api_key_env: str | None, temperature: float,
             concurrency: int, max_calls: int | None, timeout: float, retries: int,
             price_prompt: float | None, price_completion: float | None, seed: int,
             json_mode: bool) -> LlmOptions:
    from judge_app.services.llm_judging import LlmOptions, require_llm_extra

    require_llm_extra()
    if (price_prompt is None) != (price_completion is None):
        raise click.UsageError("give both --price-prompt and --price-completion, or neither")
    return LlmOptions(base_url, model, api_key_env=api_key_env, temperature=temperature,
                      concurrency=concurrency, max_calls=max_calls, timeout_s=timeout,
                      max_attempts=retries + 1, price_prompt=price_prompt,
                      price_completion=price_completion, seed=seed, json_mode=json_mode)


def _run_with_bar(label: str, work: Callable[[Callable[[int, int, int], None]], LlmRun]
                  ) -> LlmRun:
    """Run ``work(progress)`` under a click progress bar on stderr when stderr is a terminal
    (in a script or CI log only the summary and errors are printed); print the summary."""
    state: dict[str, Any] = {"bar": None, "shown": 0}
    show_bar = sys.stderr.isatty()

    def progress(finished: int, total: int, failures: int) -> None:
        if not show_bar:
            return
        bar = state["bar"]
        if bar is None:
            bar = click.progressbar(length=max(total, 1), label=label, file=sys.stderr,
                                    show_pos=True)
            bar.__enter__()
            state["bar"] = bar
        bar.update(finished - state["shown"])
        state["shown"] = finished

    try:
        run = work(progress)
    finally:
        if state["bar"] is not None:
            state["bar"].__exit__(None, None, None)
    for line in run.lines():
        click.echo(line)
    return run


@main.group("llm-judge")
def llm_judge() -> None:
    """Ask an LLM the experts' questions; stored as the judge llm:<model>.

    Any OpenAI-compatible chat-completions endpoint (OpenAI and other hosted APIs, or a local
    llama.cpp, vLLM or Ollama server).  Install with: pip install 'sxs[llm]'
    """


@llm_judge.command("grade")
@dataset_option
@click.option("--run", "runs", multiple=True, required=True,
              help="Run whose top k to grade (repeatable).")
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True)
@click.option("--only-missing", is_flag=True,
              help="Skip results an expert already graded (by default they come last, "
                   "for the agreement figures).")
@endpoint_options
def grade_command(dataset: str, runs: tuple[str, ...], k: int, only_missing: bool,
                  db: Path | None, **endpoint: Any) -> None:
    """Grade the unlabelled top-k results on the dataset's scale, heaviest on the metric
    first (the backfill order).

    Example: sxs llm-judge grade -d shop --run bm25 --run title -k 10
    --base-url http://127.0.0.1:11434/v1 --model qwen2.5:7b-instruct
    """
    options = _options(**endpoint)
    from judge_app.services import llm_judging

    with open_store(db) as store:
        found = store.dataset(dataset)
        _run_with_bar(f"{options.judge} grading", lambda progress: llm_judging.grade(
            store, found, list(runs), k, options, only_missing=only_missing,
            progress=progress))


@llm_judge.command("prefer")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("-k", "k", type=click.IntRange(min=1), default=10, show_default=True)
@endpoint_options
def prefer_command(run_a: str, run_b: str, dataset: str, k: int, db: Path | None,
                   **endpoint: Any) -> None:
    """Ask which run's top k serves each query better, in both side orders; a query whose
    two answers disagree (position bias) is stored as about the same.

    Example: sxs llm-judge prefer bm25 title -d shop -k 10
    --base-url https://api.openai.com/v1 --model gpt-4o-mini --api-key-env OPENAI_API_KEY
    """
    options = _options(**endpoint)
    from judge_app.services import llm_judging

    with open_store(db) as store:
        found = store.dataset(dataset)
        _run_with_bar(f"{options.judge} {run_a} vs {run_b}", lambda progress: llm_judging.prefer(
            store, found, run_a, run_b, k, options, progress=progress))
