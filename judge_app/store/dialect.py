"""The two SQL dialects of the store, in one place: DuckDB (the file, the default) and
PostgreSQL (a server shared by many ``sxs serve`` replicas).

The store's SQL is written once, in DuckDB's dialect with ``?`` (a list of values) or
``$name`` (a dict) placeholders, and most of it is also PostgreSQL.  Where the two differ:

* a few DuckDB functions are rewritten for PostgreSQL by :meth:`PostgresDialect.translate`,
  each by one pattern over its arguments (never over values, which are always bound):
  ``list_contains(L, x)`` → ``(x = ANY(L))``; ``quantile_disc(x, p)`` →
  ``percentile_disc(p) WITHIN GROUP (ORDER BY x)`` (both the lower median at 0.5);
  ``arg_max(x, y)`` → ``(array_agg(x ORDER BY y DESC))[1]``; ``to_seconds(n)`` →
  ``make_interval(secs => n)``; the column type ``DOUBLE`` → ``DOUBLE PRECISION``;
* placeholders become psycopg's (``%s``, ``%(name)s``; a literal ``%`` is doubled), outside
  quoted strings and identifiers;
* what cannot be rewritten by a pattern is a piece of :class:`Dialect`: the row lock a
  judging assignment takes, and the catalog queries (tables, columns, foreign keys,
  sequences).

The schema's migrations hold their own text for each backend
(:mod:`judge_app.store.migrations`): a dialect piece may change, a migration's text never does.

Why pattern rewriting stays for the statements the repositories run: four functions, the
``DOUBLE`` type and the placeholders are the only differences between some sixty statements
that are otherwise the same text on both backends; a named piece at each call site would split
every one of them in two.  The patterns match function calls whose arguments hold no
parenthesis or comma (column names and placeholders), so they cannot reach into a value, and
each one is tested (``tests/store/test_dialect.py``), with the store's own tests run on both
backends.
"""

from __future__ import annotations

import re

from judge_app.store.migrations.m0020_gold_queue_and_adjudications import SETTLED


class Dialect:
    """DuckDB's pieces (the default backend)."""

    name = "duckdb"

    # A judging assignment locks the query's row for its transaction.  DuckDB serialises the
    # store's writers in one process (the write lock), so it needs no row lock.
    skip_locked = ""
    for_update = ""

    # the newest adjudication of each item (migration 0020's, as ``filled_labels`` reads it;
    # :mod:`judge_app.store.filled_sql`)
    settled_adjudications = SETTLED["duckdb"]

    tables_sql = """SELECT table_name FROM duckdb_tables()
                    WHERE database_name = current_database() AND schema_name = 'main'
                      AND NOT temporary ORDER BY table_name"""
    columns_sql = """SELECT table_name, list(column_name) FROM duckdb_columns()
                     WHERE database_name = current_database() AND schema_name = 'main'
                       AND table_name IN (SELECT table_name FROM duckdb_tables()
                                          WHERE database_name = current_database())
                     GROUP BY table_name"""
    foreign_keys_sql = """SELECT table_name, referenced_table FROM duckdb_constraints()
                          WHERE database_name = current_database()
                            AND constraint_type = 'FOREIGN KEY'"""
    sequences_sql = """SELECT sequence_name, coalesce(last_value + increment_by, start_value)
                       FROM duckdb_sequences() WHERE database_name = current_database()
                       ORDER BY sequence_name"""

    def translate(self, sql: str, params: list | dict | None) -> tuple[str, list | dict | None]:
        return sql, params


class PostgresDialect(Dialect):
    """PostgreSQL's pieces."""

    name = "postgresql"

    settled_adjudications = SETTLED["postgresql"]

    skip_locked = " FOR UPDATE SKIP LOCKED"
    for_update = " FOR UPDATE"

    tables_sql = """SELECT table_name::text FROM information_schema.tables
                    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
                    ORDER BY table_name"""
    columns_sql = """SELECT table_name::text, array_agg(column_name::text ORDER BY
                                                          ordinal_position)
                     FROM information_schema.columns c
                     WHERE table_schema = current_schema()
                       AND table_name IN (SELECT table_name FROM information_schema.tables
                                          WHERE table_schema = current_schema()
                                            AND table_type = 'BASE TABLE')
                     GROUP BY table_name"""
    foreign_keys_sql = """SELECT c.conrelid::regclass::text, c.confrelid::regclass::text
                          FROM pg_constraint c
                          WHERE c.contype = 'f'
                            AND c.connamespace = current_schema()::regnamespace"""
    # pg_sequences hides a position set by setval(…, false): each sequence is read itself
    sequences_sql = """SELECT sequencename::text, NULL FROM pg_sequences
                       WHERE schemaname = current_schema() ORDER BY sequencename"""
    sequence_sql = """SELECT CASE WHEN is_called THEN last_value + 1 ELSE last_value END
                      FROM {}"""

    def translate(self, sql: str, params: list | dict | None) -> tuple[str, list | dict | None]:
        """DuckDB-dialect SQL and its values as psycopg takes them (see the module)."""
        for pattern, replacement in _REWRITES:
            sql = pattern.sub(replacement, sql)
        if not params:
            return sql, None
        return _placeholders(sql, isinstance(params, dict)), params


_ARG = r"\s*([^(),]+?)\s*"
_REWRITES = [
    (re.compile(rf"\blist_contains\({_ARG},{_ARG}\)"), r"(\2 = ANY(\1))"),
    (re.compile(rf"\bquantile_disc\({_ARG},{_ARG}\)"),
     r"percentile_disc(\2) WITHIN GROUP (ORDER BY \1)"),
    (re.compile(rf"\barg_max\({_ARG},{_ARG}\)"), r"(array_agg(\1 ORDER BY \2 DESC))[1]"),
    (re.compile(rf"\bto_seconds\({_ARG}\)"), r"make_interval(secs => \1)"),
    (re.compile(r"\bDOUBLE\b(?!\s+PRECISION)"), "DOUBLE PRECISION"),
]

# quoted strings and identifiers, dollar-quoted bodies, then the tokens to translate
_TOKENS = re.compile(r"""'(?:[^']|'')*'|"(?:[^"]|"")*"|\$body\$.*?\$body\$"""
                     r"""|\?|\$([A-Za-z_]\w*)|%""", re.S)


def _placeholders(sql: str, named: bool) -> str:
    def one(match: re.Match) -> str:
        token = match.group(0)
        if token == "%":
            return "%%"
        if token == "?" and not named:
            return "%s"
        if match.group(1) is not None and named:
            return f"%({match.group(1)})s"
        if token.startswith("'") and "%" in token:
            return token.replace("%", "%%")
        return token

    return _TOKENS.sub(one, sql)


DUCKDB = Dialect()
POSTGRES = PostgresDialect()
