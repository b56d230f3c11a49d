"""Moving a whole store to another store, whatever the two backends (DuckDB file ↔
PostgreSQL): ``sxs copy``, and backups and restores of a PostgreSQL store.

* The target is a store just created by this sxs (the same migrations as the source, which
  must be up to date) with no rows: a copy never merges into data.
* The source is read in one snapshot (DuckDB: one read transaction; PostgreSQL: one
  ``REPEATABLE READ READ ONLY`` transaction), every table the catalog lists but
  ``sxs_migrations``, as frames (PostgreSQL: ``COPY … TO STDOUT``), parents before the tables
  whose foreign keys name them; the target writes them in one transaction (PostgreSQL:
  ``COPY … FROM STDIN``), then every sequence is set to hand out what the source's would
  next.  Row counts per table are checked equal before it commits.

Table and column names come from the catalog and are quoted; nothing else is spliced.
"""

from __future__ import annotations

import graphlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store.backup import quote, sequence_rows

if TYPE_CHECKING:
    from judge_app.store.store import Store

MIGRATIONS_TABLE = "sxs_migrations"


class TransferMixin:
    """Store methods that copy every row of the store into another store."""

    @contextmanager
    def _snapshot(self) -> Iterator:
        """A cursor reading one consistent snapshot of the whole store."""
        if self._pg is not None:
            with self._pg.transaction() as cur:
                cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield cur
            return
        cur = self._con.cursor()
        try:
            cur.execute("BEGIN TRANSACTION")
            try:
                yield cur
            finally:
                cur.execute("ROLLBACK")
        finally:
            cur.close()

    def _read(self, cur, sql: str) -> pd.DataFrame:
        return cur.frame(sql) if self._pg is not None else cur.execute(sql).df()

    @staticmethod
    def _parents_first(tables: list[str], keys: list[tuple[str, str]]) -> list[str]:
        """``tables`` ordered so that every table comes after those its foreign ``keys``
        ((child, parent) pairs) point to."""
        graph: dict[str, set[str]] = {t: set() for t in tables}
        for child, parent in keys:
            if child in graph and parent in graph and child != parent:
                graph[child].add(parent)
        sorter = graphlib.TopologicalSorter(graph)
        sorter.prepare()
        order: list[str] = []
        while sorter.is_active():
            ready = sorted(sorter.get_ready())
            order += ready
            sorter.done(*ready)
        return order

    def copy_rows_into(self, target: Store) -> dict[str, int]:
        """Copy every row of this store into ``target`` (empty, same schema); returns rows
        per table (``sxs_migrations`` as the target has it)."""
        mine, theirs = self.migrations(), target.migrations()
        if mine != theirs:
            raise SxsError(f"{target.path} has schema {theirs[-1]}, this store {mine[-1]}: "
                           "open both with this sxs first (it migrates them)")
        filled = {t: n for t, n in target.table_counts().items()
                  if n and t != MIGRATIONS_TABLE}
        if filled:
            table = sorted(filled)[0]
            raise SxsError(f"{target.path} is not empty ({filled[table]:,} rows in {table}): "
                           "copy into a new store")
        counts: dict[str, int] = {}
        with self._snapshot() as cur:
            tables = [r[0] for r in cur.execute(self.dialect.tables_sql).fetchall()
                      if r[0] != MIGRATIONS_TABLE]
            frames = {t: self._read(cur, f"SELECT * FROM {quote(t)}") for t in tables}
            keys = [tuple(row) for row in cur.execute(self.dialect.foreign_keys_sql).fetchall()]
            positions = sequence_rows(cur, self.dialect)
        with target._transaction() as out:
            # the two backends need not declare the same keys (DuckDB's judgments has none):
            # parents first by either one's
            keys += [tuple(row) for row in
                     out.execute(target.dialect.foreign_keys_sql).fetchall()]
            for table in self._parents_first(tables, keys):
                frame = frames[table]
                target._write_frame(out, table, frame)
                (n,) = out.execute(f"SELECT count(*) FROM {quote(table)}").fetchall()[0]
                if int(n) != len(frame):
                    raise SxsError(f"copying {table}: {n} rows arrived, not {len(frame)}")
                counts[table] = len(frame)
            for name, next_value in positions:
                target._set_sequence(out, name, int(next_value))
        counts[MIGRATIONS_TABLE] = target.table_counts()[MIGRATIONS_TABLE]
        return counts

    def _write_frame(self, cur, table: str, frame: pd.DataFrame) -> None:
        columns = [str(c) for c in frame.columns]
        if not len(frame):
            return
        if self._pg is not None:
            cur.copy_in(table, frame, columns)
            return
        cur.register("incoming_rows", frame)
        names = ", ".join(quote(c) for c in columns)
        cur.execute(f"INSERT INTO {quote(table)} ({names}) SELECT {names} FROM incoming_rows")
        cur.unregister("incoming_rows")

    def _set_sequence(self, cur, name: str, next_value: int) -> None:
        """Make sequence ``name`` hand out ``next_value`` next (it is fresh: at its start)."""
        if self._pg is not None:
            cur.execute("SELECT setval(?, ?, false)", [quote(name), next_value])
            return
        (start,) = cur.execute("SELECT start_value FROM duckdb_sequences() "
                               "WHERE sequence_name = ? AND database_name = "
                               "current_database()", [name]).fetchall()[0]
        steps = next_value - int(start)
        if steps > 0:  # DuckDB cannot set a sequence: draw the values the source drew
            cur.execute(f"SELECT max(nextval({_literal(name)})) FROM range(?)", [steps])


def _literal(name: str) -> str:
    return "'" + name.replace("'", "''") + "'"
