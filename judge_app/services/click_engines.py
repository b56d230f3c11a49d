"""Replay and COEC at production scale: one plan (:mod:`judge_app.store.click_plan`), three
engines, the same figures as :mod:`metrics.replay` / :mod:`metrics.coec`.

* ``store``: the plan over the click rows ``sxs import clicks`` stored;
* ``duckdb``: the plan over a converted log's Parquet files (``--from`` a file, a glob or a
  folder of day partitions) or over UBI NDJSON files read in place by ``read_json`` (a file,
  a glob or a folder of hive partitions: :mod:`judge_app.store.click_ndjson`), never
  loading events into pandas, within a memory limit and spilling to disk
  (:mod:`judge_app.store.click_files`);
* ``spark``: the same plan's Spark SQL over the same files (NDJSON by ``spark.read.json``;
  :mod:`judge_app.store.click_spark`, ``pip install 'sxs[spark]'``, ``--spark-master``,
  default ``local[*]``).

Runs, weights and the dataset's query keys are small and go to the engine as tables; only
per-query figures (replay) or per-pair counts (COEC) come back, and the paired tests
(randomization, bootstrap over queries) run on those in :func:`metrics.replay.replay_of_queries`.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.clicks import dataset_query_keys
from judge_app.store import Dataset, Store
from judge_app.store.click_plan import (
    STORE,
    PlanDialect,
    Staged,
    coec_plan,
    params,
    replay_plan,
)
from metrics.coec import ClickJudgments, judgments_of
from metrics.engagement import CLICK, DEFAULT_WEIGHTS, EngagementWeights
from metrics.replay import Replay, ReplayBasis, ranked_run, replay_of_queries, replay_settings

ENGINES = ("store", "duckdb", "spark")
DEFAULT_SPARK_MASTER = "local[*]"


class _StoreEngine:
    """The plan over a dataset's stored click rows."""

    dialect: PlanDialect = STORE

    def __init__(self, store: Store, dataset: Dataset) -> None:
        if not store.has_clicks(dataset):
            raise SxsError(f"dataset {dataset.name!r} has no click log (sxs import clicks FILE "
                           f"-d {dataset.name}, or read a converted log with --from)")
        self.store, self.dataset = store, dataset
        self.tables: dict[str, pd.DataFrame] = {}

    def register(self, name: str, frame: pd.DataFrame) -> None:
        self.tables[name] = frame

    def frame(self, sql: str, values: dict[str, object]) -> pd.DataFrame:
        return self.store.click_plan(self.dataset, sql, self.tables, values)

    def run(self, plan: Staged, values: dict[str, object]) -> dict[str, pd.DataFrame]:
        """Every final of ``plan``, its partial step inlined (the store's log is one batch)."""
        return {name: self.frame(plan.final(name, inline=True), values) for name in plan.finals}


def open_engine(store: Store, dataset: Dataset, engine: str, source: str | Path | None, *,
                spark_master: str = DEFAULT_SPARK_MASTER, memory_limit: str | None = None,
                progress: Callable[[str], None] | None = None, batch_rows: int | None = None
                ) -> AbstractContextManager[Any]:
    """The engine (a context manager) that reads the dataset's stored log (``source`` None,
    engine ``store``) or the log at ``source`` — a converted log's Parquet files (DuckDB:
    ``batch_rows`` events of whole partitions per batch of the partial step, default
    :data:`~judge_app.store.click_files.DEFAULT_BATCH_ROWS`), or UBI NDJSON files (bulk or
    plain, gzip or zstd or not: a file, a glob or a folder of them) read in place by the
    engine's own JSON reader (:mod:`judge_app.store.click_ndjson`).  Either way the events
    never enter pandas."""
    if engine not in ENGINES:
        raise SxsError(f"unknown engine {engine!r}; use one of {', '.join(ENGINES)}")
    if engine == "store":
        if source is not None:
            raise SxsError("--from reads a log's files with --engine duckdb or spark; the "
                           "store engine reads what sxs import clicks stored")
        return nullcontext(_StoreEngine(store, dataset))
    if source is None:
        raise SxsError(f"--engine {engine} reads a log's files (Parquet or UBI NDJSON): "
                       "pass --from")
    return _engine_over_files(engine, source, spark_master=spark_master,
                              memory_limit=memory_limit, progress=progress,
                              batch_rows=batch_rows)


def _engine_over_files(engine: str, source: str | Path, *, spark_master: str,
                       memory_limit: str | None, progress: Callable[[str], None] | None,
                       batch_rows: int | None) -> Any:
    if engine == "duckdb":
        from judge_app.store.click_files import (
            DEFAULT_BATCH_ROWS,
            DEFAULT_MEMORY_LIMIT,
            DuckDBEngine,
        )

        return DuckDBEngine(source, memory_limit or DEFAULT_MEMORY_LIMIT, progress=progress,
                            batch_rows=batch_rows or DEFAULT_BATCH_ROWS)
    from judge_app.store.click_spark import SparkEngine

    return SparkEngine(source, spark_master, progress=progress)


def _register_common(engine: Any, store: Store, dataset: Dataset) -> None:
    keys = dataset_query_keys(store.queries(dataset))
    engine.register("plan_query_ids", pd.DataFrame({"query_id": keys.ids.astype(str)}))
    engine.register("plan_query_texts", keys.texts.astype({"norm": str, "query_id": str}))
    engine.register("plan_click_actions", pd.DataFrame({"action": [CLICK]}))


def replay_with(engine: Any, store: Store, dataset: Dataset, run_a: str, run_b: str, *,
                depth: int | None = None, weights: EngagementWeights = DEFAULT_WEIGHTS,
                permutations: int = 10_000, seed: int = 0, tests: bool = True) -> Replay:
    """Replay run A against run B on ``engine``'s log (see the module doc): the figures of
    :func:`metrics.replay.replay` on the same log (its ``sessions`` and ``engagements``
    frames stay empty)."""
    _register_common(engine, store, dataset)
    for name, run in (("plan_run_a", run_a), ("plan_run_b", run_b)):
        engine.register(name, ranked_run(store.run(dataset, run)))
    engine.register("plan_weights", pd.DataFrame(
        {"action": [a for a, _ in weights.weights],
         "weight": [float(w) for _, w in weights.weights]}, columns=["action", "weight"]
    ).astype({"action": str, "weight": float}))
    values = {"depth": int(depth)} if depth is not None else {}
    figures = engine.run(replay_plan(engine.dialect, depth is not None),
                         params(engine.dialect, **values))["replay"]
    what = f"cannot replay {run_a!r} against {run_b!r} on dataset {dataset.name!r}"
    if figures.empty:
        raise SxsError(f"{what}: no engagement to replay: no event has an engaged action "
                       f"({weights.describe() or 'no weights'}) on a doc")
    answered = figures["answered"].astype(int) == 1
    per_query, skipped = figures[answered], figures[~answered]
    if per_query.empty:
        raise SxsError(f"{what}: no session to replay: neither run answers the queries of the "
                       f"{int(figures['engagements'].sum())} engagement(s)")
    basis = ReplayBasis(
        sessions=int(per_query["sessions"].sum()), queries=len(per_query),
        engagements=int(per_query["engagements"].sum()),
        censored_a=int(per_query["censored_a"].sum()),
        censored_b=int(per_query["censored_b"].sum()),
        skipped_sessions=int(skipped["sessions"].sum()), skipped_queries=len(skipped))
    return replay_of_queries(per_query, basis,
                             replay_settings(weights.describe(), depth, permutations, seed),
                             permutations=permutations, seed=seed, tests=tests)


def coec_with(engine: Any, store: Store, dataset: Dataset, min_impressions: int
              ) -> ClickJudgments:
    """COEC of every shown (query, doc) on ``engine``'s log: the figures of
    :func:`metrics.coec.coec` on the same log."""
    _register_common(engine, store, dataset)
    values = params(engine.dialect)
    found = engine.run(coec_plan(engine.dialect), values)
    pairs, curve, stats = found["pairs"], found["curve"], found["stats"].iloc[0]
    if pairs.empty:
        raise SxsError(f"dataset {dataset.name!r} has no impression matched to its queries: "
                       "COEC needs impressions")
    pairs = pairs.astype({"query_id": str, "doc_id": str})
    return judgments_of(pairs, curve.astype({"rank": "int64", "impressions": "int64",
                                             "clicks": "int64", "ctr": float}),
                        int(stats["clicks_off_curve"]), int(stats["clicks_unshown"]),
                        min_impressions=min_impressions)


def convert_log(path: str | Path, out: str | Path, fmt: str | None = None,
                first_position: int | None = None,
                progress: Callable[[str], None] | None = None,
                chunk: int | None = None) -> dict[str, int]:
    """Write a UBI (or table) click log as Parquet partitioned by the UTC day each session
    began under ``out`` (the layout of :mod:`judge_app.store.click_files`); returns the
    events written per day.  A UBI NDJSON file (bulk or plain, compressed or not) is
    streamed: read ``chunk`` documents at a time (:func:`judge_app.io.clicks.ubi_chunks`),
    never whole, and written by DuckDB (:func:`~judge_app.store.click_files.write_stream`).
    A JSON array or a table is read and checked whole by
    :func:`judge_app.io.clicks.read_clicks`.  Either way a bad line names file and line and
    nothing is written."""
    from judge_app.io.clicks import (
        STREAM_CHUNK,
        layout_frame,
        read_clicks,
        streams_as_ndjson,
        ubi_chunks,
    )
    from judge_app.store.click_files import write_partitioned, write_stream

    chunk = chunk or STREAM_CHUNK
    source = Path(path)
    if not source.is_file():
        raise SxsError(f"{source}: no such click-log file")
    if streams_as_ndjson(source, fmt):
        if progress is not None:
            progress(f"reading {source} as a stream")
        return write_stream(((c.queries, c.events) for c in ubi_chunks(
            source, first_position, chunk=chunk)), out, progress)
    if progress is not None:
        progress(f"reading {source}")
    frame = layout_frame(read_clicks(source, fmt, first_position))
    if progress is not None:
        progress(f"read {len(frame):,} events; writing Parquet by day to {out}")
    return write_partitioned(frame, out)
