"""The click plan on Spark (``--engine spark``): the Spark SQL pieces of
:mod:`judge_app.store.click_plan` over a converted log's Parquet files.

The files are checked as for DuckDB (:func:`judge_app.store.click_files.log_files`: a wrong
path, a file not in the layout or with no rows → one line naming it) and read as the
temporary view ``log``; the small tables (runs, weights, dataset query keys) become
temporary views from pandas frames with an explicit schema. Only aggregates come back
(``toPandas`` of the plan's result). UBI NDJSON (a file, a glob or a folder of them) is
checked by DuckDB as for the DuckDB engine
(:func:`judge_app.store.click_ndjson.check_ndjson`; of its query texts only those a dataset
query matches reach Spark) and read in place by ``spark.read.json`` with :data:`UBI_SCHEMA`
as the view ``ubi_documents``, whose log rows
(:func:`judge_app.store.click_plan.ubi_log_select` of
:data:`~judge_app.store.click_plan.SPARK_NDJSON`) are the view ``log`` the plan reads; a
plan of several finals (COEC) persists them (memory, then disk) while it runs, so the JSON
is parsed once for all of them — a replay (one final) does not: caching would cost more than
it saves (1M sessions in one gzip file: 116 s cached, 62 s not). gzip and zstd are
decompressed by Spark itself. pyspark is the ``sxs[spark]`` extra and needs a Java runtime;
``master`` is any Spark master URL (``local[*]`` by default, a cluster's ``spark://…`` or
``yarn`` for a data lake). A session the process already has (e.g. a notebook on a cluster)
is reused.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store.click_files import DEFAULT_MEMORY_LIMIT, log_files
from judge_app.store.click_ndjson import check_ndjson, dataset_matches, ndjson_files
from judge_app.store.click_plan import (
    SPARK,
    SPARK_NDJSON,
    PlanDialect,
    Staged,
    ubi_log_select,
    ubi_params,
)

UBI_SCHEMA = ("action_name string, query_id string, user_query string, session_id string, "
              "client_id string, event_attributes struct<session_id: string, "
              "object: struct<object_id: string>, position: struct<ordinal: string>>")
"""What ``spark.read.json`` reads of a UBI line: every leaf a string — a number keeps its
JSON text, as DuckDB's ``json_extract_string`` and :func:`judge_app.io.clicks._text` give
it; a bulk action line reads as all nulls."""


def spark_missing() -> str | None:
    """Why Spark cannot run here (no pyspark, no Java), or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "--engine spark needs pyspark: pip install 'sxs[spark]'"
    if shutil.which("java") is None:
        return "--engine spark needs a Java runtime (java on PATH; e.g. openjdk-17-jre-headless)"
    return None


def _spark_type(series: pd.Series) -> str:
    if pd.api.types.is_integer_dtype(series):
        return "bigint"
    if pd.api.types.is_float_dtype(series):
        return "double"
    return "string"


def local_cores(master: str) -> int | None:
    """The cores a ``local`` master uses (``local`` 1, ``local[N]`` N, ``local[*]`` all of
    the machine's), or None for a cluster master."""
    if master == "local":
        return 1
    if not master.startswith("local["):
        return None
    inner = master[len("local["):].split("]")[0].split(",")[0]
    return (os.cpu_count() or 1) if inner == "*" else max(1, int(inner))


def session_config(master: str) -> dict[str, str]:
    """The settings of the session :func:`spark_session` builds.

    Everywhere: no UI or console progress bar, UTC, adaptive query execution (re-plans
    joins and coalesces small shuffle partitions once their sizes are known) and the
    Kryo serializer.  The log's columns need no setting: Spark reads only the Parquet
    columns the plan names, and the small tables (dataset query keys, weights, runs) are
    broadcast — the broadcast threshold is raised to 64 MB so a run of 20k queries x depth
    100 (2M rows, ~8 MB of Parquet) is never shuffled.

    On a ``local`` master the driver is also the executor: shuffle partitions and the
    splits the log's files are read in are sized to the cores (4 a core: enough to keep
    every core busy to the end and a task's hash table small, where the default 200
    shuffle partitions are mostly task overhead on one machine, and the default splits of
    128 MB leave a core idle while the last one is read), the driver gets 2 GB (room
    for the broadcast runs and the per-session hash aggregate) and the JVM the
    throughput (parallel) collector, made for batch work."""
    config = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
              "spark.sql.session.timeZone": "UTC",
              "spark.sql.adaptive.enabled": "true",
              "spark.sql.adaptive.coalescePartitions.enabled": "true",
              "spark.sql.autoBroadcastJoinThreshold": str(64 * 1024 * 1024),
              "spark.serializer": "org.apache.spark.serializer.KryoSerializer"}
    cores = local_cores(master)
    if cores is not None:
        config |= {"spark.sql.shuffle.partitions": str(4 * cores),
                   "spark.sql.files.minPartitionNum": str(4 * cores),
                   "spark.default.parallelism": str(cores),
                   "spark.driver.memory": "2g",
                   "spark.driver.extraJavaOptions": "-XX:+UseParallelGC"}
    return config


def spark_session(master: str = "local[*]", app: str = "sxs-clicks") -> Any:
    """The Spark session of ``master`` with :func:`session_config` (a session the process
    already has is reused: its static settings, e.g. the driver's memory, stay as they
    were)."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.master(master).appName(app)
    for key, value in session_config(master).items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


class SparkEngine:
    """A Spark session over a log's files (the interface of
    :class:`judge_app.store.click_files.DuckDBEngine`)."""

    dialect: PlanDialect = SPARK

    def __init__(self, source: str | Path, master: str = "local[*]",
                 progress: Callable[[str], None] | None = None) -> None:
        reason = spark_missing()
        if reason is not None:
            raise SxsError(reason)

        ndjson = ndjson_files(source)
        self.from_json = ndjson is not None
        self._check: Any = None  # NDJSON: the DuckDB of the check, holding plan_query_norms
        self._check_spill: Any = None
        if ndjson is None:
            self.pattern, self.files, file_rows = log_files(source, progress)
        else:
            import duckdb

            self._check_spill = tempfile.TemporaryDirectory(prefix="sxs-check-")
            self._check = duckdb.connect(config={"memory_limit": DEFAULT_MEMORY_LIMIT,
                                                 "temp_directory": self._check_spill.name,
                                                 "preserve_insertion_order": False})
            try:
                checked = check_ndjson(ndjson, self._check, progress)
            except BaseException:
                self._close_check()
                raise
            self.pattern, self.files, file_rows = str(source), ndjson, checked.events
        self.rows = sum(file_rows.values())
        if progress is not None:
            progress(f"starting Spark ({master})")
        self.spark: Any = spark_session(master)
        self.views: list[str] = []
        self._scratch = tempfile.TemporaryDirectory(prefix="sxs-spark-")
        self._log: Any = None
        if not self.from_json:
            self._log = self.spark.read.parquet(*self.files)
            self._log.createOrReplaceTempView("log")
            self.views.append("log")
        else:
            documents = self.spark.read.schema(UBI_SCHEMA).json(self.files)
            documents.createOrReplaceTempView("ubi_documents")
            self.views.append("ubi_documents")  # the view log comes with plan_query_texts

    def register(self, name: str, frame: pd.DataFrame) -> None:
        """A temporary view of ``frame``, handed over as a Parquet file (a run of 20k queries
        x depth 100 is 2M rows: too many to send row by row through py4j).  Over NDJSON,
        the dataset's ``plan_query_texts`` also brings ``plan_query_norms``: the check's
        (text, norm) rows of those texts only (:func:`~judge_app.store.click_ndjson.
        dataset_matches`), and the view ``log`` is read anew over them."""
        self._view(name, frame)
        if name == "plan_query_texts" and self._check is not None:
            self._view("plan_query_norms", dataset_matches(self._check, frame))
            self._log = self.spark.sql(ubi_log_select(SPARK_NDJSON), args=ubi_params())
            self._log.createOrReplaceTempView("log")
            self.views.append("log")

    def _view(self, name: str, frame: pd.DataFrame) -> None:
        schema = ", ".join(f"`{c}` {_spark_type(frame[c])}" for c in frame.columns)
        path = Path(self._scratch.name) / f"{name}.parquet"
        typed = frame.astype({c: ("int64" if _spark_type(frame[c]) == "bigint" else
                                  float if _spark_type(frame[c]) == "double" else "string")
                              for c in frame.columns})
        typed.to_parquet(path, index=False)
        self.spark.read.schema(schema).parquet(str(path)).createOrReplaceTempView(name)
        self.views.append(name)

    def frame(self, sql: str, params: dict[str, object]) -> pd.DataFrame:
        return self.spark.sql(sql, args=params).toPandas()

    def run(self, plan: Staged, params: dict[str, object]) -> dict[str, pd.DataFrame]:
        """Every final of ``plan`` with its partial step inlined: Spark partitions, shuffles
        and spills the whole log itself.  For a plan grouped by session first (replay) the
        log is hash-partitioned by session once: the per-(session, query, doc) and
        per-(session, query) aggregates then need no shuffle of their own (one exchange of
        the needed columns of the matched rows instead of two, and no map-side partial
        aggregation over keys that are nearly all distinct)."""
        if self._log is None:
            raise SxsError("the dataset's query texts (plan_query_texts) are registered "
                           "before a plan runs over UBI NDJSON")
        log = self._log.repartition("session_id") if plan.by_session else self._log
        cached = self.from_json and len(plan.finals) > 1
        if cached:
            log = log.persist()
        log.createOrReplaceTempView("log")
        try:
            return {name: self.frame(plan.final(name, inline=True), params)
                    for name in plan.finals}
        finally:
            if cached:
                log.unpersist()

    def _close_check(self) -> None:
        if self._check is not None:
            self._check.close()
            self._check = None
        if self._check_spill is not None:
            self._check_spill.cleanup()
            self._check_spill = None

    def close(self) -> None:
        for name in dict.fromkeys(self.views):
            self.spark.catalog.dropTempView(name)
        self._scratch.cleanup()
        self._close_check()

    def __enter__(self) -> SparkEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
