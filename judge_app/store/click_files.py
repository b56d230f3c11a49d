"""Click logs where they live: Parquet files read by DuckDB (or Spark) without a store, and
``sxs clicks convert``'s writer of that layout.

**The layout** (:func:`write_partitioned`): one row per UBI event (impressions included) with
the columns action, session_id, client_id, query_id (the log's search id), query (its text),
query_norm (:func:`judge_app.io.clicks.normalise_query` of the text, so engines match
dataset queries by text without Python), doc_id, position, rank (1-based), timestamp, and
the hive partition ``day=YYYY-MM-DD`` — the UTC day the event's *session began*
(:data:`SESSION_DAY`), so a session never spans two partitions and the engines may run the
per-session step one partition at a time; ``day=unknown`` without a timestamp — written by
DuckDB's ``COPY … (FORMAT parquet, PARTITION_BY (day))``.

**Reading** (:class:`DuckDBEngine`): ``source`` is a Parquet file, a glob
(``'logs/day=2026-11-*/*.parquet'``) or a folder (every ``*.parquet`` below it, hive
partitions read as columns, none under a ``.``- or ``_``-named folder such as a Spark
writer's ``_temporary/``: :func:`~judge_app.store.click_ndjson.visible_files`).
:func:`log_files` checks it before any figure: no file matches → one line naming the path; a
file missing a column of :data:`judge_app.store.click_plan.LOG_COLUMNS` (not the layout) or
holding no rows → one line naming the file.  The engine runs the plan of
:mod:`judge_app.store.click_plan` with a memory limit, spilling to ``temp_directory``; only
aggregates come back.

**UBI NDJSON in place**: a ``source`` naming NDJSON files (a file, a glob or a folder of
them: :func:`judge_app.store.click_ndjson.ndjson_files`) is checked
(:func:`~judge_app.store.click_ndjson.check_ndjson`) and read by DuckDB's ``read_json``
where it lies (:data:`judge_app.store.click_plan.DUCKDB_NDJSON`) — no conversion, no event
in Python — in one batch (NDJSON files promise no day partitions), within the same memory
limit and spilling.
"""

from __future__ import annotations

import glob
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import duckdb
import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.clicks import LAYOUT_COLUMNS
from judge_app.store.click_ndjson import NdjsonLog, check_ndjson, ndjson_files, visible_files
from judge_app.store.click_plan import DUCKDB, DUCKDB_NDJSON, LOG_COLUMNS, PlanDialect, Staged

DEFAULT_MEMORY_LIMIT = "2GB"
DEFAULT_BATCH_ROWS = 20_000_000
"""Events per batch of the partial step (whole partitions; see :class:`DuckDBEngine`)."""


def log_pattern(source: str | Path) -> str:
    """The glob a ``--from`` value stands for: a folder → every Parquet file below it."""
    text = str(source)
    if Path(text).is_dir():
        return str(Path(text) / "**" / "*.parquet")
    return text


def log_files(source: str | Path, progress: Callable[[str], None] | None = None
              ) -> tuple[str, list[str], dict[str, int]]:
    """(the glob, its files, the rows of each) after checking every file (see the module
    doc)."""
    pattern = log_pattern(source)
    files = (sorted(str(p) for p in visible_files(source) if p.suffix == ".parquet")
             if Path(str(source)).is_dir() else sorted(glob.glob(pattern, recursive=True)))
    if not files:
        raise SxsError(f"{source}: no click-log file found there (a Parquet or UBI NDJSON "
                       "file, a glob or a folder of them)")
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
    return pattern, files, rows


def batches(files: list[str], rows: dict[str, int], batch_rows: int) -> list[list[str]]:
    """The files in batches of whole partitions (the files of one folder, e.g. one
    ``day=…``), consecutive partitions joined while a batch holds under ``batch_rows``
    events; a partition bigger than that is a batch of its own."""
    partitions: dict[str, list[str]] = {}
    for name in files:
        partitions.setdefault(str(Path(name).parent), []).append(name)
    out: list[list[str]] = []
    held = 0
    for members in partitions.values():
        size = sum(rows.get(m, 0) for m in members)
        if out and held + size <= batch_rows:
            out[-1] += members
            held += size
        else:
            out.append(list(members))
            held = size
    return out


class DuckDBEngine:
    """An in-memory DuckDB over a log's files: :meth:`register` small frames (runs, weights,
    dataset queries), :meth:`run` a :class:`~judge_app.store.click_plan.Staged` plan.

    The partial step runs one batch of whole partitions at a time (:func:`batches`, up to
    ``batch_rows`` events unless one partition holds more) into the temporary table
    ``plan_partials``, and the finals run over that: memory is bounded by a batch, not the
    log, and time grows with the log's size.  Each batch is reported to ``progress``
    (partitions, files and events read so far)."""

    dialect: PlanDialect = DUCKDB

    def __init__(self, source: str | Path, memory_limit: str = DEFAULT_MEMORY_LIMIT,
                 temp_directory: str | Path | None = None,
                 progress: Callable[[str], None] | None = None,
                 batch_rows: int = DEFAULT_BATCH_ROWS) -> None:
        ndjson = ndjson_files(source)
        if ndjson is None:
            self.pattern, self.files, self.file_rows = log_files(source, progress)
            self.batches = batches(self.files, self.file_rows, batch_rows)
        self.progress = progress
        self._scratch = None if temp_directory is not None else tempfile.TemporaryDirectory(
            prefix="sxs-spill-")
        spill = str(temp_directory if temp_directory is not None else self._scratch.name)
        self.con = duckdb.connect(config={"memory_limit": memory_limit,
                                          "temp_directory": spill,
                                          "preserve_insertion_order": False})
        self.ndjson: NdjsonLog | None = None
        if ndjson is not None:
            try:
                self.ndjson = check_ndjson(ndjson, self.con, progress)
            except BaseException:
                self.close()
                raise
            self.dialect = DUCKDB_NDJSON
            self.pattern, self.files = str(source), ndjson
            self.file_rows = dict(self.ndjson.events)
            self.batches = [list(ndjson)]
        self.rows = sum(self.file_rows.values())

    def register(self, name: str, frame: pd.DataFrame) -> None:
        self.con.register(name, frame)

    def frame(self, sql: str, params: dict[str, object]) -> pd.DataFrame:
        return self.con.execute(sql, {**params, "log": self.files}).df()

    def run(self, plan: Staged, params: dict[str, object]) -> dict[str, pd.DataFrame]:
        """Every final of ``plan``, its partial step run batch by batch (see the class doc)."""
        read = files = 0
        self.con.execute("DROP TABLE IF EXISTS plan_partials")
        try:
            for number, batch in enumerate(self.batches, start=1):
                into = ("CREATE TEMP TABLE plan_partials AS" if number == 1
                        else "INSERT INTO plan_partials")
                self.con.execute(f"{into} {plan.partial}", {**params, "log": batch})
                read += sum(self.file_rows.get(name, 0) for name in batch)
                files += len(batch)
                if self.progress is not None and len(self.batches) > 1:
                    self.progress(f"batch {number}/{len(self.batches)}: {files:,} of "
                                  f"{len(self.files):,} file(s), {read:,} of {self.rows:,} "
                                  "events read")
            return {name: self.con.execute(plan.final(name, inline=False), {
                        k: v for k, v in params.items() if f"${k}" in plan.final(name, False)}
                    ).df() for name in plan.finals}
        finally:
            self.con.execute("DROP TABLE IF EXISTS plan_partials")

    def close(self) -> None:
        self.con.close()
        if self._scratch is not None:
            self._scratch.cleanup()

    def __enter__(self) -> DuckDBEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


SESSION_DAY = """COALESCE(strftime(timezone('UTC', CASE WHEN session_id IS NULL THEN timestamp
    ELSE MIN(timestamp) OVER (PARTITION BY session_id) END), '%Y-%m-%d'), 'unknown')"""
"""An event's partition: the UTC day its session began (its own day without a session;
``unknown`` without a timestamp), so no session spans two partitions."""


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
        selected = f"SELECT *, {SESSION_DAY} AS day FROM incoming_log"
        days = con.execute(f"SELECT day, COUNT(*) FROM ({selected}) GROUP BY day ORDER BY day"
                           ).fetchall()
        con.execute(f"COPY ({selected}) TO '{_literal(folder)}' "
                    "(FORMAT parquet, PARTITION_BY (day))")
    finally:
        con.close()
    return {str(day): int(n) for day, n in days}


def write_stream(chunks: Iterable[tuple[pd.DataFrame, pd.DataFrame]], out: str | Path,
                 progress: Callable[[str], None] | None = None,
                 memory_limit: str = DEFAULT_MEMORY_LIMIT) -> dict[str, int]:
    """:func:`write_partitioned` for a log read as a stream of (queries, events) chunks
    (:func:`judge_app.io.clicks.ubi_chunks`): each chunk goes to a scratch Parquet file as
    it comes, then one DuckDB ``COPY … PARTITION_BY (day)`` — within ``memory_limit``,
    spilling — gives an event without text the text of its query_id's queries when they
    agree on one (and its normalised form), puts every event in the UTC day its session
    began (:data:`SESSION_DAY`, by a GROUP BY and a join, which spill, not a window) and
    writes the layout.  Nothing is written under ``out`` before the last chunk was read
    and checked."""
    folder = Path(out)
    if folder.exists() and any(folder.iterdir()):
        raise SxsError(f"{folder}: the output folder is not empty")
    with tempfile.TemporaryDirectory(prefix="sxs-convert-") as scratch:
        parts = Path(scratch)
        read = 0
        for number, (queries, events) in enumerate(chunks):
            queries.to_parquet(parts / f"queries-{number:06d}.parquet", index=False)
            events.to_parquet(parts / f"events-{number:06d}.parquet", index=False)
            read += len(events)
            if progress is not None:
                progress(f"read {read:,} events")
        events_glob = str(parts / "events-*.parquet")
        columns = ", ".join(f"f.{c}" for c in LAYOUT_COLUMNS)
        selected = f"""WITH texts AS (
                SELECT query_id, MIN(query) AS query, MIN(query_norm) AS query_norm
                FROM read_parquet($queries)
                WHERE query_id IS NOT NULL AND query IS NOT NULL
                GROUP BY query_id HAVING COUNT(DISTINCT query) = 1),
            began AS (
                SELECT session_id, MIN(timestamp) AS began FROM read_parquet($events)
                WHERE session_id IS NOT NULL GROUP BY session_id),
            filled AS (
                SELECT e.* REPLACE (COALESCE(e.query, t.query) AS query,
                                    CASE WHEN e.query IS NULL THEN t.query_norm
                                         ELSE e.query_norm END AS query_norm)
                FROM read_parquet($events) e LEFT JOIN texts t
                  ON e.query IS NULL AND t.query_id = e.query_id)
            SELECT {columns}, COALESCE(strftime(timezone('UTC', COALESCE(b.began, f.timestamp)),
                                                '%Y-%m-%d'), 'unknown') AS day
            FROM filled f LEFT JOIN began b ON b.session_id = f.session_id"""
        con = duckdb.connect(config={"memory_limit": memory_limit,
                                     "temp_directory": str(parts / "spill"),
                                     "preserve_insertion_order": False})
        try:
            files = {"events": events_glob, "queries": str(parts / "queries-*.parquet")}
            days = con.execute(f"SELECT day, COUNT(*) FROM ({selected}) GROUP BY day "
                               "ORDER BY day", files).fetchall()
            folder.mkdir(parents=True, exist_ok=True)
            con.execute(f"COPY ({selected}) TO '{_literal(folder)}' "
                        "(FORMAT parquet, PARTITION_BY (day), OVERWRITE_OR_IGNORE true)", files)
        finally:
            con.close()
    return {str(day): int(n) for day, n in days}


def _literal(path: Path) -> str:
    """A path as the text of a SQL string literal (COPY takes no bound target)."""
    return str(path).replace("'", "''")
