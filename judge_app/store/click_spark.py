"""The click plan on Spark (``--engine spark``): the Spark SQL pieces of
:mod:`judge_app.store.click_plan` over a converted log's Parquet files.

The files are checked as for DuckDB (:func:`judge_app.store.click_files.log_files`: a wrong
path, a file not in the layout or with no rows → one line naming it) and read as the
temporary view ``log``; the small tables (runs, weights, dataset query keys) become
temporary views from pandas frames with an explicit schema.  Only aggregates come back
(``toPandas`` of the plan's result).  pyspark is the ``sxs[spark]`` extra and needs a Java
runtime; ``master`` is any Spark master URL (``local[*]`` by default, a cluster's
``spark://…`` or ``yarn`` for a data lake).  A session the process already has (e.g. a
notebook on a cluster) is reused.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store.click_files import log_files
from judge_app.store.click_plan import SPARK, PlanDialect, Staged


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


class SparkEngine:
    """A Spark session over a log's files (the interface of
    :class:`judge_app.store.click_files.DuckDBEngine`)."""

    dialect: PlanDialect = SPARK

    def __init__(self, source: str | Path, master: str = "local[*]",
                 progress: Callable[[str], None] | None = None) -> None:
        reason = spark_missing()
        if reason is not None:
            raise SxsError(reason)
        from pyspark.sql import SparkSession

        self.pattern, self.files, file_rows = log_files(source, progress)
        self.rows = sum(file_rows.values())
        if progress is not None:
            progress(f"starting Spark ({master})")
        builder = (SparkSession.builder.master(master).appName("sxs-clicks")
                   .config("spark.ui.enabled", "false")
                   .config("spark.ui.showConsoleProgress", "false")
                   .config("spark.sql.session.timeZone", "UTC"))
        if master.startswith("local"):
            # one machine: few shuffle partitions, and a driver (which is also the executor)
            # with room to broadcast the runs (20k queries x depth 100 outgrow the 1g default)
            builder = (builder.config("spark.sql.shuffle.partitions", "2")
                       .config("spark.driver.memory", "2g"))
        self.spark: Any = builder.getOrCreate()
        self.spark.sparkContext.setLogLevel("ERROR")
        self.views: list[str] = []
        self._scratch = tempfile.TemporaryDirectory(prefix="sxs-spark-")
        self.spark.read.parquet(*self.files).createOrReplaceTempView("log")
        self.views.append("log")

    def register(self, name: str, frame: pd.DataFrame) -> None:
        """A temporary view of ``frame``, handed over as a Parquet file (a run of 20k queries
        x depth 100 is 2M rows: too many to send row by row through py4j)."""
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
        and spills the whole log itself."""
        return {name: self.frame(plan.final(name, inline=True), params) for name in plan.finals}

    def close(self) -> None:
        for name in self.views:
            self.spark.catalog.dropTempView(name)
        self._scratch.cleanup()

    def __enter__(self) -> SparkEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
