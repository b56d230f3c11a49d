"""The one seam between the store and its database: what a backend offers, and which one an
address opens.

Every concept repository (runs, labels, votes, …) talks to a :class:`Backend` and never asks
which one it is.  A backend offers:

* statements: :meth:`~Backend.cursor` (reads; ``execute`` with ``?`` or ``$name``
  placeholders, results read at once), :meth:`~Backend.transaction` (one write, committed
  when the block ends, rolled back if it raises), :meth:`~Backend.frame` (a query's rows as
  a pandas frame);
* its :attr:`~Backend.dialect`: the named SQL pieces that differ between databases
  (:mod:`judge_app.store.dialect`); the store's SQL is otherwise written once;
* bulk loads: :meth:`~Backend.load_run`, :meth:`~Backend.load_judgments` and
  :meth:`~Backend.measure` run a load written against DuckDB
  (:mod:`judge_app.store.run_load`, :mod:`judge_app.store.qrels_load`)
  where the backend can take it — in the store itself (DuckDB), or in an in-memory DuckDB
  scratch whose result is copied in (PostgreSQL);
* whole-store copies: :meth:`~Backend.snapshot`, :meth:`~Backend.read_frame`,
  :meth:`~Backend.write_frame`, :meth:`~Backend.set_sequence` (``sxs copy``) and
  :meth:`~Backend.copy_to` (a backup file).

Two implementations: :class:`~judge_app.store.duckdb_backend.DuckDBBackend` (a file, the
default) and :class:`~judge_app.store.postgres.PostgresBackend` (``postgresql://…``).
:func:`judge_app.store.store.open_backend` is the only place that tells them apart, by the
address.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol, TypeVar

import pandas as pd

from judge_app.store.dialect import Dialect
from judge_app.store.model import Dataset, StoreAddress

T = TypeVar("T")


class Cursor(Protocol):
    """What the store uses of a cursor (DuckDB's own, or its PostgreSQL imitation)."""

    def execute(self, sql: str, params: list | dict | None = None) -> Any: ...

    def executemany(self, sql: str, seq: list) -> Any: ...

    def register(self, name: str, frame: pd.DataFrame) -> Any: ...

    def unregister(self, name: str) -> Any: ...


class Backend(Protocol):
    """A store's database (see the module)."""

    address: StoreAddress
    dialect: Dialect

    def migrate(self) -> None: ...

    def close(self) -> None: ...

    def cursor(self) -> Cursor: ...

    def transaction(self) -> AbstractContextManager[Cursor]: ...

    def frame(self, sql: str, params: list | dict | None = None, whole: bool = False
              ) -> pd.DataFrame: ...

    def load_run(self, dataset: Dataset, load: Callable[[Callable], T],
                 name_of: Callable[[T], str], source: str, replace: bool) -> T: ...

    def load_judgments(self, dataset: Dataset, load: Callable[[Callable], T]) -> T: ...

    def measure(self, dataset: Dataset, fn: Callable[[Any], T]) -> T: ...

    def snapshot(self) -> AbstractContextManager[Cursor]: ...

    def read_frame(self, cur: Any, sql: str) -> pd.DataFrame: ...

    def write_frame(self, cur: Any, table: str, frame: pd.DataFrame) -> None: ...

    def set_sequence(self, cur: Any, name: str, next_value: int) -> None: ...

    def copy_to(self, path: Path) -> dict[str, int]: ...
