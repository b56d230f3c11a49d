"""The Store: every read and write of the DuckDB file, and the only place with SQL.

* One connection per process; each thread gets its own cursor (a DuckDB connection is not
  thread-safe), and all writes go through one lock, one transaction each.
* Expert labels and preferences are append-only history: a re-grade adds a row and the current
  label per (judge, query, doc) is the latest.  Nothing here updates or deletes them.
* Every app write carries a client token; writing the same token twice is a no-op, so a double
  submit stores one row.
* A second process opening the same file gets :class:`~judge_app.errors.StoreLocked` naming the
  file; the first keeps working.
* The address ``postgresql://…`` opens a PostgreSQL database instead (many processes at once,
  a connection pool each, see :mod:`judge_app.store.postgres`); the SQL is the same, its
  dialect's few differences live in :mod:`judge_app.store.dialect`, and bulk loads are parsed
  by DuckDB in memory, then copied (:mod:`judge_app.store.staging`).
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd

from judge_app.addresses import describe_address, is_postgres
from judge_app.errors import (
    NotFound,
    SchemaTooNew,
    StoreLocked,
    SxsError,
)
from judge_app.io.nul import plain_text
from judge_app.io.trec import TrecFile
from judge_app.policies import LABEL_BASES, ConflictPolicy, LabelPolicy
from judge_app.store import bulk_load, staging
from judge_app.store.backup import BackupMixin
from judge_app.store.clicks import ClickLogs
from judge_app.store.deletion import LIVE_DATASET, DeletionMixin
from judge_app.store.dialect import DUCKDB, POSTGRES, Dialect
from judge_app.store.history import JudgmentHistoryMixin
from judge_app.store.import_figures import KEYS, Check, ImportFigures, import_figures
from judge_app.store.judges import JudgesMixin
from judge_app.store.llm import LlmCallsStore
from judge_app.store.migrations import apply_migrations
from judge_app.store.postgres import PostgresBackend
from judge_app.store.serving import check_not_served
from judge_app.store.transactions import transaction_on
from judge_app.store.transfer import TransferMixin
from judge_app.store.votes import VotesMixin
from metrics.scale import GradeScale

DEFAULT_DB = "sxs.duckdb"
EXPERTS = LABEL_BASES[0]  # the default label basis: people only


StoreAddress = Path | str  # a DuckDB file, or a postgresql:// address


def store_address(value: str | Path) -> StoreAddress:
    """A store address as given: ``postgresql://…`` (or ``postgres://…``) stays a string, any
    other value is a DuckDB file's path."""
    text = str(value)
    for prefix in ("postgresql:/", "postgres:/"):  # a Path() folds the double slash
        if text.startswith(prefix) and not text.startswith(prefix + "/"):
            text = prefix + "/" + text[len(prefix):]
    if is_postgres(text):
        return text
    if re.match(r"(?i)(md|motherduck):|[a-z][a-z0-9+.-]+:/", text):
        raise SxsError(f"{describe_address(text)}: not a store address sxs knows (a DuckDB "
                       "file's path, or postgresql://…); DuckDB's own remote addresses would "
                       "download an extension")
    return Path(value)


def default_db_path() -> StoreAddress:
    """``$SXS_DB`` if set, else ``./sxs.duckdb``."""
    return store_address(os.environ.get("SXS_DB", DEFAULT_DB))


def require_store(path: StoreAddress) -> None:
    """:class:`~judge_app.errors.NotFound` (one line) unless a store file is at ``path``
    (a PostgreSQL database is created by ``sxs init`` or ``sxs demo`` too)."""
    if isinstance(path, str):
        return
    if not path.exists():
        raise NotFound(f"no store at {path}; create one with sxs init or sxs demo")


@dataclass(frozen=True)
class Dataset:
    dataset_id: int
    name: str
    scale: GradeScale


class Store(JudgesMixin, VotesMixin, ClickLogs, LlmCallsStore, BackupMixin,
            JudgmentHistoryMixin, DeletionMixin, TransferMixin):
    """An open sxs store file."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False,
                 create: bool = True) -> None:
        """Open (and migrate) the store at ``path``; a missing file is created unless
        ``create`` is False, when it is :class:`~judge_app.errors.NotFound` (one line).
        A ``postgresql://`` address opens that database (see the module)."""
        self.path = store_address(path) if path is not None else default_db_path()
        self._pg: PostgresBackend | None = None
        if isinstance(self.path, str):
            self._open_postgres(read_only)
            return
        if not create:
            require_store(self.path)
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
            if not read_only and apply_migrations(self._con, str(self.path)):
                # a schema change goes into the file at once: DuckDB cannot replay a WAL
                # holding a CREATE MACRO (0005's ranking_hash) after a crash
                self._con.execute("CHECKPOINT")
            if not read_only:
                self.finish_deletions()
        except SchemaTooNew:
            self._con.close()
            raise

    def _open_postgres(self, read_only: bool) -> None:
        self._pg = PostgresBackend(self.path)
        if read_only:
            return
        with self._pg.session() as cur:
            # replicas starting at once: one migrates, the others wait and find it done
            cur.execute("SELECT pg_advisory_lock(hashtext('sxs_migrations'))")
            try:
                apply_migrations(cur, describe_address(self.path))
            finally:
                cur.execute("SELECT pg_advisory_unlock(hashtext('sxs_migrations'))")
        self.finish_deletions()

    @property
    def dialect(self) -> Dialect:
        """The SQL dialect's pieces of this store's backend."""
        return POSTGRES if self._pg is not None else DUCKDB

    def close(self) -> None:
        if self._pg is None:
            self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- plumbing ---------------------------------------------------------------------------

    def _cursor(self) -> duckdb.DuckDBPyConnection:
        if self._pg is not None:
            return self._pg.cursor()
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._con.cursor()
            self._local.cursor = cursor
        return cursor

    @contextmanager
    def _transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        if self._pg is not None:
            with self._pg.transaction() as cur:
                yield cur
            return
        with self._write_lock, transaction_on(self._cursor()) as cur:
            yield cur

    def _frame(self, sql: str, params: list | dict | None = None, whole: bool = False
               ) -> pd.DataFrame:
        """The rows as a frame; ``whole``: a long result expected (PostgreSQL reads it with
        COPY at once, see :meth:`~judge_app.store.postgres.PgCursor.frame`)."""
        if self._pg is not None:
            return self._pg.cursor().frame(sql, params, whole)
        return self._cursor().execute(sql, params or []).df()

    def migrations(self) -> list[str]:
        """Names of the schema migrations this store has, in order applied."""
        rows = self._cursor().execute(
            "SELECT name FROM sxs_migrations ORDER BY applied_at, name").fetchall()
        return [r[0] for r in rows]

    # -- datasets ---------------------------------------------------------------------------

    def create_dataset(self, name: str, scale: GradeScale) -> Dataset:
        """Create a dataset with its grade scale; the same name and scale again is a no-op."""
        if not plain_text(name, "dataset name").strip():
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
        row = _one(self._cursor(), f"SELECT dataset_id FROM datasets WHERE name = ? "
                                   f"AND {LIVE_DATASET}", [name])
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
            raise NotFound(f"no dataset {name!r} in {describe_address(self.path)} "
                           f"(datasets: {known})")
        return found

    def dataset_names(self) -> list[str]:
        rows = self._cursor().execute(
            f"SELECT name FROM datasets WHERE {LIVE_DATASET} ORDER BY name").fetchall()
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

    def query_text(self, dataset: Dataset, query_id: str) -> str | None:
        """The text of one query, or None if the dataset has no such query."""
        row = _one(self._cursor(), "SELECT text FROM queries WHERE dataset_id = ? "
                                   "AND query_id = ?", [dataset.dataset_id, query_id])
        return row[0] if row else None

    def field_names(self, dataset: Dataset, sample: int = 200) -> list[str]:
        """The document field names seen in the first ``sample`` documents, in order."""
        rows = self._cursor().execute(
            "SELECT fields FROM documents WHERE dataset_id = ? AND fields IS NOT NULL "
            "ORDER BY doc_id LIMIT ?", [dataset.dataset_id, sample]).fetchall()
        seen: dict[str, None] = {}
        for (fields,) in rows:
            for key in json.loads(fields) if isinstance(fields, str) else {}:
                seen.setdefault(key, None)
        return list(seen)

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
                      on_conflict: str = "error", check: Check | None = None,
                      merged: int = 0) -> int:
        """Add judgments (query_id, doc_id, grade; optionally per row ``origin`` and
        ``imported_at``, else ``source`` and now); one transaction, all or nothing.

        A pair the store already judges with another grade is a conflict: ``error`` (default)
        names it and stores nothing; ``max``/``min`` keep the larger/smaller grade; ``last``
        keeps the incoming one.  A stored grade that changes is kept in ``judgment_history``
        (same transaction); a stored grade that ``max``/``min`` keep keeps its source and
        time.  ``check`` sees the import's figures first (``merged``: lines the reader
        merged); raising refuses it.  Returns the number of rows written.
        """
        if on_conflict not in tuple(ConflictPolicy):
            raise SxsError(f"on_conflict must be one of {', '.join(ConflictPolicy)}; "
                           f"got {on_conflict!r}")
        rows = frame[["query_id", "doc_id", "grade"]].assign(
            origin=frame["origin"].to_numpy() if "origin" in frame.columns else None,
            imported_at=(frame["imported_at"].to_numpy() if "imported_at" in frame.columns
                         else pd.Series(pd.NaT, index=frame.index,
                                        dtype="datetime64[us, UTC]").to_numpy()))
        def store_staged(cur) -> None:
            if check is not None:
                check(import_figures(cur, dataset.dataset_id, "judgments",
                                     "incoming_judgments", merged=merged))
            bulk_load.store_staged_judgments(cur, dataset, source, on_conflict)

        if self._pg is not None:
            with self._transaction() as pg:
                staging.load_judgments(pg, dataset, lambda mem: staging.stage_frame(
                    mem, "incoming_judgments", rows, store_staged))
            return len(rows)
        with self._transaction() as cur:
            cur.register("incoming_judgments", rows)
            store_staged(cur)
            cur.unregister("incoming_judgments")
        return len(rows)

    def measure_import(self, dataset: Dataset, what: str, frame: pd.DataFrame,
                       merged: int = 0) -> ImportFigures:
        """The figures of rows about to be imported (``frame`` holding the key columns of
        ``what``, see :data:`~judge_app.store.import_figures.KEYS`, and for labels
        ``grade``), measured against the dataset as it is; writes nothing.  For imports
        that write in several steps (documents, queries, expert labels), to be checked
        before the first."""
        columns = [*KEYS[what], *(["grade"] if what in ("judgments", "labels") else [])]
        rows = frame[columns]

        def figures(cur) -> ImportFigures:
            cur.register("incoming_rows", rows)
            try:
                return import_figures(cur, dataset.dataset_id, what, "incoming_rows",
                                      merged=merged)
            finally:
                cur.unregister("incoming_rows")

        if self._pg is not None:
            return staging.measure(self._pg.cursor(), dataset, figures)
        with self._transaction() as cur:
            return figures(cur)

    def import_trec_qrels(self, dataset: Dataset, trec: TrecFile, on_conflict: str = "error",
                          check: Check | None = None) -> bulk_load.QrelsLoad:
        """Load TREC qrels or a SMART relevance file, parsed by DuckDB: whole-number grades on
        the dataset's scale, identical repeated lines merged, differing ones by
        ``on_conflict`` (in the file, then against the store, as :meth:`put_judgments`)."""
        if self._pg is not None:
            with self._transaction() as pg:
                return staging.load_judgments(pg, dataset, lambda mem: bulk_load.load_qrels(
                    staging.begin_on(mem), dataset, trec, on_conflict, check))
        return bulk_load.load_qrels(self._transaction, dataset, trec, on_conflict, check)

    def trec_qrels_rows(self, dataset: Dataset, trec: TrecFile) -> tuple[pd.DataFrame, bool]:
        """A qrels (or SMART) file's rows as read, grades still text (query_id, doc_id,
        grade, line), for imports that map grade values first; and whether it was SMART."""
        with (self._transaction() if self._pg is None else
              staging.scratch_transaction(dataset)) as cur:
            rows, smart = bulk_load.qrels_rows(cur, trec, dataset.scale.values,
                                               dataset.scale.describe())
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "grade", "line"])
        return frame, smart

    def judgments(self, dataset: Dataset) -> pd.DataFrame:
        return self._frame("""SELECT query_id, doc_id, grade, source, imported_at
                              FROM judgments WHERE dataset_id = ?
                              ORDER BY query_id, doc_id""", [dataset.dataset_id],
                           whole=True)

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
        if self._pg is not None:
            with self._transaction() as pg:
                return int(staging.load_run(pg, dataset, lambda mem: staging.stage_frame(
                    mem, "incoming_run", rows, lambda cur: bulk_load.store_staged_run(
                        cur, dataset, name, source, trust_rank=trust_rank, dedupe=dedupe,
                        replace=replace)), lambda _: name, source, replace))
        with self._transaction() as cur:
            cur.register("incoming_run", rows)
            stored = bulk_load.store_staged_run(cur, dataset, name, source,
                                                trust_rank=trust_rank, dedupe=dedupe,
                                                replace=replace)
            cur.unregister("incoming_run")
        return int(stored)

    def import_trec_run(self, dataset: Dataset, trec: TrecFile, name: str | None = None, *,
                        trust_rank: bool = False, dedupe: bool = False, replace: bool = False,
                        check: Check | None = None) -> tuple[str, int]:
        """Load a TREC run file, parsed by DuckDB, with the checks of :meth:`put_run`; the
        name defaults to the file's one tag (else the file name).  Returns (name, rows)."""
        if self._pg is not None:
            with self._transaction() as pg:
                return staging.load_run(pg, dataset, lambda mem: bulk_load.load_run(
                    staging.begin_on(mem), dataset, trec, name, trust_rank=trust_rank,
                    dedupe=dedupe, replace=replace, check=check), lambda result: result[0],
                    trec.source, replace)
        return bulk_load.load_run(self._transaction, dataset, trec, name,
                                  trust_rank=trust_rank, dedupe=dedupe, replace=replace,
                                  check=check)

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
        return self._frame(sql + " ORDER BY query_id, rank", params, whole=query_ids is None)

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
        plain_text(note, "note")
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
        """Append many expert labels at once (query_id, doc_id, grade, judge, and optionally
        note and created_at), e.g. labels collected elsewhere, in frame order; one
        transaction.  Tokens derive from ``source`` and the row, so appending the same
        ``source`` again is a no-op; and a label the store already holds is skipped (a store's
        own export imported back adds nothing): with a time, one of the same judge, pair,
        grade and time; without one, the judge's current label for the pair when it has the
        same grade (for the judge's first row of the pair only: a later row changes a label
        the file itself set).  Returns the number of labels added."""
        bad = ~frame["grade"].isin(dataset.scale.values)
        if bad.any():
            raise SxsError(f"grade {frame['grade'][bad].iloc[0]!r} is not on the scale "
                           f"{dataset.scale.describe()}")
        if (frame["judge"].astype(str).str.strip() == "").any():
            raise SxsError("an expert label needs a judge name")
        created = (frame["created_at"] if "created_at" in frame.columns
                   else pd.Series(pd.NaT, index=frame.index, dtype="datetime64[us, UTC]"))
        rows = pd.DataFrame({
            "query_id": frame["query_id"].to_numpy(), "doc_id": frame["doc_id"].to_numpy(),
            "grade": frame["grade"].to_numpy(), "judge": frame["judge"].to_numpy(),
            "note": frame["note"].to_numpy() if "note" in frame.columns else None,
            "created_at": created.to_numpy(),
            "token": [f"{source}:{i}" for i in range(len(frame))],
            "row": range(len(frame))})
        with self._transaction() as cur:
            cur.register("incoming_labels", rows)
            added = cur.execute("""
                INSERT INTO expert_labels
                    (dataset_id, query_id, doc_id, grade, judge, note, client_token, created_at)
                SELECT $dataset, query_id, doc_id, grade, judge, note, token,
                       coalesce(created_at, current_timestamp)
                FROM (SELECT *, row_number() OVER (PARTITION BY judge, query_id, doc_id
                                                   ORDER BY row) = 1 AS first_of_pair
                      FROM incoming_labels) i
                WHERE NOT EXISTS (SELECT 1 FROM expert_labels e  -- anti joins, not a probe
                                  WHERE i.created_at IS NOT NULL       -- per row
                                    AND e.dataset_id = $dataset AND e.judge = i.judge
                                    AND e.query_id = i.query_id AND e.doc_id = i.doc_id
                                    AND e.grade = i.grade AND e.created_at = i.created_at)
                  AND NOT EXISTS (SELECT 1 FROM current_expert_labels c
                                  WHERE i.created_at IS NULL AND i.first_of_pair
                                    AND c.dataset_id = $dataset AND c.judge = i.judge
                                    AND c.query_id = i.query_id AND c.doc_id = i.doc_id
                                    AND c.grade = i.grade)
                ORDER BY row
                ON CONFLICT (client_token) DO NOTHING
                RETURNING label_id""", {"dataset": dataset.dataset_id}).fetchall()
            cur.unregister("incoming_labels")
        return len(added)

    def expert_label_history(self, dataset: Dataset) -> pd.DataFrame:
        """Every expert label ever written, oldest first, with whether it was withdrawn
        (unverified judges marked)."""
        return self._frame("""
            SELECT e.label_id, e.query_id, e.doc_id, e.grade,
                   coalesce(n.shown, e.judge) AS judge, e.created_at, e.note,
                   w.label_id IS NOT NULL AS withdrawn
            FROM expert_labels e LEFT JOIN judge_names n ON n.name = e.judge
            LEFT JOIN label_withdrawals w USING (label_id)
            WHERE e.dataset_id = ? ORDER BY e.label_id""", [dataset.dataset_id])

    def current_expert_labels(self, dataset: Dataset, judge: str | None = None
                              ) -> pd.DataFrame:
        """The latest label of each (judge, query, doc), every witness (query_id, doc_id,
        judge, witness, grade, created_at, note); only ``judge``'s when given.  Withdrawn
        grades are left out; unverified judges are marked in ``judge``."""
        sql = """SELECT c.query_id, c.doc_id, coalesce(n.shown, c.judge) AS judge, c.witness,
                        c.grade, c.created_at, c.note
                 FROM current_expert_labels c LEFT JOIN judge_names n ON n.name = c.judge
                 WHERE c.dataset_id = ?"""
        params: list = [dataset.dataset_id]
        if judge is not None:
            sql += " AND c.judge = ?"
            params.append(judge)
        return self._frame(sql + " ORDER BY c.query_id, c.doc_id, c.judge", params)

    def data_version(self, dataset: Dataset) -> tuple:
        """Changes whenever the dataset's labels, votes, judgments or runs change: a cache
        key for figures computed from them."""
        row = _one(self._cursor(), """
            SELECT (SELECT max(label_id) FROM expert_labels WHERE dataset_id = $d),
                   (SELECT max(preference_id) FROM preferences WHERE dataset_id = $d),
                   (SELECT count(*) FROM preference_retractions r JOIN preferences p
                        USING (preference_id) WHERE p.dataset_id = $d),
                   (SELECT count(*) FROM label_withdrawals w JOIN expert_labels e
                        USING (label_id) WHERE e.dataset_id = $d),
                   (SELECT count(*) || ':' || max(imported_at) FROM judgments
                        WHERE dataset_id = $d),
                   (SELECT string_agg(run_id || ':' || created_at, ',' ORDER BY run_id)
                        FROM runs WHERE dataset_id = $d)""", {"d": dataset.dataset_id})
        return tuple(str(v) for v in row) if row else ()

    def current_labels(self, dataset: Dataset, query_ids: list[str] | None = None,
                       basis: str = EXPERTS) -> pd.DataFrame:
        """Every labelled (query, doc): the dataset grade and the lower median of the counted
        judges' latest grades (query_id, doc_id, dataset_grade, expert_grade, experts)."""
        sql = """SELECT query_id, doc_id, dataset_grade, median_grade AS expert_grade,
                        judges AS experts
                 FROM label_sources WHERE dataset_id = ? AND basis = ?"""
        params: list = [dataset.dataset_id, _basis(basis)]
        if query_ids is not None:
            sql += " AND list_contains(?, query_id)"
            params.append(list(query_ids))
        return self._frame(sql, params)

    def ranked_labels(self, dataset: Dataset, run: str, k: int, basis: str = EXPERTS
                      ) -> pd.DataFrame:
        """The top k of every query of a run with whether each result is labelled (a dataset
        grade >= 0 or an expert's) and by how many judges (query_id, doc_id, rank, labelled,
        judges)."""
        return self._frame("""
            SELECT query_id, doc_id, rank, labelled, judges FROM ranked_labels
            WHERE run_id = ? AND basis = ? AND rank <= ? ORDER BY query_id, rank""",
                           [self._run_id(dataset, run), _basis(basis), k])

    def judged_at_k(self, dataset: Dataset, runs: list[str], k: int, basis: str = EXPERTS
                    ) -> float:
        """Label coverage of the top k over the given runs: labelled results divided by
        k slots per (run, query); 0.0 when the runs are empty."""
        ids = [self._run_id(dataset, run) for run in runs]
        row = _one(self._cursor(), """
            SELECT coalesce(sum(hits), 0), count(*) FROM (
                SELECT count(*) FILTER (WHERE labelled) AS hits FROM ranked_labels
                WHERE list_contains(?, run_id) AND basis = ? AND rank <= ?
                GROUP BY run_id, query_id) AS per_query""", [ids, _basis(basis), k])
        hits, queries = row if row else (0, 0)
        return float(hits) / (queries * k) if queries else 0.0

    def backfill_candidates(self, dataset: Dataset, runs: list[str], k: int, judge: str,
                            basis: str = EXPERTS) -> pd.DataFrame:
        """Top-k results of the given runs with no dataset grade >= 0 that ``judge`` has not
        graded (query_id, doc_id, rank, experts), one row per run it appears in."""
        ids = [self._run_id(dataset, run) for run in runs]
        return self._frame("""
            SELECT r.query_id, r.doc_id, r.rank, r.judges AS experts FROM ranked_labels r
            WHERE list_contains($runs, r.run_id) AND r.basis = $basis AND r.rank <= $k
              AND NOT coalesce(r.dataset_grade >= 0, false)
              AND NOT EXISTS (SELECT 1 FROM current_expert_labels c
                              WHERE c.dataset_id = $dataset AND c.judge = $judge
                                AND c.query_id = r.query_id AND c.doc_id = r.doc_id)
            ORDER BY r.query_id, r.doc_id, r.rank""",
                           {"runs": ids, "k": k, "dataset": dataset.dataset_id,
                            "judge": judge, "basis": _basis(basis)})

    def filled_judgments(self, dataset: Dataset, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                         basis: str = EXPERTS) -> pd.DataFrame:
        """Dataset judgments with expert labels filling the gaps, under ``policy``, counting
        the judges of ``basis`` (the ``filled_labels`` view; see
        :class:`~judge_app.policies.LabelPolicy` and :func:`~judge_app.policies.label_basis`).

        Columns: query_id, doc_id, grade, source (``dataset``, ``expert`` or
        ``expert_override``), judges (how many judges' latest labels went into it).
        """
        policy = LabelPolicy(policy)
        return self._frame("""
            SELECT query_id, doc_id, grade, source, judges FROM filled_labels
            WHERE dataset_id = ? AND policy = ? AND basis = ? ORDER BY query_id, doc_id""",
                           [dataset.dataset_id, policy.value, _basis(basis)])


def _basis(basis: str) -> str:
    """A label basis checked against :data:`~judge_app.policies.LABEL_BASES`."""
    if basis not in LABEL_BASES:
        raise SxsError(f"label basis must be one of {', '.join(LABEL_BASES)}; got {basis!r}")
    return basis


def _one(cur: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None
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
