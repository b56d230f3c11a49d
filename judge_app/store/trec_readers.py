"""Reading TREC qrels and runs with DuckDB: the two line readers, and the rule of trec_eval's
order.  They parse files into relations on a DuckDB connection handed to them (TEMP tables,
or a ``read_csv`` relation to select from) and know no store table (a test holds it): the loads
(:mod:`judge_app.store.run_load`, :mod:`judge_app.store.qrels_load`) decide what is kept.  They
live in the store because they run SQL, which lives nowhere else; the format's vocabulary and
its error builders are :mod:`judge_app.io.trec`'s.

Two readers, no per-row Python:

* the *fast* reader (:func:`fast_reader`): DuckDB's CSV reader with one space as the
  delimiter, no quoting, explicit column types and strict field counts.  The caller selects
  from it with every row checked by :func:`guarded` in the pass that stores it, and gives up
  (:class:`NotSimple`) on anything unusual — tabs or other whitespace but spaces (a byte scan,
  :func:`~judge_app.io.trec.plain_layout`), runs of spaces, a missing tag, a fractional rank, a
  non-finite score, a duplicate doc, bytes that are not UTF-8 — so a file it accepts is read
  exactly as the precise reader would read it;
* the *precise* reader (:func:`stage_run`, :func:`stage_qrels`): the whole text split on
  newlines (each line keeps its number, blank lines included) and each line split on runs of
  whitespace with a regular expression.  Its errors name the file, line and field: a run line
  has six fields and a qrels line four, no fewer (a cut last line, its tag gone) nor more.

Both run inside the caller's transaction, so a refused file stores nothing.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from judge_app.errors import InputError
from judge_app.io.compression import compression_of, decompress_to
from judge_app.io.formats import SMART
from judge_app.io.ids import MAX_ID_BYTES, id_too_long, normalized
from judge_app.io.trec import (
    QRELS_FIELDS,
    RUN_FIELDS,
    SMART_FIELDS,
    SMART_GRADE,
    WHITESPACE,
    TrecFile,
    bad_bytes_error,
    check_file,
    nul_field_error,
    smart_scale_error,
)

_SPLIT = r"[ \t\x0b\x0c\r]+"


MAX_EXACT = 2**53


MAX_RANK = 2**31 - 1


class NotSimple(Exception):
    """The fast reader met something only the precise reader handles."""


def one(cur: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None
         ) -> tuple | None:
    rows = cur.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


@contextmanager
def duckdb_readable(trec: TrecFile) -> Iterator[str]:
    """A path DuckDB can read: the file itself, or a decompressed temporary copy (DuckDB
    would read a truncated gzip file's first lines without an error)."""
    check_file(trec.path)
    if trec.plain is not None:  # expanded before the transaction (io.trec.expanded_trec)
        yield str(trec.plain)
        return
    if compression_of(trec.path) is None:
        yield str(trec.path)
        return
    with tempfile.TemporaryDirectory(prefix="sxs-load-") as folder:
        yield str(decompress_to(trec.path, Path(folder) / "plain.txt"))


def fast_reader(columns: str) -> str:
    """DuckDB's CSV reader over ``$path``: one space between fields, typed columns."""
    return (f"read_csv($path, delim=' ', quote='', escape='', header=false, auto_detect=false,"
            f" strict_mode=true, null_padding=false, columns={columns})")


RUN_COLUMNS = ("{'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', "
                "'rank': 'DOUBLE', 'score': 'DOUBLE', 'tag': 'VARCHAR'}")


QRELS_COLUMNS = ("{'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR', "
                  "'grade': 'DOUBLE'}")


def whole(value: str) -> str:
    """SQL: ``value`` (a DOUBLE) is a whole number that a double holds exactly."""
    return f"({value} = round({value}) AND abs({value}) <= {MAX_EXACT})"


def _stage_fields(cur: duckdb.DuckDBPyConnection, trec: TrecFile, names: tuple[str, ...]
                  ) -> None:
    """TEMP TABLE trec_fields(line, f): each non-blank line split on runs of whitespace; a
    NUL byte refused naming its line and field (one of ``names``)."""
    source = trec.source
    with duckdb_readable(trec) as path:
        try:
            cur.execute("""
                CREATE OR REPLACE TEMP TABLE trec_lines AS
                WITH t AS (
                    SELECT string_split(CASE WHEN starts_with(content, chr(65279))
                                             THEN content[2:] ELSE content END, chr(10))
                           AS lines FROM read_text($path))
                SELECT i AS line, lines[i] AS text FROM t, range(1, len(lines) + 1) r(i)""",
                        {"path": path})
        except duckdb.InvalidInputException as error:
            if "UTF-8" in str(error) or "unicode" in str(error).lower():
                raise bad_bytes_error(trec.path) from None
            raise InputError(source, f"cannot read the file: {str(error).splitlines()[0]}"
                             ) from None
    nul = one(cur, "SELECT line, text FROM trec_lines WHERE contains(text, chr(0)) "
                    "ORDER BY line LIMIT 1")
    if nul:
        raise nul_field_error(source, nul[0], nul[1], names)
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE trec_fields AS
        SELECT line, regexp_split_to_array(trim(text, $ws), $split) AS f FROM trec_lines
        WHERE trim(text, $ws) <> ''""", {"ws": WHITESPACE, "split": _SPLIT})
    (characters, fields) = one(cur, "SELECT (SELECT count(*) FROM trec_lines WHERE text <> ''), "
                                     "(SELECT count(*) FROM trec_fields)")
    cur.execute("DROP TABLE trec_lines")
    if fields == 0:
        raise InputError(source, "the file has no rows" if characters else "the file is empty")


def _check_field_count(cur: duckdb.DuckDBPyConnection, source: str,
                       names: tuple[str, ...]) -> None:
    """InputError naming the first line without exactly ``len(names)`` fields, and when it
    has fewer, the first field missing (a cut last line loses its tag first)."""
    want = len(names)
    bad = one(cur, "SELECT line, len(f) FROM trec_fields WHERE len(f) <> ? "
                    "ORDER BY line LIMIT 1", [want])
    if bad:
        raise InputError(source, f"expected {want} fields, found {bad[1]}", line=bad[0],
                         field=names[bad[1]] if bad[1] < want else None)


def _check_whole(cur: duckdb.DuckDBPyConnection, source: str, index: int, name: str) -> None:
    value = f"TRY_CAST(f[{index}] AS DOUBLE)"
    bad = one(cur, f"SELECT line, f[{index}] FROM trec_fields "
                    f"WHERE NOT coalesce({whole(value)}, false) ORDER BY line LIMIT 1")
    if bad:
        raise InputError(source, f"{name} {bad[1]!r} is not a whole number", line=bad[0],
                         field=name)


def stage_run(cur: duckdb.DuckDBPyConnection, trec: TrecFile) -> None:
    """TEMP TABLE incoming_run(query_id, doc_id, rank, score, tag, line) read by the precise
    reader; InputError naming the line for a wrong field count, a rank that is not a whole
    number or a score that is not a finite number."""
    source = trec.source
    _stage_fields(cur, trec, RUN_FIELDS)
    _check_field_count(cur, source, RUN_FIELDS)
    _check_whole(cur, source, 4, "rank")
    score = "TRY_CAST(f[5] AS DOUBLE)"
    bad = one(cur, f"SELECT line, f[5] FROM trec_fields WHERE NOT coalesce(isfinite({score}), "
                    "false) ORDER BY line LIMIT 1")
    if bad:
        raise InputError(source, f"score {bad[1]!r} is not a number", line=bad[0],
                         field="score")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE incoming_run AS
        SELECT f[1] AS query_id, f[3] AS doc_id, CAST(CAST(f[4] AS DOUBLE) AS BIGINT) AS rank,
               {score} AS score, f[6] AS tag, line
        FROM trec_fields""")
    cur.execute("DROP TABLE trec_fields")
    _normalize_staged(cur, "incoming_run", trec)


def stage_qrels(cur: duckdb.DuckDBPyConnection, trec: TrecFile, scale_values: tuple[int, ...],
                 scale_description: str) -> bool:
    """TEMP TABLE incoming_qrels(query_id, doc_id, grade, line); True if read as SMART."""
    source = trec.source
    _stage_fields(cur, trec, SMART_FIELDS if trec.qrels_format == SMART else QRELS_FIELDS)
    _check_field_count(cur, source, (*SMART_FIELDS, "column 3", "column 4")
                       if trec.qrels_format == SMART else QRELS_FIELDS)
    smart = trec.qrels_format == SMART
    if trec.qrels_format == "auto":
        zero = "coalesce(TRY_CAST({} AS DOUBLE) = 0, false)"
        (all_zero, docs_zero) = one(
            cur, f"SELECT bool_and({zero.format('f[3]')} AND {zero.format('f[4]')}), "
                 f"bool_and({zero.format('f[2]')}) FROM trec_fields")
        smart = bool(all_zero) and not docs_zero
    if smart:
        if tuple(scale_values) != (0, SMART_GRADE):
            raise smart_scale_error(source, scale_description)
        cur.execute(f"""CREATE OR REPLACE TEMP TABLE incoming_qrels AS
                        SELECT f[1] AS query_id, f[2] AS doc_id, {SMART_GRADE} AS grade,
                               f[4] AS grade_text, line FROM trec_fields""")
    else:
        _check_whole(cur, source, 4, "grade")
        cur.execute("""CREATE OR REPLACE TEMP TABLE incoming_qrels AS
                       SELECT f[1] AS query_id, f[3] AS doc_id,
                              CAST(CAST(f[4] AS DOUBLE) AS BIGINT) AS grade,
                              f[4] AS grade_text, line FROM trec_fields""")
    cur.execute("DROP TABLE trec_fields")
    _normalize_staged(cur, "incoming_qrels", trec)
    return smart


def _normalize_staged(cur: duckdb.DuckDBPyConnection, table: str, trec: TrecFile) -> None:
    """Rewrite the ids of a staged TEMP table by the file's ``--normalize-ids``; then refuse
    the first line whose id is longer than an id holds."""
    if table not in _STAGED_TABLES:
        raise ValueError(f"not a staged TREC table: {table!r}")
    if trec.normalize_ids is not None:
        cur.execute(f"UPDATE {table} SET query_id = "
                    f"{normalized('query_id', trec.normalize_ids)}, doc_id = "
                    f"{normalized('doc_id', trec.normalize_ids)}")
    long = one(cur, f"""SELECT line, strlen(query_id) > {MAX_ID_BYTES},
                                greatest(strlen(query_id), strlen(doc_id))
                         FROM {table} WHERE {TOO_LONG} ORDER BY line LIMIT 1""")
    if long:
        raise id_too_long(trec.source, int(long[2]), int(long[0]),
                          "query_id" if long[1] else "doc_id")


# an id longer than an id holds (strlen: bytes of UTF-8); the fast readers leave such a file
# to the precise one, which names the line
TOO_LONG = f"(strlen(query_id) > {MAX_ID_BYTES} OR strlen(doc_id) > {MAX_ID_BYTES})"


_STAGED_TABLES = ("incoming_qrels", "incoming_run")  # the TEMP tables a TREC load stages


def qrels_rows(cur: duckdb.DuckDBPyConnection, trec: TrecFile, scale_values: tuple[int, ...],
               scale_description: str) -> tuple[list[tuple], bool]:
    """The qrels' rows (query_id, doc_id, grade text, line) read by the precise reader, for
    callers that map raw grade values themselves; and whether the file was read as SMART."""
    smart = stage_qrels(cur, trec, scale_values, scale_description)
    rows = cur.execute("SELECT query_id, doc_id, CASE WHEN $smart THEN CAST(grade AS VARCHAR) "
                       "ELSE grade_text END, line FROM incoming_qrels ORDER BY line",
                       {"smart": smart}).fetchall()
    cur.execute("DROP TABLE incoming_qrels")
    return rows, smart


class MixedTags(NotSimple):
    """The run's lines do not all carry the same tag (the name falls back to the file's)."""


class Unordered(NotSimple):
    """The run's lines are not already in trec_eval's order (it has to be re-ranked)."""


_ODD = "sxs: not simple"


_TAGS = "sxs: mixed tags"


# A row is in trec_eval's order when it starts a query at rank 1, or follows the row before
# in the same query at the next rank with a lower score, or the same score and a lower doc id.
# Rows that are all in order in *some* sequence, each query starting at rank 1 only once, have
# exactly the ranks re-ranking would give (each query is one block ranked 1..n, strictly
# falling by score then doc id), so they are stored without sorting.  The sequence checked is
# the stored rows as a table scan yields them (the file's order): an unordered window over
# stored rows is cheap, while one over the reader would make the load single-threaded.
IN_ORDER = """CASE WHEN prev_query IS DISTINCT FROM query_id THEN rank = 1
                    ELSE rank = prev_rank + 1 AND (score < prev_score
                         OR (score = prev_score AND doc_id < prev_doc)) END"""


WITH_PREVIOUS = """(SELECT query_id, doc_id, rank, score,
                            lag(query_id) OVER () AS prev_query, lag(rank) OVER () AS prev_rank,
                            lag(score) OVER () AS prev_score, lag(doc_id) OVER () AS prev_doc
                     FROM {rows})"""


OUT_OF_ORDER = f"bool_or(NOT ({IN_ORDER}))"


_PROBE = 10_000
"""How many of a run's first lines are looked at before storing it with the file's ranks:
a file out of order there is re-ranked at once instead of stored, checked and stored again."""


def guarded(value: str, odd: str, tag_guard: str | None = None) -> str:
    """SQL: ``value``, or a DuckDB error when the row is ``odd`` (or its tag differs): the
    fast reader checks every row in the same pass that stores it."""
    tags = f"WHEN {tag_guard} THEN error('{_TAGS}') " if tag_guard else ""
    return f"CASE WHEN {odd} THEN error('{_ODD}') {tags}ELSE {value} END"


def fast_failure(error: duckdb.Error) -> NotSimple:
    text = str(error)
    return MixedTags() if _TAGS in text else NotSimple()


def first_lines_in_order(cur: duckdb.DuckDBPyConnection, reader: str, params: dict) -> bool:
    """Whether the run's first :data:`_PROBE` lines are in trec_eval's order (True when they
    cannot be read: the load that follows says why)."""
    try:
        first = WITH_PREVIOUS.format(rows=f"(SELECT * FROM {reader} LIMIT {_PROBE})")
        found = one(cur, f"SELECT {OUT_OF_ORDER} FROM {first}", {"path": params["path"]})
    except duckdb.Error:
        return True
    return not (found and found[0])
