"""The one seam between the store and its database: what a backend offers, and which one an
address opens.

Every concept repository (runs, labels, votes, …) talks to a :class:`Backend` and never asks
which one it is.  A backend offers:

* statements: :meth:`~Backend.cursor` (reads; ``execute`` with ``?`` or ``$name``
  placeholders, results read at once), :meth:`~Backend.transaction` (one write, committed
  when the block ends, rolled back if it raises), :meth:`~Backend.frame` (a query's rows as
  a pandas frame), :meth:`~Backend.arrays` (as numpy arrays, for a long result read into
  arrays anyway: no frame built);
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

import numpy as np
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

    def arrays(self, sql: str, params: list | dict | None = None, whole: bool = False
               ) -> dict[str, np.ndarray]: ...

    def load_run(self, dataset: Dataset, load: Callable[[Callable], T],
                 name_of: Callable[[T], str], source: str, replace: bool) -> T: ...

    def load_judgments(self, dataset: Dataset, load: Callable[[Callable], T]) -> T: ...

    def measure(self, dataset: Dataset, fn: Callable[[Any], T]) -> T: ...

    def snapshot(self) -> AbstractContextManager[Cursor]: ...

    def read_frame(self, cur: Any, sql: str) -> pd.DataFrame: ...

    def write_frame(self, cur: Any, table: str, frame: pd.DataFrame) -> None: ...

    def set_sequence(self, cur: Any, name: str, next_value: int) -> None: ...

    def copy_to(self, path: Path) -> dict[str, int]: ...


def frame_arrays(frame: pd.DataFrame) -> dict[str, np.ndarray]:
    """A frame's columns as :meth:`Backend.arrays` gives them: text as object arrays (None
    where NULL), numbers as int64, or float64 with NaN where a column has a NULL."""
    out = {}
    for name in frame.columns:
        column = frame[name]
        if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(
                column.dtype):
            out[str(name)] = (column.to_numpy(dtype=float, na_value=np.nan)
                              if column.hasnans or pd.api.types.is_float_dtype(column.dtype)
                              else column.to_numpy(dtype=np.int64))
        else:
            out[str(name)] = column.to_numpy(dtype=object, na_value=None)
    return out


def masked_arrays(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Numpy results with NULLs as masked arrays (DuckDB's ``fetchnumpy``) as
    :func:`frame_arrays` gives them."""
    out = {}
    for name, column in columns.items():
        if isinstance(column, np.ma.MaskedArray):
            if column.dtype.kind in "iuf":
                column = column.astype(float).filled(np.nan) if np.ma.is_masked(column) \
                    else column.data.astype(np.int64 if column.dtype.kind in "iu" else float)
            else:
                column = column.astype(object).filled(None)
        elif column.dtype.kind in "iu":
            column = column.astype(np.int64, copy=False)
        out[name] = column
    return out
