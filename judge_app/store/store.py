"""The Store: every read and write of the DuckDB file, and the only place with SQL.

* One connection per process; each thread gets its own cursor (a DuckDB connection is not
  thread-safe), and all writes go through one lock, one transaction each.
* Expert labels and preferences are append-only history: a re-grade adds a row and the current
  label per (judge, query, doc) is the latest.  Nothing here updates or deletes them.
* Every app write carries a client token; writing the same token twice is a no-op, so a double
  submit stores one row.
* A second process opening the same file gets :class:`~judge_app.errors.StoreLocked` naming the
  file; the first keeps working.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import duckdb
import pandas as pd

from judge_app.errors import (
    NotFound,
    SchemaTooNew,
    StoreLocked,
    SxsError,
)
from judge_app.io.trec import TrecFile
from judge_app.store import bulk_load
from judge_app.store.migrations import apply_migrations
from judge_app.store.serving import check_not_served
from metrics.scale import GradeScale

DEFAULT_DB = "sxs.duckdb"


def default_db_path() -> Path:
    """``$SXS_DB`` if set, else ``./sxs.duckdb``."""
    return Path(os.environ.get("SXS_DB", DEFAULT_DB))


class LabelPolicy(StrEnum):
    """How expert labels and dataset judgments combine into the filled label set.

    * ``median`` (default): the lower median of each judge's latest grade overrides the
      dataset's grade (lower median: an actual grade on the ordinal scale, never x.5).
    * ``latest``: the most recent expert grade of any judge overrides the dataset's grade.
    * ``dataset_first``: the dataset's grade stands; expert labels (lower median) only fill
      the (query, doc) pairs the dataset did not judge.
    """

    MEDIAN = "median"
    LATEST = "latest"
    DATASET_FIRST = "dataset_first"


@dataclass(frozen=True)
class Dataset:
    dataset_id: int
    name: str
    scale: GradeScale


class Store:
    """An open sxs store file."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        check_not_served(self.path)
        try:
            self._con = duckdb.connect(str(self.path), read_only=read_only)
        except duckdb.IOException as error:
            if "lock" in str(error).lower():
                raise StoreLocked(f"{self.path} is in use by another sxs process; close it "
                                  "or point --db / SXS_DB at another file") from None
            raise SxsError(f"cannot open {self.path}: {error}") from None
        except duckdb.Error as error:
            raise SxsError(f"{self.path} is not an sxs store: {error}") from None
        self._write_lock = threading.Lock()
        self._local = threading.local()
        try:
            if not read_only:
                apply_migrations(self._con, str(self.path))
        except SchemaTooNew:
            self._con.close()
            raise

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------------

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._con.cursor()
            self._local.cursor = cursor
        return cursor

    @contextmanager
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        with self._write_lock:
            cur = self._cursor()
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
                cur.execute("COMMIT")
            except BaseException:
                cur.execute("ROLLBACK")
                raise

    def _frame(self, sql: str, params: list | dict | None = None) -> pd.DataFrame:
        return self._cursor().execute(sql, params or []).df()

    def migrations(self) -> list[str]:
        """Names of the schema migrations this store has, in order applied."""
        rows = self._cursor().execute(
            "SELECT name FROM sxs_migrations ORDER BY applied_at, name").fetchall()
        return [r[0] for r in rows]

    # -- datasets ---------------------------------------------------------------------------

    def create_dataset(self, name: str, scale: GradeScale) -> Dataset:
        """Create a dataset with its grade scale; the same name and scale again is a no-op."""
        if not name.strip():
            raise SxsError("a dataset needs a name")
        existing = self.find_dataset(name)
        if existing is not None:
            if existing.scale != scale:
                raise SxsError(f"dataset {name!r} exists with scale {existing.scale.describe()}"
                               f", not {scale.describe()}")
            return existing
        with self._transaction() as cur:
            (dataset_id,) = _one(
                cur, "INSERT INTO datasets (name) VALUES (?) RETURNING dataset_id", [name])
            cur.executemany("INSERT INTO grade_scale VALUES (?, ?, ?)",
                            [[dataset_id, grade, label] for grade, label in scale.grades])
        return Dataset(dataset_id, name, scale)

    def find_dataset(self, name: str) -> Dataset | None:
        row = _one(self._cursor(), "SELECT dataset_id FROM datasets WHERE name = ?", [name])
        if row is None:
            return None
        grades = self._cursor().execute(
            "SELECT grade, name FROM grade_scale WHERE dataset_id = ? ORDER BY grade",
            [row[0]]).fetchall()
        return Dataset(row[0], name, GradeScale(tuple((g, n) for g, n in grades)))

    def dataset(self, name: str) -> Dataset:
        found = self.find_dataset(name)
        if found is None:
            known = ", ".join(self.dataset_names()) or "none yet"
            raise NotFound(f"no dataset {name!r} in {self.path} (datasets: {known})")
        return found

    def dataset_names(self) -> list[str]:
        rows = self._cursor().execute("SELECT name FROM datasets ORDER BY name").fetchall()
        return [r[0] for r in rows]

    # -- reference data: queries and documents ----------------------------------------------

    def put_queries(self, dataset: Dataset, frame: pd.DataFrame) -> int:
        """Insert or update queries (query_id, text); returns how many rows were written."""
        rows = frame[["query_id", "text"]]
        with self._transaction() as cur:
            cur.register("incoming_queries", rows)
            cur.execute("""
                INSERT INTO queries SELECT ?, query_id, text FROM incoming_queries
                ON CONFLICT (dataset_id, query_id) DO UPDATE SET text = excluded.text""",
                        [dataset.dataset_id])
            cur.unregister("incoming_queries")
        return len(rows)

    def put_documents(self, dataset: Dataset, frame: pd.DataFrame) -> int:
        """Insert or update documents (doc_id, title, other columns kept as JSON fields)."""
        extra = [c for c in frame.columns if c not in ("doc_id", "title")]
        rows = pd.DataFrame({
            "doc_id": frame["doc_id"],
            "title": frame["title"] if "title" in frame.columns else None,
            "fields": _fields_json(frame[extra]) if extra else None,
        })
        with self._transaction() as cur:
            cur.register("incoming_docs", rows)
            cur.execute("""
                INSERT INTO documents
                SELECT ?, doc_id, title, CAST(fields AS JSON) FROM incoming_docs
                ON CONFLICT (dataset_id, doc_id)
                DO UPDATE SET title = excluded.title, fields = excluded.fields""",
                        [dataset.dataset_id])
            cur.unregister("incoming_docs")
        return len(rows)

    def queries(self, dataset: Dataset) -> pd.DataFrame:
        return self._frame("SELECT query_id, text FROM queries WHERE dataset_id = ? "
                           "ORDER BY query_id", [dataset.dataset_id])

    def documents(self, dataset: Dataset, doc_ids: list[str] | None = None) -> pd.DataFrame:
        """Documents (doc_id, title, fields as a dict), all or the given ids."""
        sql = "SELECT doc_id, title, fields FROM documents WHERE dataset_id = ?"
        params: list = [dataset.dataset_id]
        if doc_ids is not None:
            sql += " AND list_contains(?, doc_id)"
            params.append(list(doc_ids))
        frame = self._frame(sql + " ORDER BY doc_id", params)
        frame["fields"] = [json.loads(f) if isinstance(f, str) else {} for f in frame["fields"]]
        return frame

    # -- dataset judgments ------------------------------------------------------------------

    def put_judgments(self, dataset: Dataset, frame: pd.DataFrame, source: str,
                      on_conflict: str = "error") -> int:
        """Add judgments (query_id, doc_id, grade); one transaction, all or nothing.

        A pair the store already judges with another grade is a conflict: ``error`` (default)
        names it and stores nothing; ``max``/``min`` keep the larger/smaller grade; ``last``
        keeps the incoming one.  Returns the number of rows written.
        """
        if on_conflict not in ("error", "max", "min", "last"):
            raise SxsError(f"on_conflict must be error, max, min or last; got {on_conflict!r}")
        rows = frame[["query_id", "doc_id", "grade"]]
        with self._transaction() as cur:
            cur.register("incoming_judgments", rows)
            bulk_load.store_staged_judgments(cur, dataset, source, on_conflict)
            cur.unregister("incoming_judgments")
        return len(rows)

    def import_trec_qrels(self, dataset: Dataset, trec: TrecFile, on_conflict: str = "error"
                          ) -> bulk_load.QrelsLoad:
        """Load TREC qrels or a SMART relevance file, parsed by DuckDB: whole-number grades on
        the dataset's scale, identical repeated lines merged, differing ones by
        ``on_conflict`` (in the file, then against the store, as :meth:`put_judgments`)."""
        return bulk_load.load_qrels(self._transaction, dataset, trec, on_conflict)

    def trec_qrels_rows(self, dataset: Dataset, trec: TrecFile) -> tuple[pd.DataFrame, bool]:
        """A qrels (or SMART) file's rows as read, grades still text (query_id, doc_id,
        grade, line), for imports that map grade values first; and whether it was SMART."""
        with self._transaction() as cur:
            rows, smart = bulk_load.qrels_rows(cur, trec, dataset.scale.values,
                                               dataset.scale.describe())
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "grade", "line"])
        return frame, smart

    def judgments(self, dataset: Dataset) -> pd.DataFrame:
        return self._frame("""SELECT query_id, doc_id, grade, source, imported_at
                              FROM judgments WHERE dataset_id = ?
                              ORDER BY query_id, doc_id""", [dataset.dataset_id])

    # -- runs -------------------------------------------------------------------------------

    def put_run(self, dataset: Dataset, name: str, frame: pd.DataFrame, source: str, *,
                trust_rank: bool = False, dedupe: bool = False, replace: bool = False) -> int:
        """Store a run from (query_id, doc_id, rank, score, line) rows, all or nothing.

        Ranks are re-derived from score descending, then doc id descending (trec_eval's rule),
        unless ``trust_rank`` keeps the file's (which must be positive and distinct within a
        query).  A doc twice in one query is an error naming both lines, unless ``dedupe``
        keeps its first line.  An existing run name needs ``replace``.  Returns rows stored.
        """
        if not name.strip():
            raise SxsError("a run needs a name")
        rows = frame[["query_id", "doc_id", "rank", "score", "line"]]
        with self._transaction() as cur:
            cur.register("incoming_run", rows)
            stored = bulk_load.store_staged_run(cur, dataset, name, source,
                                                trust_rank=trust_rank, dedupe=dedupe,
                                                replace=replace)
            cur.unregister("incoming_run")
        return int(stored)

    def import_trec_run(self, dataset: Dataset, trec: TrecFile, name: str | None = None, *,
                        trust_rank: bool = False, dedupe: bool = False, replace: bool = False
                        ) -> tuple[str, int]:
        """Load a TREC run file, parsed by DuckDB, with the checks of :meth:`put_run`; the
        name defaults to the file's one tag (else the file name).  Returns (name, rows)."""
        return bulk_load.load_run(self._transaction, dataset, trec, name,
                                  trust_rank=trust_rank, dedupe=dedupe, replace=replace)

    def run_names(self, dataset: Dataset) -> list[str]:
        rows = self._cursor().execute(
            "SELECT name FROM runs WHERE dataset_id = ? ORDER BY name",
            [dataset.dataset_id]).fetchall()
        return [r[0] for r in rows]

    def run(self, dataset: Dataset, name: str, query_ids: list[str] | None = None,
            depth: int | None = None) -> pd.DataFrame:
        """A run's rows (query_id, doc_id, rank, score) in (query, rank) order."""
        run_id = self._run_id(dataset, name)
        sql = "SELECT query_id, doc_id, rank, score FROM run_results WHERE run_id = ?"
        params: list = [run_id]
        if query_ids is not None:
            sql += " AND list_contains(?, query_id)"
            params.append(list(query_ids))
        if depth is not None:
            sql += " AND rank <= ?"
            params.append(depth)
        return self._frame(sql + " ORDER BY query_id, rank", params)

    def _run_id(self, dataset: Dataset, name: str) -> int:
        row = _one(self._cursor(), "SELECT run_id FROM runs WHERE dataset_id = ? AND name = ?",
                   [dataset.dataset_id, name])
        if row is None:
            known = ", ".join(self.run_names(dataset)) or "none yet"
            raise NotFound(f"no run {name!r} in dataset {dataset.name!r} (runs: {known})")
        return row[0]

    # -- expert labels and preferences (append-only) -----------------------------------------

    def add_expert_label(self, dataset: Dataset, query_id: str, doc_id: str, grade: int,
                         judge: str, client_token: str, note: str | None = None) -> bool:
        """Append an expert label; False if ``client_token`` was already stored (no-op)."""
        if grade not in dataset.scale.values:
            raise SxsError(f"grade {grade!r} is not on the scale {dataset.scale.describe()}")
        if not judge.strip():
            raise SxsError("an expert label needs a judge name")
        with self._transaction() as cur:
            inserted = cur.execute("""
                INSERT INTO expert_labels
                    (dataset_id, query_id, doc_id, grade, judge, note, client_token)
                VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_token) DO NOTHING
                RETURNING label_id""",
                [dataset.dataset_id, query_id, doc_id, grade, judge, note, client_token]
            ).fetchall()
        return bool(inserted)

    def append_expert_labels(self, dataset: Dataset, frame: pd.DataFrame, source: str) -> int:
        """Append many expert labels at once (query_id, doc_id, grade, judge, note?), e.g.
        labels collected elsewhere; one transaction, tokens derived from ``source`` and row."""
        bad = ~frame["grade"].isin(dataset.scale.values)
        if bad.any():
            raise SxsError(f"grade {frame['grade'][bad].iloc[0]!r} is not on the scale "
                           f"{dataset.scale.describe()}")
        rows = frame.assign(note=frame["note"] if "note" in frame.columns else None,
                            token=[f"{source}:{i}" for i in range(len(frame))])
        with self._transaction() as cur:
            cur.register("incoming_labels", rows)
            cur.execute("""
                INSERT INTO expert_labels
                    (dataset_id, query_id, doc_id, grade, judge, note, client_token)
                SELECT ?, query_id, doc_id, grade, judge, note, token FROM incoming_labels
                ON CONFLICT (client_token) DO NOTHING""", [dataset.dataset_id])
            cur.unregister("incoming_labels")
        return len(rows)

    def add_preference(self, dataset: Dataset, query_id: str, run_a: str, run_b: str,
                       left_run: str, choice: str, judge: str, client_token: str,
                       reason: str | None = None, ms_spent: int | None = None) -> bool:
        """Append a side-by-side vote; False if ``client_token`` was already stored (no-op).

        ``choice`` is left, right, tie or both_bad, as seen on screen; ``left_run`` records
        which run was on the left, so the vote can be read back as A-or-B.
        """
        if choice not in ("left", "right", "tie", "both_bad"):
            raise SxsError(f"choice must be left, right, tie or both_bad; got {choice!r}")
        if left_run not in (run_a, run_b):
            raise SxsError(f"the left run {left_run!r} is neither {run_a!r} nor {run_b!r}")
        with self._transaction() as cur:
            inserted = cur.execute("""
                INSERT INTO preferences (dataset_id, query_id, run_a, run_b, left_run, choice,
                                         reason, judge, ms_spent, client_token)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_token) DO NOTHING
                RETURNING preference_id""",
                [dataset.dataset_id, query_id, run_a, run_b, left_run, choice, reason, judge,
                 ms_spent, client_token]).fetchall()
        return bool(inserted)

    def expert_label_history(self, dataset: Dataset) -> pd.DataFrame:
        """Every expert label ever written, oldest first."""
        return self._frame("""SELECT label_id, query_id, doc_id, grade, judge, created_at, note
                              FROM expert_labels WHERE dataset_id = ?
                              ORDER BY label_id""", [dataset.dataset_id])

    def current_expert_labels(self, dataset: Dataset) -> pd.DataFrame:
        """The latest label of each (judge, query, doc)."""
        return self._frame("""
            SELECT query_id, doc_id, judge, grade, created_at, note FROM expert_labels
            WHERE dataset_id = ?
            QUALIFY row_number() OVER (PARTITION BY judge, query_id, doc_id
                                       ORDER BY label_id DESC) = 1
            ORDER BY query_id, doc_id, judge""", [dataset.dataset_id])

    def retract_preference(self, dataset: Dataset, preference_id: int, judge: str,
                           client_token: str) -> bool:
        """Append a retraction of the judge's own vote (undo); the vote row stays."""
        with self._transaction() as cur:
            owner = _one(cur, "SELECT judge FROM preferences WHERE preference_id = ? "
                              "AND dataset_id = ?", [preference_id, dataset.dataset_id])
            if owner is None:
                raise NotFound(f"no vote {preference_id} in dataset {dataset.name!r}")
            if owner[0] != judge:
                raise SxsError(f"vote {preference_id} is {owner[0]}'s: a judge can only undo "
                               "their own votes")
            inserted = cur.execute("""
                INSERT INTO preference_retractions (preference_id, judge, client_token)
                VALUES (?, ?, ?) ON CONFLICT (client_token) DO NOTHING
                RETURNING preference_id""", [preference_id, judge, client_token]).fetchall()
        return bool(inserted)

    def preferences(self, dataset: Dataset, include_retracted: bool = False) -> pd.DataFrame:
        """Votes, oldest first; retracted (undone) votes only with ``include_retracted``."""
        where = "" if include_retracted else """
            AND preference_id NOT IN (SELECT preference_id FROM preference_retractions)"""
        return self._frame(f"""
            SELECT preference_id, query_id, run_a, run_b, left_run, choice, reason, judge,
                   created_at, ms_spent,
                   preference_id IN (SELECT preference_id FROM preference_retractions)
                       AS retracted
            FROM preferences WHERE dataset_id = ? {where}
            ORDER BY preference_id""", [dataset.dataset_id])

    def run_tops(self, dataset: Dataset, name: str, k: int) -> pd.DataFrame:
        """The top k rows of every query of a run (query_id, doc_id, rank)."""
        return self._frame("""SELECT query_id, doc_id, rank FROM run_results
                              WHERE run_id = ? AND rank <= ? ORDER BY query_id, rank""",
                           [self._run_id(dataset, name), k])

    def current_labels(self, dataset: Dataset, query_ids: list[str] | None = None
                       ) -> pd.DataFrame:
        """Every labelled (query, doc): the dataset grade and the lower median of the judges'
        latest expert grades (query_id, doc_id, dataset_grade, expert_grade, experts)."""
        where = "" if query_ids is None else "AND list_contains($queries, query_id)"
        params: dict = {"dataset": dataset.dataset_id}
        if query_ids is not None:
            params["queries"] = list(query_ids)
        return self._frame(f"""
            WITH latest AS (
                SELECT query_id, doc_id, judge, grade FROM expert_labels
                WHERE dataset_id = $dataset {where}
                QUALIFY row_number() OVER (PARTITION BY judge, query_id, doc_id
                                           ORDER BY label_id DESC) = 1),
            expert AS (
                SELECT query_id, doc_id, quantile_disc(grade, 0.5) AS expert_grade,
                       count(*) AS experts
                FROM latest GROUP BY query_id, doc_id),
            dataset AS (
                SELECT query_id, doc_id, grade AS dataset_grade FROM judgments
                WHERE dataset_id = $dataset {where})
            SELECT query_id, doc_id, d.dataset_grade, e.expert_grade,
                   coalesce(e.experts, 0) AS experts
            FROM dataset d FULL OUTER JOIN expert e USING (query_id, doc_id)""", params)

    def filled_judgments(self, dataset: Dataset, policy: LabelPolicy | str = LabelPolicy.MEDIAN
                         ) -> pd.DataFrame:
        """Dataset judgments with expert labels filling the gaps, under ``policy``.

        Columns: query_id, doc_id, grade, source (``dataset``, ``expert`` or
        ``expert_override``), judges (how many judges' latest labels went into it).
        """
        policy = LabelPolicy(policy)
        expert_grade = ("arg_max(grade, label_id)" if policy is LabelPolicy.LATEST
                        else "quantile_disc(latest_grade, 0.5)")
        latest = """
            SELECT query_id, doc_id, judge, grade AS latest_grade, grade, label_id
            FROM expert_labels WHERE dataset_id = $dataset
            QUALIFY row_number() OVER (PARTITION BY judge, query_id, doc_id
                                       ORDER BY label_id DESC) = 1"""
        experts_win = policy is not LabelPolicy.DATASET_FIRST
        return self._frame(f"""
            WITH latest AS ({latest}),
            expert AS (
                SELECT query_id, doc_id, {expert_grade} AS grade, count(*) AS judges
                FROM latest GROUP BY query_id, doc_id
            ),
            dataset AS (
                SELECT query_id, doc_id, grade FROM judgments WHERE dataset_id = $dataset
            )
            SELECT coalesce(d.query_id, e.query_id) AS query_id,
                   coalesce(d.doc_id, e.doc_id) AS doc_id,
                   CASE WHEN e.grade IS NULL THEN d.grade
                        WHEN d.grade IS NULL THEN e.grade
                        WHEN {str(experts_win).upper()} THEN e.grade ELSE d.grade END
                       AS grade,
                   CASE WHEN e.grade IS NULL THEN 'dataset'
                        WHEN d.grade IS NULL THEN 'expert'
                        WHEN {str(experts_win).upper()} THEN 'expert_override'
                        ELSE 'dataset' END AS source,
                   coalesce(e.judges, 0) AS judges
            FROM dataset d FULL OUTER JOIN expert e USING (query_id, doc_id)
            ORDER BY query_id, doc_id""", {"dataset": dataset.dataset_id})


def _one(cur: duckdb.DuckDBPyConnection, sql: str, params: list | None = None
         ) -> tuple | None:
    """The first row of a query, or None; the result is read to its end, as DuckDB requires
    before the cursor runs anything else."""
    rows = cur.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


def _fields_json(extra: pd.DataFrame) -> list[str]:
    """Each row's extra columns as a JSON object (NaN left out)."""
    records = extra.to_dict(orient="records")
    return [json.dumps({k: v for k, v in r.items() if not (isinstance(v, float) and v != v)},
                       ensure_ascii=False, default=str) for r in records]
