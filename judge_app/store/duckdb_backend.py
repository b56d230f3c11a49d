"""The embedded backend: one DuckDB file, the default store.

* One connection per process; each thread gets its own cursor (a DuckDB connection is not
  thread-safe), and all writes go through one lock, one transaction each.
* A second process opening the same file gets :class:`~judge_app.errors.StoreLocked` naming
  the file; the first keeps working (and ``sxs serve``'s lock file is honoured, see
  :mod:`judge_app.store.serving`).
* Bulk loads run in the store's own transaction: a load parsed by DuckDB writes straight into
  the tables it checks against.
* A backup is ``COPY FROM DATABASE`` into a new file in one read transaction (see
  :mod:`judge_app.store.backup`).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

import duckdb
import numpy as np
import pandas as pd

from judge_app.errors import SchemaTooNew, StoreLocked, SxsError
from judge_app.store.backend import masked_arrays
from judge_app.store.backup import BACKUP_MARK, counts_in
from judge_app.store.dialect import DUCKDB
from judge_app.store.migrations import apply_migrations
from judge_app.store.model import Dataset, require_store
from judge_app.store.serving import check_not_served
from judge_app.store.sql import literal, one, quote
from judge_app.store.transactions import transaction_on

T = TypeVar("T")
_aliases = itertools.count()


class DuckDBBackend:
    """An open DuckDB store file."""

    dialect = DUCKDB

    def __init__(self, path: Path, *, read_only: bool = False, create: bool = True) -> None:
        """Open the file at ``path``; a missing file is created unless ``create`` is False,
        when it is :class:`~judge_app.errors.NotFound` (one line)."""
        self.address = path
        if not create:
            require_store(path)
        check_not_served(path)
        try:
            self._con = duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as error:
            if "lock" in str(error).lower():
                raise StoreLocked(f"{path} is in use by another sxs process; close it "
                                  "or point --db / SXS_DB at another file") from None
            raise SxsError(f"cannot open {path}: {error}") from None
        except duckdb.Error as error:
            raise SxsError(f"{path} is not an sxs store: {error}") from None
        self._write_lock = threading.Lock()
        self._local = threading.local()

    def migrate(self) -> None:
        """Bring the schema up to date (the file is closed if it is newer than this sxs)."""
        try:
            if apply_migrations(self._con, str(self.address)):
                # a schema change goes into the file at once: DuckDB cannot replay a WAL
                # holding a CREATE MACRO (0005's ranking_hash) after a crash
                self._con.execute("CHECKPOINT")
        except SchemaTooNew:
            self._con.close()
            raise

    def close(self) -> None:
        self._con.close()

    # -- statements ---------------------------------------------------------------------------

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor (reads; a write takes :meth:`transaction`)."""
        cursor = getattr(self._local, "cursor", None)
        if cursor is None:
            cursor = self._con.cursor()
            self._local.cursor = cursor
        return cursor

    @contextmanager
    def transaction(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """One write transaction, the process's writers taking turns."""
        with self._write_lock, transaction_on(self.cursor()) as cur:
            yield cur

    def frame(self, sql: str, params: list | dict | None = None, whole: bool = False
              ) -> pd.DataFrame:
        """The rows as a frame (``whole`` is a hint other backends use)."""
        return self.cursor().execute(sql, params or []).df()

    def arrays(self, sql: str, params: list | dict | None = None, whole: bool = False
               ) -> dict[str, np.ndarray]:
        """The rows as numpy arrays, one per column (:func:`~judge_app.store.backend.
        masked_arrays`: text as objects, NULL as None or NaN)."""
        return masked_arrays(self.cursor().execute(sql, params or []).fetchnumpy())

    # -- bulk loads ---------------------------------------------------------------------------

    def load_run(self, dataset: Dataset, load: Callable[[Callable], T],
                 name_of: Callable[[T], str], source: str, replace: bool) -> T:
        """``load(begin)``: a run load whose transactions come from ``begin()`` (here the
        store's own: the load writes the run's rows itself)."""
        return load(self.transaction)

    def load_judgments(self, dataset: Dataset, load: Callable[[Callable], T]) -> T:
        """``load(begin)``: a judgments load in the store's own transactions."""
        return load(self.transaction)

    def measure(self, dataset: Dataset, fn: Callable[[Any], T]) -> T:
        """``fn(cursor)`` in a transaction that sees the dataset as it is (it writes only
        TEMP tables)."""
        with self.transaction() as cur:
            return fn(cur)

    # -- whole-store copies -------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A cursor reading one consistent snapshot of the whole store."""
        cur = self._con.cursor()
        try:
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
            finally:
                cur.execute("ROLLBACK")
        finally:
            cur.close()

    def read_frame(self, cur: duckdb.DuckDBPyConnection, sql: str) -> pd.DataFrame:
        """A frame read on a :meth:`snapshot` cursor."""
        return cur.execute(sql).df()

    def write_frame(self, cur: duckdb.DuckDBPyConnection, table: str, frame: pd.DataFrame
                    ) -> None:
        """Append ``frame``'s rows to ``table`` (a catalog name) inside ``cur``'s transaction."""
        if not len(frame):
            return
        names = ", ".join(quote(str(c)) for c in frame.columns)
        cur.register("incoming_rows", frame)
        cur.execute(f"INSERT INTO {quote(table)} ({names}) SELECT {names} FROM incoming_rows")
        cur.unregister("incoming_rows")

    def set_sequence(self, cur: duckdb.DuckDBPyConnection, name: str, next_value: int) -> None:
        """Make sequence ``name`` hand out ``next_value`` next (it is fresh: at its start)."""
        (start,) = one(cur, "SELECT start_value FROM duckdb_sequences() "
                            "WHERE sequence_name = ? AND database_name = current_database()",
                       [name])
        steps = next_value - int(start)
        if steps > 0:  # DuckDB cannot set a sequence: draw the values the source drew
            cur.execute(f"SELECT max(nextval({literal(name)})) FROM range(?)", [steps])

    def copy_to(self, path: Path) -> dict[str, int]:
        """Write the whole store into a new DuckDB file at ``path`` with ``COPY FROM
        DATABASE`` in one read transaction, marked as a backup; returns rows per table,
        checked equal in the copy.  Writers go on meanwhile: the copy is the snapshot the
        transaction began with."""
        source = one(self.cursor(), "SELECT current_database()")[0]
        alias = f"sxs_backup_{next(_aliases)}"
        cur = self._con.cursor()  # its own cursor: ATTACH and a long read, apart from writers
        try:
            cur.execute(f"ATTACH ? AS {quote(alias)}", [str(path)])
            try:
                with transaction_on(cur):
                    cur.execute(f"COPY FROM DATABASE {quote(source)} TO {quote(alias)}")
                    cur.execute(f"COMMENT ON TABLE {quote(alias)}.main.sxs_migrations "
                                f"IS '{BACKUP_MARK}'")
                    counts = counts_in(cur, source)
                    copied = counts_in(cur, alias)
            finally:
                cur.execute(f"DETACH {quote(alias)}")
        finally:
            cur.close()
        if copied != counts:
            differ = sorted(t for t in counts.keys() | copied.keys()
                            if counts.get(t) != copied.get(t))
            raise SxsError(f"the backup {path} does not match the store (table {differ[0]}: "
                           f"{copied.get(differ[0])} rows, not {counts.get(differ[0])})")
        return counts
