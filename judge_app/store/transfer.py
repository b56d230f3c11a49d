"""Moving a whole store to another store, whatever the two backends (DuckDB file ↔
PostgreSQL): ``sxs copy``, backups and restores, and the catalog figures they check.

* The target is a store just created by this sxs (the same migrations as the source, which
  must be up to date) with no rows: a copy never merges into data.
* The source is read in one snapshot (the backend's :meth:`snapshot`: DuckDB, one read
  transaction; PostgreSQL, one ``REPEATABLE READ READ ONLY`` transaction), every table the
  catalog lists but ``sxs_migrations``, as frames, parents before the tables whose foreign
  keys name them; the target writes them in one transaction (the backend's
  :meth:`write_frame`), then every sequence is set to hand out what the source's would next.
  Row counts per table are checked equal before it commits.

Table and column names come from the catalog and are quoted; nothing else is spliced.
"""

from __future__ import annotations

import graphlib
from pathlib import Path

from judge_app.errors import SxsError
from judge_app.store.backend import Backend
from judge_app.store.sql import quote, sequence_rows

MIGRATIONS_TABLE = "sxs_migrations"


def migration_names(backend: Backend) -> list[str]:
    """Names of the schema migrations a store has, in order applied."""
    rows = backend.cursor().execute(
        "SELECT name FROM sxs_migrations ORDER BY applied_at, name").fetchall()
    return [r[0] for r in rows]


def table_names(backend: Backend) -> list[str]:
    """Every table of the store (not views), by name."""
    return [r[0] for r in backend.cursor().execute(backend.dialect.tables_sql).fetchall()]


def table_counts(backend: Backend) -> dict[str, int]:
    """Rows per table, every table of the store."""
    cur = backend.cursor()
    return {t: int(cur.execute(f"SELECT count(*) FROM {quote(t)}").fetchall()[0][0])
            for t in table_names(backend)}


def parents_first(tables: list[str], keys: list[tuple[str, str]]) -> list[str]:
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


def copy_rows(source: Backend, target: Backend) -> dict[str, int]:
    """Copy every row of ``source`` into ``target`` (empty, same schema); returns rows per
    table (``sxs_migrations`` as the target has it)."""
    mine, theirs = migration_names(source), migration_names(target)
    if mine != theirs:
        raise SxsError(f"{target.address} has schema {theirs[-1]}, this store {mine[-1]}: "
                       "open both with this sxs first (it migrates them)")
    filled = {t: n for t, n in table_counts(target).items() if n and t != MIGRATIONS_TABLE}
    if filled:
        table = sorted(filled)[0]
        raise SxsError(f"{target.address} is not empty ({filled[table]:,} rows in {table}): "
                       "copy into a new store")
    counts: dict[str, int] = {}
    with source.snapshot() as cur:
        tables = [r[0] for r in cur.execute(source.dialect.tables_sql).fetchall()
                  if r[0] != MIGRATIONS_TABLE]
        frames = {t: source.read_frame(cur, f"SELECT * FROM {quote(t)}") for t in tables}
        keys = [tuple(row) for row in cur.execute(source.dialect.foreign_keys_sql).fetchall()]
        positions = sequence_rows(cur, source.dialect)
    with target.transaction() as out:
        # the two backends need not declare the same keys (DuckDB's judgments has none):
        # parents first by either one's
        keys += [tuple(row) for row in out.execute(target.dialect.foreign_keys_sql).fetchall()]
        for table in parents_first(tables, keys):
            frame = frames[table]
            target.write_frame(out, table, frame)
            (n,) = out.execute(f"SELECT count(*) FROM {quote(table)}").fetchall()[0]
            if int(n) != len(frame):
                raise SxsError(f"copying {table}: {n} rows arrived, not {len(frame)}")
            counts[table] = len(frame)
        for name, next_value in positions:
            target.set_sequence(out, name, int(next_value))
    counts[MIGRATIONS_TABLE] = table_counts(target)[MIGRATIONS_TABLE]
    return counts


class Transfers:
    """The store as a whole: its tables, its sequences, and copies of all of it."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def migrations(self) -> list[str]:
        """Names of the schema migrations this store has, in order applied."""
        return migration_names(self.backend)

    def table_names(self) -> list[str]:
        """Every table of the store (not views), by name."""
        return table_names(self.backend)

    def table_counts(self) -> dict[str, int]:
        """Rows per table, every table of the store."""
        return table_counts(self.backend)

    def sequence_positions(self) -> dict[str, int]:
        """The value each sequence will hand out next."""
        rows = sequence_rows(self.backend.cursor(), self.backend.dialect)
        return {name: int(value) for name, value in rows}

    def copy_to(self, path: Path) -> dict[str, int]:
        """Write the whole store into a new DuckDB file at ``path`` (which must not exist),
        a consistent snapshot; returns rows per table, checked equal in the copy."""
        if path.exists():
            raise SxsError(f"{path} exists")
        return self.backend.copy_to(path)

    def copy_rows_into(self, target: Backend) -> dict[str, int]:
        """Copy every row of this store into ``target`` (a backend: empty, same schema)."""
        return copy_rows(self.backend, target)

    def clear_backup_mark(self) -> None:
        """Remove the backup mark from a store restored from a backup (it is a store now)."""
        with self.backend.transaction() as cur:
            cur.execute("COMMENT ON TABLE sxs_migrations IS NULL")
