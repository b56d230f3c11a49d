"""The store's click logs (migration ``0006_clicks``): imports, impressions and events.

A mixin :class:`~judge_app.store.Store` inherits; every write is one transaction, every value
a bound parameter.  Rows whose log query matched no dataset query are kept with ``query_id``
NULL, so what is stored counts what the file held; readers ask for ``matched_only`` rows
when they replay or grade.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store.backend import Backend
from judge_app.store.model import Dataset
from judge_app.store.run_load import run_row

LOG_COLUMNS = ("session_id", "client_id", "query_id", "log_query_id", "query_text", "doc_id",
               "position", "rank", "action", "timestamp", "line")
"""The columns of :meth:`ClickLogs.put_click_import`'s frames (query_id: the dataset's)."""
_TABLES = {"impressions": "click_impressions", "events": "click_events"}  # the whitelist
IMPORT_COUNTS = ("impressions", "events", "sessions", "sessions_matched", "log_queries",
                 "queries_matched")


def _rows(cur: Any, sql: str, params: list | dict) -> list[tuple]:
    return cur.execute(sql, params).fetchall()


class ClickLogs:
    """Click-log reads and writes (see the module doc)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def put_click_import(self, dataset: Dataset, *, source: str, fmt: str, digest: str,
                         counts: dict[str, int], match_report: dict[str, Any], weights: str,
                         impressions: pd.DataFrame, events: pd.DataFrame,
                         logged_run: str | None = None, run: pd.DataFrame | None = None,
                         replace: bool = False) -> int:
        """Store one click-log import: its record and every impression and event
        (:data:`LOG_COLUMNS`), and with ``logged_run`` the ``run`` rows (query_id, doc_id,
        rank: 1, 2, ... per query) as a run of that name — all in one transaction.
        ``counts`` names each of :data:`IMPORT_COUNTS`.  The same file (``digest``) twice in
        a dataset is refused, naming the earlier import; so is an existing run name without
        ``replace``.  Returns the new import id."""
        missing = [c for c in IMPORT_COUNTS if c not in counts]
        if missing:
            raise SxsError(f"a click import needs the counts {', '.join(missing)}")
        if (logged_run is None) != (run is None):
            raise SxsError("a logged run needs both a name and its rows")
        with self.backend.transaction() as cur:
            earlier = _rows(cur, """SELECT import_id, source FROM click_imports
                                    WHERE dataset_id = ? AND digest = ?""",
                            [dataset.dataset_id, digest])
            if earlier:
                raise SxsError(f"{source}: this click log is already in dataset "
                               f"{dataset.name!r} (import {earlier[0][0]} of {earlier[0][1]})")
            ((import_id,),) = _rows(cur, """
                INSERT INTO click_imports (dataset_id, source, format, digest, impressions,
                    events, sessions, sessions_matched, log_queries, queries_matched,
                    match_report, weights, logged_run)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING import_id""",
                [dataset.dataset_id, source, fmt, digest,
                 *(int(counts[c]) for c in IMPORT_COUNTS),
                 json.dumps(match_report, default=str), weights, logged_run])
            for name, frame in (("impressions", impressions), ("events", events)):
                rows = _log_rows(frame)
                cur.register("incoming_clicks", rows)
                cur.execute(f"""
                    INSERT INTO {_TABLES[name]} (import_id, dataset_id, {", ".join(LOG_COLUMNS)})
                    SELECT ?, ?, {", ".join(LOG_COLUMNS)} FROM incoming_clicks ORDER BY line""",
                            [import_id, dataset.dataset_id])
                cur.unregister("incoming_clicks")
            if logged_run is not None and run is not None:
                _write_logged_run(cur, dataset, logged_run, run, replace,
                                  f"click log {source} (import {import_id})")
        return int(import_id)

    def click_imports(self, dataset: Dataset) -> pd.DataFrame:
        """Every click-log import of the dataset, oldest first (import_id, source, format,
        digest, the counts, match_report as a dict, weights, logged_run, imported_at)."""
        frame = self.backend.frame(f"""
            SELECT import_id, source, format, digest, {", ".join(IMPORT_COUNTS)},
                   match_report, weights, logged_run, imported_at
            FROM click_imports WHERE dataset_id = ? ORDER BY import_id""", [dataset.dataset_id])
        frame["match_report"] = [json.loads(r) if isinstance(r, str) else r
                                 for r in frame["match_report"]]
        return frame

    def has_clicks(self, dataset: Dataset) -> bool:
        """Whether any click log was imported into the dataset."""
        return bool(_rows(self.backend.cursor(), "SELECT 1 FROM click_imports WHERE dataset_id = ? "
                                          "LIMIT 1", [dataset.dataset_id]))

    def click_rows(self, dataset: Dataset, kind: str, matched_only: bool = False,
                   import_ids: list[int] | None = None) -> pd.DataFrame:
        """The stored ``impressions`` or ``events`` (import_id and :data:`LOG_COLUMNS`), in
        import and line order; only rows whose query matched a dataset query with
        ``matched_only``; only the given imports with ``import_ids``."""
        if kind not in _TABLES:
            raise SxsError(f"click rows are {' or '.join(_TABLES)}; got {kind!r}")
        sql = (f"SELECT import_id, {', '.join(LOG_COLUMNS)} FROM {_TABLES[kind]} "
               "WHERE dataset_id = ?")
        params: list = [dataset.dataset_id]
        if matched_only:
            sql += " AND query_id IS NOT NULL"
        if import_ids is not None:
            sql += " AND list_contains(?, import_id)"
            params.append([int(i) for i in import_ids])
        frame = self.backend.frame(sql + " ORDER BY import_id, line", params)
        for column in ("position", "rank"):
            frame[column] = frame[column].astype("Int64")
        return frame

    def click_plan(self, dataset: Dataset, sql: str, tables: dict[str, pd.DataFrame],
                   params: dict[str, object]) -> pd.DataFrame:
        """Run one statement of :mod:`judge_app.store.click_plan` (written for
        :data:`~judge_app.store.click_plan.STORE`) over the dataset's stored click rows, with
        ``tables`` (runs, weights, click actions) registered for the statement; only its
        aggregates come back."""
        with self.backend.transaction() as cur:
            for name, frame in tables.items():
                cur.register(name, frame)
            try:
                return cur.execute(sql, {**params, "dataset": dataset.dataset_id}).df()
            finally:
                for name in tables:
                    cur.unregister(name)


def _write_logged_run(cur: Any, dataset: Dataset, name: str,
                      run: pd.DataFrame, replace: bool, source: str) -> None:
    """Write (or with ``replace`` overwrite) run ``name`` from query_id, doc_id, rank rows,
    inside the caller's transaction; the ranks must be 1, 2, ... within each query."""
    if not name.strip():  # before the ranks are checked (run_row says it too)
        raise SxsError("a run needs a name")
    rows = run[["query_id", "doc_id", "rank"]].astype({"query_id": str, "doc_id": str,
                                                       "rank": "int64"})
    ordered = rows.sort_values(["query_id", "rank"], kind="stable")
    counted = ordered.groupby("query_id", sort=False).cumcount().to_numpy() + 1
    if rows.duplicated(["query_id", "doc_id"]).any() or \
            not (ordered["rank"].to_numpy() == counted).all():
        raise SxsError(f"the logged run {name!r} needs ranks 1, 2, ... and each doc once "
                       "per query")
    run_id = run_row(cur, dataset, name, source, replace)
    cur.register("incoming_logged_run", rows)
    cur.execute("""INSERT INTO run_results SELECT ?, query_id, doc_id, rank, NULL
                   FROM incoming_logged_run ORDER BY query_id, rank""", [run_id])
    cur.unregister("incoming_logged_run")


def _log_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The frame's :data:`LOG_COLUMNS` with SQL-friendly types (text ids, Int64 ranks)."""
    missing = [c for c in LOG_COLUMNS if c not in frame.columns]
    if missing:
        raise SxsError(f"click rows are missing column(s) {', '.join(missing)}")
    rows = pd.DataFrame(index=frame.index)
    for column in ("session_id", "client_id", "query_id", "log_query_id", "query_text",
                   "doc_id", "action"):
        rows[column] = frame[column].astype("string").astype(object).where(
            frame[column].notna(), None)
    for column in ("position", "rank", "line"):
        rows[column] = frame[column].astype("Int64")
    stamps = frame["timestamp"]
    rows["timestamp"] = (pd.to_datetime(stamps, utc=True) if len(stamps)
                         else pd.Series([], dtype="datetime64[us, UTC]"))
    return rows[list(LOG_COLUMNS)].reset_index(drop=True)
