"""The PostgreSQL cursor: what the store's SQL runs through when its address is
``postgresql://…`` (psycopg 3, the ``sxs[postgres]`` extra); the backend itself, its pool and
its transactions, is :mod:`judge_app.store.postgres`.

* :class:`PgCursor` offers what the store uses of a DuckDB cursor: ``execute`` (the result
  read at once: ``fetchall``, ``fetchone``, ``df``, ``description``), ``executemany``, and
  ``register``/``unregister`` of a pandas frame as a temporary table (``COPY … FROM
  STDIN``).  SQL goes through :meth:`~judge_app.store.dialect.PostgresDialect.translate`;
  every value is bound.
* Frames come out with ``COPY (query) TO STDOUT`` and go in with ``COPY … FROM STDIN``, both
  as the exact CSV of :mod:`judge_app.store.pg_csv` (every non-NULL value quoted), parsed and
  written by DuckDB with DuckDB's dtypes, not row by row.  COPY takes no parameters, so the
  query's values are bound on the client by psycopg's quoting (``ClientCursor.mogrify``).
* JSON comes back as its text (as DuckDB gives it); sessions run in UTC.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store import pg_csv
from judge_app.store.dialect import POSTGRES

FETCHED_ROWS = 5000
"""Rows a frame takes from a server-side cursor; a longer result is read with COPY."""
_cursor_names = itertools.count()


def psycopg_modules():
    try:
        import psycopg
        import psycopg_pool
    except ImportError:
        raise SxsError("a postgresql:// store needs psycopg: pip install 'sxs[postgres]'"
                       ) from None
    return psycopg, psycopg_pool


# PostgreSQL type oids -> (dtype without NULLs, dtype with NULLs)
_INTS = {21: ("int16", "Int16"), 23: ("int32", "Int32"), 20: ("int64", "Int64")}
_FLOATS = {700, 701, 1700}
_TEXTS = {25, 1043, 19, 114, 3802, 18, 1042}
_BOOL = 16
_TIMESTAMPTZ = 1184
_TIMESTAMP = 1114


def _copied_out(psycopg: Any, conn: Any, query: str, values: Any,
                description: list[tuple[str, int]]) -> pd.DataFrame:
    """The query's rows read with ``COPY … TO STDOUT`` as :mod:`judge_app.store.pg_csv`'s
    exact CSV (columns as ``description`` gives them)."""
    literal = psycopg.ClientCursor(conn).mogrify(query, values)
    with conn.cursor() as cur, cur.copy(f"COPY ({literal}) TO STDOUT {pg_csv.COPY_OUT}") as copy:
        return pg_csv.read_frame(copy, description)


def configure(conn: Any) -> None:
    from psycopg.types.string import TextLoader

    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, TextLoader)
    conn.execute("SET TIME ZONE 'UTC'")
    # a frame's server-side cursor reads every row: plan it for all, not for the first 10%
    conn.execute("SET cursor_tuple_fraction = 1")
    conn.commit()


class PgResult:
    """A statement's result, read at once (so the connection goes back to the pool)."""

    def __init__(self, rows: list[tuple], description: list | None) -> None:
        self._rows = rows
        self.description = ([(d.name, d.type_code) for d in description]
                            if description else None)

    def fetchall(self) -> list[tuple]:
        return self._rows

    def fetchone(self) -> tuple | None:
        return self._rows[0] if self._rows else None

    def df(self) -> pd.DataFrame:
        return typed_frame(self._rows, self.description or [])


def typed_frame(rows: list[tuple], description: list[tuple[str, int]]) -> pd.DataFrame:
    """Rows as a frame with DuckDB's dtypes for the columns' PostgreSQL types."""
    columns = list(zip(*rows, strict=True)) if rows else [()] * len(description)
    frame = pd.DataFrame({i: pd.Series(list(values), dtype=object)  # nothing inferred: an
                          for i, values in enumerate(columns)})     # int stays exact
    return _retype(frame, description)


def _retype(frame: pd.DataFrame, description: list[tuple[str, int]]) -> pd.DataFrame:
    out = {}
    for i, (_name, oid) in enumerate(description):
        column = frame.iloc[:, i]
        nulls = bool(column.isna().any())
        if oid in _INTS:
            column = pd.Series(pd.array(column.tolist(), dtype=_INTS[oid][1]))
            out[i] = column if nulls else column.astype(_INTS[oid][0])
        elif oid in _FLOATS:
            out[i] = pd.to_numeric(column).astype("float64")
        elif oid == _BOOL:
            if column.dtype == object or str(column.dtype) == "str":
                column = column.map({"t": True, "f": False, True: True, False: False})
            out[i] = column.astype("boolean" if nulls else "bool")
        elif oid == _TIMESTAMPTZ:
            out[i] = pd.to_datetime(column, utc=True, format="ISO8601").astype(
                "datetime64[us, UTC]")
        elif oid == _TIMESTAMP:
            out[i] = pd.to_datetime(column, format="ISO8601").astype("datetime64[us]")
        elif oid in _TEXTS:
            out[i] = column.astype("str")
        else:
            out[i] = column
    frame = pd.DataFrame({i: out[i] for i in range(len(description))})
    frame.columns = [d[0] for d in description]
    return frame


def _pg_type(series: pd.Series) -> str:
    kind = series.dtype.kind
    if kind in "iu":
        return "BIGINT"
    if kind == "f":
        return "DOUBLE PRECISION"
    if kind == "b" or str(series.dtype) == "boolean":
        return "BOOLEAN"
    if kind == "M":
        return "TIMESTAMPTZ" if getattr(series.dtype, "tz", None) is not None else "TIMESTAMP"
    if str(series.dtype) in ("Int8", "Int16", "Int32", "Int64", "UInt8", "UInt16", "UInt32",
                             "UInt64"):
        return "BIGINT"
    values = series.dropna()
    if len(values) and all(isinstance(v, bool) for v in values.head(100)):
        return "BOOLEAN"
    if len(values) and all(isinstance(v, int) for v in values.head(100)):
        return "BIGINT"
    return "TEXT"


def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def copy_frame_in(cursor: Any, table: str, frame: pd.DataFrame, columns: list[str] | None = None
                  ) -> None:
    """COPY a frame's rows into ``table`` as the exact CSV of :mod:`judge_app.store.pg_csv`
    (written by DuckDB, streamed in big chunks): a text ``\\N``, a lone carriage return or a
    quote arrives as written.  Missing values (None, NaN, NaT) are NULL."""
    columns = columns or [str(c) for c in frame.columns]
    names = ", ".join(quote_identifier(c) for c in columns)
    with cursor.copy(f"COPY {table} ({names}) FROM STDIN {pg_csv.COPY_IN}") as copy:
        pg_csv.write_frame(frame, columns, copy.write)


class PgCursor:
    """The store's cursor on PostgreSQL: bound to one connection (a transaction), or
    borrowing one from the pool for each statement (reads)."""

    dialect = POSTGRES

    def __init__(self, pool: Any, conn: Any = None) -> None:
        self._pool = pool
        self._conn = conn
        self.description: list | None = None

    @contextmanager
    def _connection(self) -> Iterator[Any]:
        if self._conn is not None:
            yield self._conn
        else:
            with self._pool.connection() as conn:
                yield conn

    def execute(self, sql: str, params: list | dict | None = None) -> PgResult:
        query, values = POSTGRES.translate(sql, params)
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(query, values)
            rows = cur.fetchall() if cur.description else []
            result = PgResult(rows, cur.description)
        self.description = result.description
        return result

    def executemany(self, sql: str, seq: list) -> None:
        seq = list(seq)
        if not seq:
            return
        query, _ = POSTGRES.translate(sql, seq[0])
        with self._connection() as conn, conn.cursor() as cur:
            cur.executemany(query, seq)

    def frame(self, sql: str, params: list | dict | None = None, whole: bool = False
              ) -> pd.DataFrame:
        """The query's rows as a frame.  The first :data:`FETCHED_ROWS` + 1 come through a
        server-side cursor; a result no longer than that is the frame (a judge page's reads:
        one round trip, no parsing); a longer one is read again, whole, with ``COPY … TO
        STDOUT`` as the exact CSV of :mod:`judge_app.store.pg_csv` (rows of other column
        types are fetched).  ``whole``: the caller expects a long result (a whole run), so
        it goes straight to COPY, its columns described without running it twice."""
        psycopg, _ = psycopg_modules()
        query, values = POSTGRES.translate(sql, params)
        with self._connection() as conn:
            if whole:
                with conn.cursor() as described:  # planned, not run
                    described.execute(f"SELECT * FROM ({query}) AS described LIMIT 0", values)
                    description = [(d.name, d.type_code) for d in described.description]
                if pg_csv.readable(description):
                    return _copied_out(psycopg, conn, query, values, description)
            with (conn.transaction() if conn.autocommit else nullcontext()), conn.cursor(
                    name=f"sxs_frame_{next(_cursor_names)}") as named:
                named.execute(query, values)
                first = named.fetchmany(FETCHED_ROWS + 1)
                description = [(d.name, d.type_code) for d in named.description]
            if len(first) <= FETCHED_ROWS or not pg_csv.readable(description):
                if len(first) > FETCHED_ROWS:
                    first = conn.execute(query, values).fetchall()
                return typed_frame(first, description)
            return _copied_out(psycopg, conn, query, values, description)

    def register(self, name: str, frame: pd.DataFrame) -> None:
        """A temporary table ``name`` holding the frame's rows (dropped at commit)."""
        columns = [str(c) for c in frame.columns]
        definition = ", ".join(f"{quote_identifier(c)} {_pg_type(frame[c])}" for c in columns)
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS pg_temp.{quote_identifier(name)}")
            cur.execute(f"CREATE TEMP TABLE {quote_identifier(name)} ({definition}) "
                        "ON COMMIT DROP")
            copy_frame_in(cur, quote_identifier(name), frame, columns)
            cur.execute(f"ANALYZE {quote_identifier(name)}")  # no autovacuum on temp tables

    def unregister(self, name: str) -> None:
        with self._connection() as conn, conn.cursor() as cur:
            cur.execute(f"DROP TABLE IF EXISTS pg_temp.{quote_identifier(name)}")

    def copy_in(self, table: str, frame: pd.DataFrame, columns: list[str]) -> None:
        with self._connection() as conn, conn.cursor() as cur:
            copy_frame_in(cur, quote_identifier(table), frame, columns)

    def copy_in_from(self, table: str, columns: list[str], con: Any, sql: str) -> None:
        """COPY the rows of DuckDB query ``sql`` on ``con`` (UTC) into ``table``'s
        ``columns`` as the exact CSV of :mod:`judge_app.store.pg_csv`."""
        names = ", ".join(quote_identifier(c) for c in columns)
        with self._connection() as conn, conn.cursor() as cur, cur.copy(
                f"COPY {quote_identifier(table)} ({names}) FROM STDIN {pg_csv.COPY_IN}"
        ) as copy:
            pg_csv.write_query(con, sql, copy.write)

    def close(self) -> None:
        pass
