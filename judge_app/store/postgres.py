"""The PostgreSQL backend: what a store is when its address is ``postgresql://…`` (psycopg 3,
the ``sxs[postgres]`` extra), for teams running several ``sxs serve`` replicas on one
database.

* One connection pool per process (``psycopg_pool``); a transaction holds one connection
  from it for its duration, a read borrows one for its statement
  (:class:`~judge_app.store.pg_cursor.PgCursor`).  No file lock and no process-wide write
  lock: PostgreSQL serialises writers, and the judging assignment locks rows (see
  :mod:`judge_app.store.votes`).
* Migrations run under an advisory lock: replicas starting at once take turns, the first
  migrates and the others find it done.
* Bulk loads are parsed and checked by DuckDB in an in-memory scratch store, then copied in
  (:mod:`judge_app.store.pg_staging`).
* A backup is a new DuckDB file that the rows are copied into, table by table
  (:func:`~judge_app.store.transfer.copy_rows`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, ClassVar, TypeVar

import numpy as np
import pandas as pd

from judge_app.addresses import describe_address, redact
from judge_app.errors import InputError, SxsError
from judge_app.store import pg_staging
from judge_app.store.backend import frame_arrays
from judge_app.store.dialect import POSTGRES
from judge_app.store.duckdb_backend import DuckDBBackend
from judge_app.store.migrations import apply_migrations
from judge_app.store.model import Dataset
from judge_app.store.pg_cursor import PgCursor, configure, psycopg_modules
from judge_app.store.sql import quote
from judge_app.store.transfer import copy_rows

T = TypeVar("T")
POOL_MAX = 8


class PostgresBackend:
    """One store address's database, through its connection pool (shared by every store of
    the process)."""

    dialect = POSTGRES
    _pools: ClassVar[dict[str, Any]] = {}
    _lock = threading.Lock()

    def __init__(self, address: str) -> None:
        self.address = address
        self.pool = self._pool(address)

    @classmethod
    def _pool(cls, address: str) -> Any:
        psycopg, psycopg_pool = psycopg_modules()
        with cls._lock:
            pool = cls._pools.get(address)
            if pool is None or pool.closed:
                try:  # one connection first: a wrong address fails at once, saying why
                    psycopg.connect(address, connect_timeout=10).close()
                except psycopg.Error as error:
                    reason = " ".join(str(error).split("\n", 1)[0].split())
                    raise SxsError(redact(f"cannot connect to {address}: {reason}")) from None
                pool = psycopg_pool.ConnectionPool(
                    address, min_size=1, max_size=POOL_MAX, open=False,
                    configure=configure, kwargs={"autocommit": False}, timeout=30)
                try:
                    pool.open(wait=True, timeout=10)
                except psycopg_pool.PoolTimeout:
                    pool.close()
                    raise SxsError(f"cannot connect to {redact(address)}") from None
                cls._pools[address] = pool
        return pool

    @classmethod
    def close_all(cls, address: str | None = None) -> None:
        """Close the pools (of one database, whatever user or password its address names):
        a test dropping its database calls this."""
        with cls._lock:
            for key in [k for k in cls._pools
                        if address is None or _same_database(address, k)]:
                cls._pools.pop(key).close()

    def migrate(self) -> None:
        """Bring the schema up to date; replicas starting at once: one migrates, the others
        wait and find it done."""
        with self.session() as cur:
            cur.execute("SELECT pg_advisory_lock(hashtext('sxs_migrations'))")
            try:
                apply_migrations(cur, describe_address(self.address))
            finally:
                cur.execute("SELECT pg_advisory_unlock(hashtext('sxs_migrations'))")

    def close(self) -> None:
        """Nothing to close: the pool is the process's, shared by its stores."""

    # -- statements ---------------------------------------------------------------------------

    def cursor(self) -> PgCursor:
        return PgCursor(self.pool)

    @contextmanager
    def transaction(self) -> Iterator[PgCursor]:
        psycopg, _ = psycopg_modules()
        try:
            with self.pool.connection() as conn, conn.transaction():
                yield PgCursor(self.pool, conn)
        except psycopg.errors.ProgramLimitExceeded as error:  # the last resort: imports
            raise InputError(   # refuse long ids first (judge_app.io.ids.MAX_ID_BYTES)
                "PostgreSQL", "a value is too long to store: "
                + " ".join(str(error).split("\n", 1)[0].split())) from None

    @contextmanager
    def session(self) -> Iterator[PgCursor]:
        """One connection (autocommit) for statements that manage their own transactions."""
        with self.pool.connection() as conn:
            conn.autocommit = True
            try:
                yield PgCursor(self.pool, conn)
            finally:
                conn.autocommit = False

    def frame(self, sql: str, params: list | dict | None = None, whole: bool = False
              ) -> pd.DataFrame:
        """The rows as a frame; ``whole``: a long result expected, read with COPY at once
        (see :meth:`~judge_app.store.pg_cursor.PgCursor.frame`)."""
        return self.cursor().frame(sql, params, whole)

    def arrays(self, sql: str, params: list | dict | None = None, whole: bool = False
               ) -> dict[str, np.ndarray]:
        """The rows as numpy arrays, one per column (read as :meth:`frame` reads them;
        :func:`~judge_app.store.backend.frame_arrays`)."""
        return frame_arrays(self.frame(sql, params, whole))

    # -- bulk loads: DuckDB parses and checks in a scratch, the rows are copied in ------------

    def load_run(self, dataset: Dataset, load: Callable[[Callable], T],
                 name_of: Callable[[T], str], source: str, replace: bool) -> T:
        with self.transaction() as pg:
            return pg_staging.load_run(pg, dataset, lambda mem: load(pg_staging.begin_on(mem)),
                                       name_of, source, replace)

    def load_judgments(self, dataset: Dataset, load: Callable[[Callable], T]) -> T:
        with self.transaction() as pg:
            return pg_staging.load_judgments(pg, dataset,
                                             lambda mem: load(pg_staging.begin_on(mem)))

    def measure(self, dataset: Dataset, fn: Callable[[Any], T]) -> T:
        return pg_staging.measure(self.cursor(), dataset, fn)

    # -- whole-store copies -------------------------------------------------------------------

    @contextmanager
    def snapshot(self) -> Iterator[PgCursor]:
        """A cursor reading one consistent snapshot of the whole store."""
        with self.transaction() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
            yield cur

    def read_frame(self, cur: PgCursor, sql: str) -> pd.DataFrame:
        return cur.frame(sql)

    def write_frame(self, cur: PgCursor, table: str, frame: pd.DataFrame) -> None:
        if len(frame):
            cur.copy_in(table, frame, [str(c) for c in frame.columns])

    def set_sequence(self, cur: PgCursor, name: str, next_value: int) -> None:
        cur.execute("SELECT setval(?, ?, false)", [quote(name), next_value])

    def copy_to(self, path: Path) -> dict[str, int]:
        """A new DuckDB store file at ``path`` holding every row, copied table by table."""
        target = DuckDBBackend(path)
        try:
            target.migrate()
            return copy_rows(self, target)
        finally:
            target.close()


def _same_database(a: str, b: str) -> bool:
    """Two addresses naming one database (host, port and name equal)."""
    from psycopg.conninfo import conninfo_to_dict

    first, second = conninfo_to_dict(a), conninfo_to_dict(b)
    return all(first.get(k) == second.get(k) for k in ("host", "port", "dbname"))
