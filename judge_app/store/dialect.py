"""The two SQL dialects of the store, in one place: DuckDB (the file, the default) and
PostgreSQL (a server shared by many ``sxs serve`` replicas).

The store's SQL is written once, in DuckDB's dialect with ``?`` (a list of values) or
``$name`` (a dict) placeholders, and most of it is also PostgreSQL.  Where the two differ:

* a few DuckDB functions are rewritten for PostgreSQL by :func:`to_postgres`, each by one
  pattern over its arguments (never over values, which are always bound):
  ``list_contains(L, x)`` → ``(x = ANY(L))``; ``quantile_disc(x, p)`` →
  ``percentile_disc(p) WITHIN GROUP (ORDER BY x)`` (both the lower median at 0.5);
  ``arg_max(x, y)`` → ``(array_agg(x ORDER BY y DESC))[1]``; ``to_seconds(n)`` →
  ``make_interval(secs => n)``; the column type ``DOUBLE`` → ``DOUBLE PRECISION``;
* placeholders become psycopg's (``%s``, ``%(name)s``; a literal ``%`` is doubled), outside
  quoted strings and identifiers;
* what cannot be rewritten by a pattern is a method of :class:`Dialect`: the latest row per
  key (DuckDB's ``QUALIFY``, PostgreSQL's ``DISTINCT ON``), the ranking-hash macros
  (``CREATE MACRO`` / ``CREATE FUNCTION``), the row lock a judging assignment takes, and the
  catalog queries (tables, columns, foreign keys, sequences).
"""

from __future__ import annotations

import re


class Dialect:
    """DuckDB's pieces (the default backend)."""

    name = "duckdb"

    def latest_rows(self, columns: str, table: str, key: str, newest: str) -> str:
        """SQL selecting ``columns`` from the newest row (by ``newest``) of each ``key``."""
        return f"""SELECT {columns}
            FROM {table}
            QUALIFY row_number() OVER (PARTITION BY {key}
                                       ORDER BY {newest} DESC) = 1"""

    def ranking_macros(self) -> str:
        """``top_list(d, run, q, depth)`` (a run's top doc ids joined by chr(31)) and
        ``ranking_hash(d, q, r1, r2, depth)``: MD5 of the query text and both lists."""
        return """
        CREATE MACRO top_list(d, run, q, depth) AS (
            SELECT coalesce(string_agg(r.doc_id, chr(31) ORDER BY r.rank), '')
            FROM run_results r JOIN runs u USING (run_id)
            WHERE u.dataset_id = d AND u.name = run AND r.query_id = q AND r.rank <= depth);
        CREATE MACRO ranking_hash(d, q, r1, r2, depth) AS md5(
            coalesce((SELECT text FROM queries WHERE dataset_id = d AND query_id = q), '')
            || chr(30) || top_list(d, r1, q, depth) || chr(30) || top_list(d, r2, q, depth));"""

    def label_sources(self, bases: str) -> str:
        """The body of the ``label_sources`` view: per basis, every (dataset, query, doc)
        with a dataset grade or a consensus, both side by side (``bases``: SQL VALUES rows)."""
        return f"""
            SELECT dataset_id, basis, query_id, doc_id, d.grade AS dataset_grade,
                   e.median_grade, e.latest_grade, coalesce(e.judges, 0) AS judges
            FROM (SELECT j.*, b.basis FROM judgments j
                  CROSS JOIN (VALUES {bases}) AS b (basis)) d
            FULL OUTER JOIN expert_consensus e USING (dataset_id, basis, query_id, doc_id)"""

    def ranked_labels(self, bases: str) -> str:
        """The body of the ``ranked_labels`` view: every run row per basis with its
        (query, doc)'s labels."""
        return f"""
            SELECT r.run_id, u.dataset_id, b.basis, r.query_id, r.doc_id, r.rank,
                   l.dataset_grade, l.median_grade, coalesce(l.judges, 0) AS judges,
                   coalesce(l.dataset_grade >= 0, false) OR coalesce(l.judges, 0) > 0
                       AS labelled
            FROM run_results r JOIN runs u USING (run_id)
            CROSS JOIN (VALUES {bases}) AS b (basis)
            LEFT JOIN label_sources l
                ON l.dataset_id = u.dataset_id AND l.basis = b.basis
                   AND l.query_id = r.query_id AND l.doc_id = r.doc_id"""

    # indexes only PostgreSQL uses: a judge page reads one query's labels
    lookup_indexes = ""

    # A judging assignment locks the query's row for its transaction.  DuckDB serialises the
    # store's writers in one process (the write lock), so it needs no row lock.
    skip_locked = ""
    for_update = ""

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

    def latest_rows(self, columns: str, table: str, key: str, newest: str) -> str:
        return f"""SELECT DISTINCT ON ({key}) {columns}
            FROM {table}
            ORDER BY {key}, {newest} DESC"""

    def ranking_macros(self) -> str:
        return """
        CREATE FUNCTION top_list(d bigint, run text, q text, depth bigint) RETURNS text
        LANGUAGE sql STABLE AS $body$
            SELECT coalesce(string_agg(r.doc_id, chr(31) ORDER BY r.rank), '')
            FROM run_results r JOIN runs u USING (run_id)
            WHERE u.dataset_id = d AND u.name = run AND r.query_id = q AND r.rank <= depth
        $body$;
        CREATE FUNCTION ranking_hash(d bigint, q text, r1 text, r2 text, depth bigint)
        RETURNS text LANGUAGE sql STABLE AS $body$ SELECT md5(
            coalesce((SELECT text FROM queries WHERE dataset_id = d AND query_id = q), '')
            || chr(30) || top_list(d, r1, q, depth) || chr(30) || top_list(d, r2, q, depth))
        $body$;"""

    def label_sources(self, bases: str) -> str:
        # PostgreSQL cannot push a filter on the keys through a full join: the same rows
        # as a union grouped by the keys (one judgment and one consensus row per key), which
        # lets a reader's query_id reach the labels table
        return f"""
            SELECT dataset_id, basis, query_id, doc_id, max(dataset_grade) AS dataset_grade,
                   max(median_grade) AS median_grade, max(latest_grade) AS latest_grade,
                   coalesce(max(judges), 0) AS judges
            FROM (SELECT j.dataset_id, b.basis, j.query_id, j.doc_id,
                         j.grade AS dataset_grade, NULL::integer AS median_grade,
                         NULL::integer AS latest_grade, NULL::bigint AS judges
                  FROM judgments j CROSS JOIN (VALUES {bases}) AS b (basis)
                  UNION ALL
                  SELECT dataset_id, basis, query_id, doc_id, NULL, median_grade,
                         latest_grade, judges FROM expert_consensus) AS sides
            GROUP BY dataset_id, basis, query_id, doc_id"""

    def ranked_labels(self, bases: str) -> str:
        # readers take a run's top k: each row looks its labels up by key (``OFFSET 0``
        # keeps the lookup a subquery, so the keys reach the labels' index) instead of
        # aggregating every label of the dataset first
        return f"""
            SELECT r.run_id, u.dataset_id, b.basis, r.query_id, r.doc_id, r.rank,
                   l.dataset_grade, l.median_grade, coalesce(l.judges, 0) AS judges,
                   coalesce(l.dataset_grade >= 0, false) OR coalesce(l.judges, 0) > 0
                       AS labelled
            FROM run_results r JOIN runs u USING (run_id)
            CROSS JOIN (VALUES {bases}) AS b (basis)
            LEFT JOIN LATERAL (
                SELECT * FROM label_sources s
                WHERE s.dataset_id = u.dataset_id AND s.basis = b.basis
                  AND s.query_id = r.query_id AND s.doc_id = r.doc_id OFFSET 0) AS l ON true"""

    lookup_indexes = """
        CREATE INDEX expert_labels_by_query ON expert_labels (dataset_id, query_id, doc_id);
        CREATE INDEX expert_labels_by_judge ON expert_labels (dataset_id, judge, query_id,
                                                             doc_id);
        CREATE INDEX judgments_by_query ON judgments (dataset_id, query_id, doc_id);
        CREATE INDEX run_results_by_run ON run_results (run_id, query_id, rank);
        CREATE INDEX views_by_query ON views (dataset_id, query_id, run_1, run_2);
        CREATE INDEX preferences_by_query ON preferences (dataset_id, query_id, run_1, run_2);"""

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
