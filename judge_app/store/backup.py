"""Backups of the whole store: every table the catalog lists (whatever migration added it,
``sxs_migrations`` included), its views, and where each sequence stands.

The format is a DuckDB database file written by ``COPY FROM DATABASE`` from the open store,
rather than ``EXPORT DATABASE`` (a folder of Parquet files and SQL) or a byte copy of the file:

* it is taken through the store's own connection, in one read transaction, so it is a
  consistent snapshot while judges keep voting (a ``cp`` of a served store misses what is
  still in its write-ahead log, and races with the next checkpoint);
* it is one file, so it can be written under a temporary name, fsynced and renamed: the final
  name only ever holds a complete backup (a folder cannot be swapped atomically);
* it is an sxs store: restoring is a copy, sequences restart where they stood, constraints and
  views come with it, and anyone can open it with DuckDB to check it;
* it is checked as it is written: every table's row count in the copy must equal the
  original's in the same snapshot;
* it is marked as a backup (a comment on its ``sxs_migrations`` table, :data:`BACKUP_MARK`,
  which adds no table or row), so a later backup to the same name can tell that it replaces
  an earlier backup and not a store or any other file; a restore removes the mark.

Table names come from the catalog and are quoted as identifiers; nothing else is spliced.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import duckdb

from judge_app.errors import SxsError
from judge_app.store.transactions import transaction_on

_aliases = itertools.count()

BACKUP_MARK = "sxs backup"
"""The comment on a backup's ``sxs_migrations`` table (a constant, spliced as a literal)."""


def quote(identifier: str) -> str:
    """``identifier`` as a quoted SQL identifier (a name from the catalog, never a user's)."""
    return '"' + identifier.replace('"', '""') + '"'


def _tables(cur: duckdb.DuckDBPyConnection, database: str) -> list[str]:
    rows = cur.execute("""SELECT table_name FROM duckdb_tables()
                          WHERE database_name = ? AND schema_name = 'main' AND NOT temporary
                          ORDER BY table_name""", [database]).fetchall()
    return [r[0] for r in rows]


def _counts(cur: duckdb.DuckDBPyConnection, database: str) -> dict[str, int]:
    out = {}
    for table in _tables(cur, database):
        (n,) = cur.execute(f"SELECT count(*) FROM {quote(database)}.main.{quote(table)}"
                           ).fetchall()[0]
        out[table] = int(n)
    return out


class BackupMixin:
    """The store's tables as the catalog lists them, and a consistent copy of all of them."""

    def _database(self) -> str:
        return self._cursor().execute("SELECT current_database()").fetchall()[0][0]

    def table_names(self) -> list[str]:
        """Every table of the store (not views), by name."""
        if self._pg is not None:
            return [r[0] for r in self._cursor().execute(self.dialect.tables_sql).fetchall()]
        return _tables(self._cursor(), self._database())

    def table_counts(self) -> dict[str, int]:
        """Rows per table, every table of the store."""
        if self._pg is not None:
            return {t: int(self._cursor().execute(f"SELECT count(*) FROM {quote(t)}"
                                                  ).fetchall()[0][0])
                    for t in self.table_names()}
        return _counts(self._cursor(), self._database())

    def sequence_positions(self) -> dict[str, int]:
        """The value each sequence will hand out next."""
        rows = sequence_rows(self._cursor(), self.dialect)
        return {name: int(value) for name, value in rows}

    def copy_to(self, path: Path) -> dict[str, int]:
        """Write the whole store into a new DuckDB file at ``path`` (which must not exist) in
        one read transaction; returns rows per table, checked equal in the copy.  Writers
        go on meanwhile: the copy is the snapshot the transaction began with."""
        if path.exists():
            raise SxsError(f"{path} exists")
        if self._pg is not None:  # another backend: the rows, table by table
            from judge_app.store.store import Store

            with Store(path) as copy:
                return self.copy_rows_into(copy)
        source = self._database()
        alias = f"sxs_backup_{next(_aliases)}"
        cur = self._con.cursor()  # its own cursor: ATTACH and a long read, apart from writers
        try:
            cur.execute(f"ATTACH ? AS {quote(alias)}", [str(path)])
            try:
                with transaction_on(cur):
                    cur.execute(f"COPY FROM DATABASE {quote(source)} TO {quote(alias)}")
                    cur.execute(f"COMMENT ON TABLE {quote(alias)}.main.sxs_migrations "
                                f"IS '{BACKUP_MARK}'")
                    counts = _counts(cur, source)
                    copied = _counts(cur, alias)
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

    def clear_backup_mark(self) -> None:
        """Remove :data:`BACKUP_MARK` from a store restored from a backup (it is a store now)."""
        with self._transaction() as cur:
            cur.execute("COMMENT ON TABLE sxs_migrations IS NULL")


def is_backup(path: Path) -> bool:
    """Whether ``path`` is a file an sxs backup wrote (read without changing it): a DuckDB
    file whose ``sxs_migrations`` table carries :data:`BACKUP_MARK`.  A store, another
    DuckDB file, a file DuckDB cannot open (or one another process holds) is not."""
    if not path.is_file():
        return False
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            found = con.execute("""SELECT comment FROM duckdb_tables()
                                   WHERE database_name = current_database()
                                     AND schema_name = 'main'
                                     AND table_name = 'sxs_migrations'""").fetchall()
    except duckdb.Error:
        return False
    return bool(found) and found[0][0] == BACKUP_MARK


def sequence_rows(cur, dialect) -> list[tuple[str, int]]:
    """(sequence, the value it hands out next) for every sequence of the store."""
    rows = cur.execute(dialect.sequences_sql).fetchall()
    return [(name, value if value is not None else
             cur.execute(dialect.sequence_sql.format(quote(name))).fetchall()[0][0])
            for name, value in rows]


def backup_counts(path: Path) -> dict[str, int]:
    """Rows per table of a backup file, read without changing it; SxsError unless it is an
    sxs store."""
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            database = con.execute("SELECT current_database()").fetchall()[0][0]
            counts = _counts(con, database)
    except duckdb.Error as error:
        raise SxsError(f"{path} is not an sxs backup ({str(error).splitlines()[0]})") from None
    if "sxs_migrations" not in counts:
        raise SxsError(f"{path} is not an sxs backup (it has no sxs_migrations table)")
    return counts
