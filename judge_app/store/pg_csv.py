"""The exact CSV that carries rows between PostgreSQL's ``COPY`` and frames, both ways
parsed or written by DuckDB (columnar: no value passes through Python on its own).

The one rule that makes it exact: **every non-NULL value is quoted, NULL is an unquoted
empty field**.  PostgreSQL writes it with ``COPY (query) TO STDOUT (FORMAT csv,
FORCE_QUOTE *)`` and reads it with ``COPY table FROM STDIN (FORMAT csv)`` (whose NULL is the
unquoted empty field); DuckDB writes it with ``COPY … TO (FORMAT csv, FORCE_QUOTE *)``
and reads it with ``read_csv(allow_quoted_nulls = false)`` and the columns' types given.
So the text ``\\N``, the empty text, text holding quotes, commas, line breaks (CR or LF),
backslashes or surrounding blanks, and any Unicode arrive as written, and NULL stays NULL.

* doubles: both sides print the shortest text that parses back to the same double
  (PostgreSQL ≥ 12 with ``extra_float_digits`` at its default), so they round-trip exactly;
  ``Infinity``/``-Infinity`` both ways.  A frame's NaN is missing (NULL), as pandas means it.
* timestamps: sessions on both sides run in UTC and print microseconds with the offset.
* booleans: PostgreSQL's ``t``/``f``, DuckDB's ``true``/``false``; each reads the other's.
* PostgreSQL types outside :data:`DUCKDB_TYPES` (arrays, say) are not read this way: the
  caller fetches those rows (see :meth:`judge_app.store.postgres.PgCursor.frame`).
"""

from __future__ import annotations

import os
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterable

import duckdb
import pandas as pd

CHUNK = 1 << 20
"""Bytes per ``copy.write`` when streaming rows into PostgreSQL."""

COPY_OUT = "(FORMAT csv, FORCE_QUOTE *)"
"""The options of PostgreSQL's ``COPY (query) TO STDOUT`` giving this CSV."""
COPY_IN = "(FORMAT csv)"
"""The options of PostgreSQL's ``COPY table FROM STDIN`` reading this CSV."""

_TEXT = "VARCHAR"
# PostgreSQL type oid -> the DuckDB type it is read as (DuckDB's dtypes in the frame)
DUCKDB_TYPES: dict[int, str] = {
    21: "SMALLINT", 23: "INTEGER", 20: "BIGINT",
    700: "DOUBLE", 701: "DOUBLE", 1700: "DOUBLE",
    16: "BOOLEAN", 1184: "TIMESTAMPTZ", 1114: "TIMESTAMP",
    **{oid: _TEXT for oid in (25, 1043, 19, 114, 3802, 18, 1042)},  # text, JSON as its text
}

_local = threading.local()
_MAX_LINE = 1 << 30  # one row's bytes (a document's fields can be long)


def _duck() -> duckdb.DuckDBPyConnection:
    """This thread's in-memory DuckDB (UTC), which parses and writes the CSV."""
    con = getattr(_local, "con", None)
    if con is None:
        con = duckdb.connect(":memory:")
        con.execute("SET TimeZone = 'UTC'")
        _local.con = con
    return con


def readable(description: list[tuple[str, int]]) -> bool:
    """Whether every column (name, PostgreSQL type oid) has a type this CSV reads."""
    return all(oid in DUCKDB_TYPES for _, oid in description)


def read_frame(chunks: Iterable[bytes], description: list[tuple[str, int]]) -> pd.DataFrame:
    """The rows of ``COPY … TO STDOUT`` :data:`COPY_OUT` (``chunks``, as psycopg hands them
    over: a row each) as a frame with DuckDB's dtypes for the columns' types
    (``description``: name and type oid per column).  The rows pass through a temporary
    file, which DuckDB reads quicker than any buffer."""
    columns = {f"c{i}": DUCKDB_TYPES[oid] for i, (_, oid) in enumerate(description)}
    con = _duck()
    with tempfile.TemporaryDirectory(prefix="sxs-copy-") as folder:
        path = os.path.join(folder, "rows.csv")
        with open(path, "wb") as rows:
            for chunk in chunks:
                rows.write(chunk)
            empty = rows.tell() == 0
        if empty:
            relation = con.sql("SELECT " + ", ".join(
                f"NULL::{kind} AS {name}" for name, kind in columns.items()) + " LIMIT 0")
        else:
            relation = con.read_csv(
                path, header=False, columns=columns, auto_detect=False, delimiter=",",
                quotechar='"', escapechar='"', lineterminator="\\n",
                allow_quoted_nulls=False, max_line_size=_MAX_LINE)
        frame = relation.df()
    frame.columns = [name for name, _ in description]
    return frame


def write_frame(frame: pd.DataFrame, columns: list[str], write: Callable[[bytes], None]
                ) -> None:
    """``frame[columns]`` as this CSV, handed to ``write`` in chunks of :data:`CHUNK` bytes
    (for ``COPY … FROM STDIN`` :data:`COPY_IN`, the columns in this order).  Missing values
    (None, NaN, NaT, pandas' NA) are NULL."""
    if not len(frame):
        return
    names = [f"c{i}" for i in range(len(columns))]
    outgoing = frame[columns].set_axis(names, axis=1)
    view = f"outgoing_{uuid.uuid4().hex}"
    con = _duck()
    con.register(view, outgoing)
    try:
        write_query(con, f"SELECT {', '.join(names)} FROM {view}", write)
    finally:
        con.unregister(view)


def write_query(con: duckdb.DuckDBPyConnection, sql: str, write: Callable[[bytes], None]
                ) -> None:
    """The rows of DuckDB query ``sql`` (no parameters) on ``con`` as this CSV, handed to
    ``write`` in chunks of :data:`CHUNK` bytes: rows DuckDB holds go to PostgreSQL without
    becoming a frame.  ``con``'s time zone must be UTC."""
    with tempfile.TemporaryDirectory(prefix="sxs-copy-") as folder:
        path = os.path.join(folder, "rows.csv").replace("'", "''")
        con.execute(f"COPY ({sql}) TO '{path}' (FORMAT csv, HEADER false, FORCE_QUOTE *)")
        for chunk in _chunks(path.replace("''", "'")):
            write(chunk)


def _chunks(path: str) -> Iterable[bytes]:
    with open(path, "rb") as rows:
        while chunk := rows.read(CHUNK):
            yield chunk
