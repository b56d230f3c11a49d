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

from pathlib import Path

import duckdb

from judge_app.errors import SxsError
from judge_app.store.sql import quote

BACKUP_MARK = "sxs backup"
"""The comment on a backup's ``sxs_migrations`` table (a constant, spliced as a literal)."""


def _tables(cur: duckdb.DuckDBPyConnection, database: str) -> list[str]:
    rows = cur.execute("""SELECT table_name FROM duckdb_tables()
                          WHERE database_name = ? AND schema_name = 'main' AND NOT temporary
                          ORDER BY table_name""", [database]).fetchall()
    return [r[0] for r in rows]


def counts_in(cur: duckdb.DuckDBPyConnection, database: str) -> dict[str, int]:
    """Rows per table of the attached DuckDB ``database``."""
    out = {}
    for table in _tables(cur, database):
        (n,) = cur.execute(f"SELECT count(*) FROM {quote(database)}.main.{quote(table)}"
                           ).fetchall()[0]
        out[table] = int(n)
    return out


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


def backup_counts(path: Path) -> dict[str, int]:
    """Rows per table of a backup file, read without changing it; SxsError unless it is an
    sxs store."""
    try:
        with duckdb.connect(str(path), read_only=True) as con:
            database = con.execute("SELECT current_database()").fetchall()[0][0]
            counts = counts_in(con, database)
    except duckdb.Error as error:
        raise SxsError(f"{path} is not an sxs backup ({str(error).splitlines()[0]})") from None
    if "sxs_migrations" not in counts:
        raise SxsError(f"{path} is not an sxs backup (it has no sxs_migrations table)")
    return counts
