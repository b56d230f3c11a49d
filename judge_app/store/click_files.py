"""Click logs where they live: Parquet files read by DuckDB (or Spark) without a store, and
``sxs clicks convert``'s writer of that layout.

**The layout** (:func:`write_partitioned`): one row per UBI event (impressions included) with
the columns action, session_id, client_id, query_id (the log's search id), query (its text),
query_norm (:func:`judge_app.io.clicks.normalise_query` of the text, so engines match
dataset queries by text without Python), doc_id, position, rank (1-based), timestamp, and
the hive partition ``day=YYYY-MM-DD`` (UTC; ``day=unknown`` without a timestamp), written by
DuckDB's ``COPY … (FORMAT parquet, PARTITION_BY (day))``.

**Reading** (:class:`DuckDBEngine`): ``source`` is a Parquet file, a glob
(``'logs/day=2026-11-*/*.parquet'``) or a folder (every ``*.parquet`` below it, hive
partitions read as columns).  :func:`log_files` checks it before any figure: no file
matches → one line naming the path; a file missing a column of
:data:`judge_app.store.click_plan.LOG_COLUMNS` (not the layout) or holding no rows → one line
naming the file.  The engine runs the plan of :mod:`judge_app.store.click_plan` with a memory
limit, spilling to ``temp_directory``; only aggregates come back.
"""

from __future__ import annotations

import glob
import tempfile
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.clicks import LAYOUT_COLUMNS
from judge_app.store.click_plan import DUCKDB, LOG_COLUMNS, PlanDialect

DEFAULT_MEMORY_LIMIT = "2GB"


def log_pattern(source: str | Path) -> str:
    """The glob a ``--from`` value stands for: a folder → every Parquet file below it."""
    text = str(source)
    if Path(text).is_dir():
        return str(Path(text) / "**" / "*.parquet")
    return text


def log_files(source: str | Path, progress: Callable[[str], None] | None = None
              ) -> tuple[str, list[str], int]:
    """(the glob, its files, rows in all) after checking every file (see the module doc)."""
    pattern = log_pattern(source)
    files = sorted(glob.glob(pattern, recursive=True))
    if not files:
        raise SxsError(f"{source}: no click-log file found there (a Parquet file, a glob or a "
                       "folder of them: sxs clicks convert LOG.ndjson OUT/ writes one)")
    con = duckdb.connect()
    try:
        try:
            counted = con.execute("""SELECT file_name, SUM(num_rows) FROM parquet_file_metadata($f)
                                     GROUP BY file_name""", {"f": files}).fetchall()
        except duckdb.Error as error:
            raise SxsError(f"{source}: not Parquet ({str(error).splitlines()[0]})") from None
        rows = {str(name): int(n or 0) for name, n in counted}
        for name in files:
            if rows.get(name, 0) == 0:
                raise SxsError(f"{name}: this partition holds no event")
            described = con.execute("DESCRIBE SELECT * FROM read_parquet($f)",
                                    {"f": name}).fetchall()
            missing = [c for c in LOG_COLUMNS if c not in {r[0] for r in described}]
            if missing:
                raise SxsError(f"{name}: not a UBI click log in sxs's layout (no column "
                               f"{', '.join(missing)}; sxs clicks convert writes one)")
    finally:
        con.close()
    total = sum(rows.values())
    if progress is not None:
        progress(f"reading {len(files):,} file(s), {total:,} events")
    return pattern, files, total


class DuckDBEngine:
    """An in-memory DuckDB over a log's files: :meth:`register` small frames (runs, weights,
    dataset queries), :meth:`frame` the plan's aggregates."""

    dialect: PlanDialect = DUCKDB

    def __init__(self, source: str | Path, memory_limit: str = DEFAULT_MEMORY_LIMIT,
                 temp_directory: str | Path | None = None,
                 progress: Callable[[str], None] | None = None) -> None:
        self.pattern, self.files, self.rows = log_files(source, progress)
        self._scratch = None if temp_directory is not None else tempfile.TemporaryDirectory(
            prefix="sxs-spill-")
        spill = str(temp_directory if temp_directory is not None else self._scratch.name)
        self.con = duckdb.connect(config={"memory_limit": memory_limit,
                                          "temp_directory": spill,
                                          "preserve_insertion_order": False})

    def register(self, name: str, frame: pd.DataFrame) -> None:
        self.con.register(name, frame)

    def frame(self, sql: str, params: dict[str, object]) -> pd.DataFrame:
        return self.con.execute(sql, {**params, "log": self.files}).df()

    def close(self) -> None:
        self.con.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    def __enter__(self) -> DuckDBEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def write_partitioned(frame: pd.DataFrame, out: str | Path) -> dict[str, int]:
    """Write a normalised log (:data:`LAYOUT_COLUMNS`) under ``out`` partitioned by UTC day;
    returns the rows written per day.  ``out`` must be empty or new (nothing is
    overwritten)."""
    folder = Path(out)
    if folder.exists() and any(folder.iterdir()):
        raise SxsError(f"{folder}: the output folder is not empty")
    folder.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect()
    try:
        con.register("incoming_log", frame[list(LAYOUT_COLUMNS)])
        selected = """SELECT *, COALESCE(strftime(timezone('UTC', timestamp), '%Y-%m-%d'),
                                          'unknown') AS day FROM incoming_log"""
        days = con.execute(f"SELECT day, COUNT(*) FROM ({selected}) GROUP BY day ORDER BY day"
                           ).fetchall()
        con.execute(f"COPY ({selected}) TO '{_literal(folder)}' "
                    "(FORMAT parquet, PARTITION_BY (day))")
    finally:
        con.close()
    return {str(day): int(n) for day, n in days}


def _literal(path: Path) -> str:
    """A path as the text of a SQL string literal (COPY takes no bound target)."""
    return str(path).replace("'", "''")
