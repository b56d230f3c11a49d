"""Small SQL helpers every part of the store shares: quoting a catalog name, reading one row,
and where each sequence stands.  Values are always bound; only names from the catalog (or
this package's own constants) are spliced, quoted by these helpers."""

from __future__ import annotations

from typing import Any


def quote(identifier: str) -> str:
    """``identifier`` as a quoted SQL identifier (a name from the catalog, never a user's)."""
    return '"' + identifier.replace('"', '""') + '"'


def literal(text: str) -> str:
    """``text`` as a quoted SQL string literal (for a catalog name where SQL wants a string)."""
    return "'" + text.replace("'", "''") + "'"


def one(cur: Any, sql: str, params: list | dict | None = None) -> tuple | None:
    """The first row of a query, or None; the result is read to its end, as DuckDB requires
    before the cursor runs anything else."""
    rows = cur.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


def sequence_rows(cur: Any, dialect: Any) -> list[tuple[str, int]]:
    """(sequence, the value it hands out next) for every sequence of the store, read with the
    ``dialect``'s catalog queries."""
    rows = cur.execute(dialect.sequences_sql).fetchall()
    return [(name, value if value is not None else
             cur.execute(dialect.sequence_sql.format(quote(name))).fetchall()[0][0])
            for name, value in rows]
