"""Loading TREC qrels and runs straight from the file into the store, parsed by DuckDB.

Two readers, no per-row Python:

* the *fast* reader: DuckDB's CSV reader with one space as the delimiter, no quoting, explicit
  column types and strict field counts, every row checked in the pass that stores it.  It is
  tried first and gives up (:class:`NotSimple`) on anything unusual — tabs or other
  whitespace but spaces (a byte scan, :func:`~judge_app.io.trec.plain_layout`), runs of
  spaces, a missing tag, a fractional rank, a non-finite score, a duplicate doc, bytes that
  are not UTF-8 — so a file it accepts is read exactly as the precise reader would read it.
  A run already in trec_eval's order keeps its ranks without a sort;
* the *precise* reader: the whole text split on newlines (each line keeps its number, blank
  lines included) and each line split on runs of whitespace with a regular expression.  Its
  errors name the file, line and field; it runs when the fast reader gives up.

Both run inside the caller's transaction, so a refused file stores nothing.  Ranks are
re-derived from score descending then doc id descending (trec_eval's rule) unless the caller
trusts the file's ranks.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import duckdb
import numpy as np

from judge_app.errors import ConflictError, InputError, SxsError
from judge_app.io.compression import compression_of, decompress_to
from judge_app.io.ids import MAX_ID_BYTES, id_too_long
from judge_app.io.nul import plain_text
from judge_app.io.trec import (
    NOT_PLAIN,
    QRELS_FIELDS,
    RUN_FIELDS,
    SMART_FIELDS,
    SMART_GRADE,
    WHITESPACE,
    TrecFile,
    bad_bytes_error,
    check_file,
    nul_field_error,
    plain_layout,
    smart_scale_error,
)
from judge_app.store.import_figures import Check, import_figures, normalized, normalized_ids
from judge_app.store.model import Dataset

_SPLIT = r"[ \t\x0b\x0c\r]+"


_MAX_EXACT = 2**53
_MAX_RANK = 2**31 - 1


class NotSimple(Exception):
    """The fast reader met something only the precise reader handles."""


@dataclass(frozen=True)
class QrelsLoad:
    """What a qrels load stored: rows written, duplicate lines merged, SMART or TREC."""

    rows: int
    merged: int
    smart: bool


def _one(cur: duckdb.DuckDBPyConnection, sql: str, params: list | dict | None = None
         ) -> tuple | None:
    rows = cur.execute(sql, params or []).fetchall()
    return rows[0] if rows else None


@contextmanager
def _duckdb_readable(trec: TrecFile) -> Iterator[str]:
    """A path DuckDB can read: the file itself, or a decompressed temporary copy (DuckDB
    would read a truncated gzip file's first lines without an error)."""
    check_file(trec.path)
    if compression_of(trec.path) is None:
        yield str(trec.path)
        return
    with tempfile.TemporaryDirectory(prefix="sxs-load-") as folder:
        yield str(decompress_to(trec.path, Path(folder) / "plain.txt"))


def _fast_reader(columns: str) -> str:
    """DuckDB's CSV reader over ``$path``: one space between fields, typed columns."""
    return (f"read_csv($path, delim=' ', quote='', escape='', header=false, auto_detect=false,"
            f" strict_mode=true, null_padding=false, columns={columns})")


_RUN_COLUMNS = ("{'query_id': 'VARCHAR', 'q0': 'VARCHAR', 'doc_id': 'VARCHAR', "
                "'rank': 'DOUBLE', 'score': 'DOUBLE', 'tag': 'VARCHAR'}")
_QRELS_COLUMNS = ("{'query_id': 'VARCHAR', 'iteration': 'VARCHAR', 'doc_id': 'VARCHAR', "
                  "'grade': 'DOUBLE'}")


def _whole(value: str) -> str:
    """SQL: ``value`` (a DOUBLE) is a whole number that a double holds exactly."""
    return f"({value} = round({value}) AND abs({value}) <= {_MAX_EXACT})"


# -- the precise reader ---------------------------------------------------------------------

def _stage_fields(cur: duckdb.DuckDBPyConnection, trec: TrecFile, names: tuple[str, ...]
                  ) -> None:
    """TEMP TABLE trec_fields(line, f): each non-blank line split on runs of whitespace; a
    NUL byte refused naming its line and field (one of ``names``)."""
    source = trec.source
    with _duckdb_readable(trec) as path:
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
    nul = _one(cur, "SELECT line, text FROM trec_lines WHERE contains(text, chr(0)) "
                    "ORDER BY line LIMIT 1")
    if nul:
        raise nul_field_error(source, nul[0], nul[1], names)
    cur.execute("""
        CREATE OR REPLACE TEMP TABLE trec_fields AS
        SELECT line, regexp_split_to_array(trim(text, $ws), $split) AS f FROM trec_lines
        WHERE trim(text, $ws) <> ''""", {"ws": WHITESPACE, "split": _SPLIT})
    (characters, fields) = _one(cur, "SELECT (SELECT count(*) FROM trec_lines WHERE text <> ''), "
                                     "(SELECT count(*) FROM trec_fields)")
    cur.execute("DROP TABLE trec_lines")
    if fields == 0:
        raise InputError(source, "the file has no rows" if characters else "the file is empty")


def _check_field_count(cur: duckdb.DuckDBPyConnection, source: str, low: int, high: int
                       ) -> None:
    bad = _one(cur, "SELECT line, len(f) FROM trec_fields WHERE len(f) NOT BETWEEN ? AND ? "
                    "ORDER BY line LIMIT 1", [low, high])
    if bad:
        want = low if bad[1] < low else high
        raise InputError(source, f"expected {want} fields, found {bad[1]}", line=bad[0])


def _check_whole(cur: duckdb.DuckDBPyConnection, source: str, index: int, name: str) -> None:
    value = f"TRY_CAST(f[{index}] AS DOUBLE)"
    bad = _one(cur, f"SELECT line, f[{index}] FROM trec_fields "
                    f"WHERE NOT coalesce({_whole(value)}, false) ORDER BY line LIMIT 1")
    if bad:
        raise InputError(source, f"{name} {bad[1]!r} is not a whole number", line=bad[0],
                         field=name)


def stage_run(cur: duckdb.DuckDBPyConnection, trec: TrecFile) -> None:
    """TEMP TABLE incoming_run(query_id, doc_id, rank, score, tag, line) read by the precise
    reader; InputError naming the line for a wrong field count, a rank that is not a whole
    number or a score that is not a finite number."""
    source = trec.source
    _stage_fields(cur, trec, RUN_FIELDS)
    _check_field_count(cur, source, 5, 6)
    _check_whole(cur, source, 4, "rank")
    score = "TRY_CAST(f[5] AS DOUBLE)"
    bad = _one(cur, f"SELECT line, f[5] FROM trec_fields WHERE NOT coalesce(isfinite({score}), "
                    "false) ORDER BY line LIMIT 1")
    if bad:
        raise InputError(source, f"score {bad[1]!r} is not a number", line=bad[0],
                         field="score")
    cur.execute(f"""
        CREATE OR REPLACE TEMP TABLE incoming_run AS
        SELECT f[1] AS query_id, f[3] AS doc_id, CAST(CAST(f[4] AS DOUBLE) AS BIGINT) AS rank,
               {score} AS score, coalesce(f[6], '') AS tag, line
        FROM trec_fields""")
    cur.execute("DROP TABLE trec_fields")
    _normalize_staged(cur, "incoming_run", trec)


def _stage_qrels(cur: duckdb.DuckDBPyConnection, trec: TrecFile, scale_values: tuple[int, ...],
                 scale_description: str) -> bool:
    """TEMP TABLE incoming_qrels(query_id, doc_id, grade, line); True if read as SMART."""
    source = trec.source
    _stage_fields(cur, trec, SMART_FIELDS if trec.qrels_format == "smart" else QRELS_FIELDS)
    _check_field_count(cur, source, 4, 4)
    smart = trec.qrels_format == "smart"
    if trec.qrels_format == "auto":
        zero = "coalesce(TRY_CAST({} AS DOUBLE) = 0, false)"
        (all_zero, docs_zero) = _one(
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
    long = _one(cur, f"""SELECT line, strlen(query_id) > {MAX_ID_BYTES},
                                greatest(strlen(query_id), strlen(doc_id))
                         FROM {table} WHERE {_TOO_LONG} ORDER BY line LIMIT 1""")
    if long:
        raise id_too_long(trec.source, int(long[2]), int(long[0]),
                          "query_id" if long[1] else "doc_id")


# an id longer than an id holds (strlen: bytes of UTF-8); the fast readers leave such a file
# to the precise one, which names the line
_TOO_LONG = f"(strlen(query_id) > {MAX_ID_BYTES} OR strlen(doc_id) > {MAX_ID_BYTES})"


_STAGED_TABLES = ("incoming_qrels", "incoming_run")  # the TEMP tables a TREC load stages


def qrels_rows(cur: duckdb.DuckDBPyConnection, trec: TrecFile, scale_values: tuple[int, ...],
               scale_description: str) -> tuple[list[tuple], bool]:
    """The qrels' rows (query_id, doc_id, grade text, line) read by the precise reader, for
    callers that map raw grade values themselves; and whether the file was read as SMART."""
    smart = _stage_qrels(cur, trec, scale_values, scale_description)
    rows = cur.execute("SELECT query_id, doc_id, CASE WHEN $smart THEN CAST(grade AS VARCHAR) "
                       "ELSE grade_text END, line FROM incoming_qrels ORDER BY line",
                       {"smart": smart}).fetchall()
    cur.execute("DROP TABLE incoming_qrels")
    return rows, smart


# -- runs ----------------------------------------------------------------------------------

def run_row(cur: duckdb.DuckDBPyConnection, dataset: Dataset, name: str, source: str,
             replace: bool) -> int:
    """The run's id: a new run, or the existing one emptied when ``replace``."""
    if not plain_text(name, "run name").strip():
        raise SxsError("a run needs a name")
    found = _one(cur, "SELECT run_id FROM runs WHERE dataset_id = ? AND name = ?",
                 [dataset.dataset_id, name])
    if found and not replace:
        raise SxsError(f"run {name!r} already exists in dataset {dataset.name!r} "
                       "(use --replace to overwrite it)")
    if found:
        cur.execute("DELETE FROM run_results WHERE run_id = ?", [found[0]])
        cur.execute("UPDATE runs SET source = ?, created_at = current_timestamp "
                    "WHERE run_id = ?", [source, found[0]])
        return int(found[0])
    (run_id,) = _one(cur, "INSERT INTO runs (dataset_id, name, source) VALUES (?, ?, ?) "
                          "RETURNING run_id", [dataset.dataset_id, name, source])
    return int(run_id)


def _rerank(relation: str) -> str:
    return f"""SELECT query_id, doc_id, row_number() OVER (
                   PARTITION BY query_id ORDER BY score DESC, doc_id DESC) AS rank, score
               FROM {relation}"""


def store_staged_run(cur: duckdb.DuckDBPyConnection, dataset: Dataset, name: str, source: str,
                     *, trust_rank: bool, dedupe: bool, replace: bool) -> int:
    """Store the relation ``incoming_run`` (query_id, doc_id, rank, score, line) as run
    ``name``; the checks of :meth:`~judge_app.store.runs.Runs.put_run`.  Returns rows stored."""
    repeat = _one(cur, """
        SELECT query_id, doc_id, min(line), max(line) FROM incoming_run
        GROUP BY query_id, doc_id HAVING count(*) > 1
        ORDER BY min(line) LIMIT 1""")
    if repeat and not dedupe:
        raise InputError(source, f"doc {repeat[1]!r} appears twice in query "
                         f"{repeat[0]!r} (lines {repeat[2]} and {repeat[3]}); "
                         "--dedupe keeps the first", line=repeat[3], field="doc_id")
    kept = "incoming_run"
    if repeat:
        kept = """(SELECT * FROM incoming_run QUALIFY row_number() OVER (
                     PARTITION BY query_id, doc_id ORDER BY line) = 1)"""
    if trust_rank:
        bad = _one(cur, f"SELECT line, rank FROM {kept} WHERE rank < 1 OR rank > {_MAX_RANK} "
                        "ORDER BY line LIMIT 1")
        if bad:
            reason = "is not positive" if bad[1] < 1 else "is too large"
            raise InputError(source, f"rank {bad[1]} {reason}", line=bad[0], field="rank")
        tie = _one(cur, f"""SELECT query_id, rank, max(line) FROM {kept}
                              GROUP BY query_id, rank HAVING count(*) > 1
                              ORDER BY max(line) LIMIT 1""")
        if tie:
            raise InputError(source, f"query {tie[0]!r} has two docs at rank {tie[1]}",
                             line=tie[2], field="rank")
        ranked = f"SELECT query_id, doc_id, rank, score FROM {kept}"
    else:
        ranked = _rerank(kept)
    run_id = run_row(cur, dataset, name, source, replace)
    cur.execute(f"INSERT INTO run_results SELECT ?, query_id, doc_id, rank, score "
                f"FROM ({ranked})", [run_id])
    (stored,) = _one(cur, "SELECT count(*) FROM run_results WHERE run_id = ?", [run_id])
    return int(stored)


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
_IN_ORDER = """CASE WHEN prev_query IS DISTINCT FROM query_id THEN rank = 1
                    ELSE rank = prev_rank + 1 AND (score < prev_score
                         OR (score = prev_score AND doc_id < prev_doc)) END"""
_WITH_PREVIOUS = """(SELECT query_id, doc_id, rank, score,
                            lag(query_id) OVER () AS prev_query, lag(rank) OVER () AS prev_rank,
                            lag(score) OVER () AS prev_score, lag(doc_id) OVER () AS prev_doc
                     FROM {rows})"""
_OUT_OF_ORDER = f"bool_or(NOT ({_IN_ORDER}))"
_PROBE = 10_000
"""How many of a run's first lines are looked at before storing it with the file's ranks:
a file out of order there is re-ranked at once instead of stored, checked and stored again."""


def _guarded(value: str, odd: str, tag_guard: str | None = None) -> str:
    """SQL: ``value``, or a DuckDB error when the row is ``odd`` (or its tag differs): the
    fast reader checks every row in the same pass that stores it."""
    tags = f"WHEN {tag_guard} THEN error('{_TAGS}') " if tag_guard else ""
    return f"CASE WHEN {odd} THEN error('{_ODD}') {tags}ELSE {value} END"


def _fast_failure(error: duckdb.Error) -> NotSimple:
    text = str(error)
    return MixedTags() if _TAGS in text else NotSimple()


def _first_lines_in_order(cur: duckdb.DuckDBPyConnection, reader: str, params: dict) -> bool:
    """Whether the run's first :data:`_PROBE` lines are in trec_eval's order (True when they
    cannot be read: the load that follows says why)."""
    try:
        first = _WITH_PREVIOUS.format(rows=f"(SELECT * FROM {reader} LIMIT {_PROBE})")
        found = _one(cur, f"SELECT {_OUT_OF_ORDER} FROM {first}", {"path": params["path"]})
    except duckdb.Error:
        return True
    return not (found and found[0])


def _fast_run(cur: duckdb.DuckDBPyConnection, dataset: Dataset, trec: TrecFile,
              name: str | None, trust_rank: bool, replace: bool, ordered: bool
              ) -> tuple[str, int]:
    """The fast reader for a run: typed columns, every row checked as it is stored; with
    ``ordered``, the file's ranks are kept if every line is already in trec_eval's order."""
    reader = normalized_ids(_fast_reader(_RUN_COLUMNS), trec.normalize_ids)
    odd = (f"query_id IS NULL OR q0 IS NULL OR doc_id IS NULL OR tag IS NULL OR rank IS NULL "
           f"OR NOT {_whole('rank')} OR rank < 1 OR rank > {_MAX_RANK} OR score IS NULL "
           f"OR NOT isfinite(score) OR {_TOO_LONG}")
    with _duckdb_readable(trec) as path, ThreadPoolExecutor(max_workers=1) as scan:
        # the byte scan for whitespace other than spaces runs alongside the load (its
        # answer is waited for before anything else is checked)
        plain = scan.submit(plain_layout, Path(path))
        params: dict = {"path": path}
        tag_guard = None
        if name is None:
            try:
                first = _one(cur, f"SELECT tag FROM {reader} LIMIT 1", {"path": path})
            except duckdb.Error:
                raise NotSimple from None
            if first is None or first[0] is None or any(c in first[0] for c in NOT_PLAIN + "\r"):
                raise NotSimple  # the precise reader splits the line and names the field
            name, params["tag"], tag_guard = first[0], first[0], "tag <> $tag"
        run_id = run_row(cur, dataset, name, trec.source, replace)
        ordered = ordered and not trust_rank and _first_lines_in_order(cur, reader, params)
        score = _guarded("score", odd, tag_guard)
        rank = ("CAST(rank AS INTEGER)" if trust_rank or ordered else
                "row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC)")
        try:
            cur.execute(f"INSERT INTO run_results SELECT $run, query_id, doc_id, {rank}, "
                        f"{score} FROM {reader}", {**params, "run": run_id})
        except duckdb.Error as error:
            if not plain.result():  # a tab in a field, say: not a mixed-tags file
                raise NotSimple from None
            raise _fast_failure(error) from None
        if not plain.result():
            raise NotSimple
    # a doc twice in a query (or, with trusted ranks, two docs at one rank): the precise
    # reader names the lines, or keeps the first with --dedupe.  Equal hashes of different
    # pairs only send the file to the precise reader, which compares the ids themselves.
    if ordered:
        return name, _checked_in_order(cur, run_id)
    keys = ("doc_id", "rank") if trust_rank else ("doc_id",)
    hashes = _pair_hashes(cur, "run_results WHERE run_id = $run", {"run": run_id}, keys)
    if len(hashes[0]) == 0:
        raise NotSimple
    with ThreadPoolExecutor(max_workers=2) as pool:
        if any(_any_repeated(values, pool) for values in hashes):
            raise NotSimple
    return name, len(hashes[0])


def _checked_in_order(cur: duckdb.DuckDBPyConnection, run_id: int) -> int:
    """The rows of a run stored with the file's ranks, once they are known to be in
    trec_eval's order (else :class:`Unordered`) with no (query, doc) pair twice (else
    :class:`NotSimple`).

    In order, each query is one block of rows ranked 1..n in the table's scan order, so a
    pair can only repeat inside a block: the pairs' hashes are sorted block by block
    (:func:`_repeated_in_blocks`) while DuckDB checks the order on another thread with
    :data:`_QUICK_ORDER_CHECK`.  That check compares query ids by their hashes and scores
    only: when two queries' hashes collide, or a query holds two equal scores (the order
    then rests on doc ids), the exact :data:`_ORDER_CHECK` decides."""
    fetched = cur.execute("SELECT hash(query_id, doc_id) AS pair, rank FROM run_results "
                          "WHERE run_id = ?", [run_id]).fetchnumpy()
    pairs, ranks = np.asarray(fetched["pair"]), np.asarray(fetched["rank"])
    if len(pairs) == 0:
        raise NotSimple
    with ThreadPoolExecutor(max_workers=1) as pool:
        checked = pool.submit(_one, cur, _QUICK_ORDER_CHECK, [run_id])
        starts = _block_starts(ranks)
        repeated = starts is not None and _repeated_in_blocks(pairs, starts)
        starts_found, queries, query_hashes, out_of_order, ties = checked.result()
    if starts is None or out_of_order or starts_found != queries:
        raise Unordered
    if ties or query_hashes != queries:
        starts_found, queries, out_of_order = _one(cur, _ORDER_CHECK, [run_id])
        if starts_found != queries or out_of_order:
            raise Unordered
    if repeated:
        raise NotSimple
    return len(pairs)


def _block_starts(ranks: np.ndarray) -> np.ndarray | None:
    """Where each block of ranks 1, 2, … n starts (None when the ranks, in the order read,
    are not such blocks)."""
    first = ranks == 1
    if not first[0] or not np.all(first[1:] | (ranks[1:] == ranks[:-1] + 1)):
        return None
    return np.flatnonzero(first)


_LENGTHS = 64
"""Blocks of at most this many distinct lengths are sorted as matrices, one per length."""
_BATCH = 1 << 20
"""Hashes sorted at once (a matrix of whole blocks, at least one)."""


def _repeated_in_blocks(pairs: np.ndarray, starts: np.ndarray) -> bool:
    """Whether a value occurs twice within one block of ``pairs`` (blocks start at
    ``starts``; ``pairs`` is sorted in place).  Blocks of one length are sorted together as
    the rows of a matrix (a sort per row: short, cache-sized sorts); a run of too many
    block lengths is sorted whole.  When every block has one length they tile ``pairs``, and
    the matrices are views of it (no copy)."""
    lengths = np.diff(np.append(starts, len(pairs)))
    distinct = np.unique(lengths)
    if len(distinct) > _LENGTHS:
        return _rows_repeat(pairs.reshape(1, -1))
    for length in distinct[distinct > 1].tolist():
        firsts = starts[lengths == length]
        step = max(1, _BATCH // length)
        for low in range(0, len(firsts), step):
            chunk = firsts[low: low + step]
            rows = (pairs[chunk[0]: chunk[-1] + length].reshape(-1, length)  # a view
                    if len(distinct) == 1 else pairs[chunk[:, None] + np.arange(length)])
            if _rows_repeat(rows):
                return True
    return False


def _rows_repeat(rows: np.ndarray) -> bool:
    """Whether some row of the matrix holds a value twice (the rows are sorted in place)."""
    rows.sort(axis=1)
    return bool((rows[:, 1:] == rows[:, :-1]).any())


_ORDER_CHECK = f"""SELECT count(*) FILTER (WHERE rank = 1),
                          count(DISTINCT query_id) FILTER (WHERE rank = 1), {_OUT_OF_ORDER}
                   FROM {_WITH_PREVIOUS.format(rows="run_results WHERE run_id = ?")}"""
"""A run's rows in the table's scan order: how many rows start a query (rank 1), how many
queries those are (a query in two blocks starts twice), and whether a row is out of order."""

_QUICK_ORDER_CHECK = """
    SELECT count(*) FILTER (WHERE rank = 1), count(DISTINCT query_id), count(DISTINCT query),
           bool_or(NOT (CASE WHEN prev_query IS DISTINCT FROM query THEN rank = 1
                             ELSE rank = prev_rank + 1 AND score <= prev_score END)),
           count(*) FILTER (WHERE prev_query = query AND score = prev_score)
    FROM (SELECT query_id, hash(query_id) AS query, rank, score,
                 lag(hash(query_id)) OVER () AS prev_query, lag(rank) OVER () AS prev_rank,
                 lag(score) OVER () AS prev_score
          FROM run_results WHERE run_id = ?)"""
""":data:`_ORDER_CHECK` without the doc ids, queries compared by their hashes: rows starting
a query, queries, distinct query hashes (as many as queries: the hashes tell queries apart),
whether a row is out of order, and how many rows have their query's previous score (ties,
which only doc ids can order)."""

_PART_BITS = 2
"""The hashes are sorted in ``2 ** _PART_BITS`` parts (by their top bits), on worker threads."""


def _pair_hashes(cur: duckdb.DuckDBPyConnection, rows: str, params: dict,
                 keys: tuple[str, ...]) -> list[np.ndarray]:
    """Per key column, the 64-bit hashes of ``(query_id, key)`` of ``rows`` (SQL: a table
    and its WHERE clause, from this module)."""
    columns = ", ".join(f"hash(query_id, {key}) AS {key}" for key in keys)
    fetched = cur.execute(f"SELECT {columns} FROM {rows}", params).fetchnumpy()
    return [np.asarray(fetched[key]) for key in keys]


def _any_repeated(values: np.ndarray, pool: ThreadPoolExecutor) -> bool:
    """Whether a value occurs twice in ``values`` (which may be sorted in place).  Equal
    values share their top bits, so the values are split by the top :data:`_PART_BITS` into
    parts, each sorted on a worker thread and looked at for two equal neighbours — cheaper
    than a distinct count (a hash table over every row), and numpy sorts without the GIL."""
    if not _PART_BITS:
        return _rows_repeat(values.reshape(1, -1))
    tops = (values >> np.uint64(64 - _PART_BITS)).astype(np.uint8)  # a byte a value

    def repeats(part: int) -> bool:
        return _rows_repeat(values[tops == part].reshape(1, -1))

    return any(pool.map(repeats, range(1 << _PART_BITS)))


def _check_run(cur: duckdb.DuckDBPyConnection, dataset: Dataset, name: str,
               check: Check | None, merged: int = 0) -> None:
    """Call ``check`` with the figures of the run just written (still in its transaction)."""
    if check is None:
        return
    (run_id,) = _one(cur, "SELECT run_id FROM runs WHERE dataset_id = ? AND name = ?",
                     [dataset.dataset_id, name])
    check(import_figures(cur, dataset.dataset_id, "run",
                         "(SELECT query_id, doc_id, rank FROM run_results WHERE run_id = $run)",
                         {"run": run_id}, merged=merged))


def load_run(begin: Callable, dataset: Dataset, trec: TrecFile, name: str | None, *,
             trust_rank: bool, dedupe: bool, replace: bool, check: Check | None = None
             ) -> tuple[str, int]:
    """Load a TREC run file as a run: the fast reader, else the precise one (each in its own
    transaction from ``begin()``).  The name defaults to the file's tag when every line has
    the same one, else the file name.  ``check`` sees the run's figures before the
    transaction commits (raising refuses the run).  Returns (name, rows stored)."""
    ordered = True  # first try keeping the file's ranks: most runs are written in order
    for _attempt in range(3):
        try:
            with begin() as cur:
                name, rows = _fast_run(cur, dataset, trec, name, trust_rank, replace, ordered)
                _check_run(cur, dataset, name, check)
                return name, rows
        except MixedTags:
            name = trec.stem
        except Unordered:
            ordered = False
        except NotSimple:
            break
    with begin() as cur:
        stage_run(cur, trec)
        if name is None:
            tags = [r[0] for r in cur.execute("SELECT DISTINCT tag FROM incoming_run "
                                              "WHERE tag <> '' LIMIT 2").fetchall()]
            name = tags[0] if len(tags) == 1 else trec.stem
        (lines,) = _one(cur, "SELECT count(*) FROM incoming_run")
        stored = store_staged_run(cur, dataset, name, trec.source, trust_rank=trust_rank,
                                  dedupe=dedupe, replace=replace)
        cur.execute("DROP TABLE incoming_run")
        _check_run(cur, dataset, name, check, merged=int(lines) - stored)
    return name, stored


# -- judgments -----------------------------------------------------------------------------

def store_staged_judgments(cur: duckdb.DuckDBPyConnection, dataset: Dataset, source: str,
                           on_conflict: str) -> None:
    """Add the relation ``incoming_judgments`` (query_id, doc_id, grade; optionally origin
    and imported_at per row) to the dataset's judgments; the checks of
    :meth:`~judge_app.store.judgments.Judgments.put_judgments`."""
    repeat = _one(cur, """SELECT query_id, doc_id FROM incoming_judgments
                          GROUP BY query_id, doc_id HAVING count(*) > 1 LIMIT 1""")
    if repeat:
        raise ConflictError(source, f"query {repeat[0]!r}, doc {repeat[1]!r} is "
                            "judged twice in one import")
    clash = _one(cur, """
        SELECT i.query_id, i.doc_id, j.grade, i.grade FROM incoming_judgments i
        JOIN judgments j ON j.dataset_id = ? AND j.query_id = i.query_id
                        AND j.doc_id = i.doc_id AND j.grade <> i.grade
        LIMIT 1""", [dataset.dataset_id])
    if clash and on_conflict == "error":
        raise ConflictError(source, f"query {clash[0]!r}, doc {clash[1]!r} is already "
                            f"judged {clash[2]} in the store, here {clash[3]} "
                            "(use --on-conflict max|min|last)")
    keep = {"max": "greatest(j.grade, i.grade)", "min": "least(j.grade, i.grade)",
            "last": "i.grade", "error": "i.grade"}[on_conflict]
    columns = {d[0] for d in cur.execute("SELECT * FROM incoming_judgments LIMIT 0").description}
    origin = "coalesce(i.origin, $source)" if "origin" in columns else "$source"
    when = ("coalesce(i.imported_at, current_timestamp)" if "imported_at" in columns
            else "current_timestamp")
    params = {"source": source, "dataset": dataset.dataset_id}
    if _one(cur, "SELECT 1 FROM judgments WHERE dataset_id = ? LIMIT 1",
            [dataset.dataset_id]):
        # a grade about to change goes to the history first (issue 12: nothing is lost)
        cur.execute(f"""
            INSERT INTO judgment_history (dataset_id, query_id, doc_id, grade, source,
                                          imported_at, replaced_by)
            SELECT j.dataset_id, j.query_id, j.doc_id, j.grade, j.source, j.imported_at,
                   {origin}
            FROM judgments j JOIN incoming_judgments i
                ON j.query_id = i.query_id AND j.doc_id = i.doc_id
            WHERE j.dataset_id = $dataset AND {keep} <> j.grade
            ORDER BY j.query_id, j.doc_id""", params)
        # the kept grade keeps its own source and time: an import that lost takes no credit
        cur.execute(f"""
            UPDATE judgments j SET
                grade = {keep},
                source = CASE WHEN {keep} = i.grade THEN {origin} ELSE j.source END,
                imported_at = CASE WHEN {keep} = i.grade THEN {when} ELSE j.imported_at END
            FROM incoming_judgments i
            WHERE j.dataset_id = $dataset AND j.query_id = i.query_id
              AND j.doc_id = i.doc_id""", params)
    cur.execute(f"""
        INSERT INTO judgments (dataset_id, query_id, doc_id, grade, source, imported_at)
        SELECT $dataset, i.query_id, i.doc_id, i.grade, {origin}, {when}
        FROM incoming_judgments i
        ANTI JOIN (SELECT query_id, doc_id FROM judgments WHERE dataset_id = $dataset) j
            ON j.query_id = i.query_id AND j.doc_id = i.doc_id""", params)


def _resolve_qrels(cur: duckdb.DuckDBPyConnection, source: str, scale_values: list[int],
                   scale_description: str, on_conflict: str) -> int:
    """incoming_qrels -> TEMP TABLE incoming_judgments, one row per (query, doc): grades
    checked against the scale, identical repeats merged, differing ones by ``on_conflict``.
    Returns the number of lines merged away."""
    outside = _one(cur, "SELECT line, grade_text FROM incoming_qrels "
                        "WHERE NOT list_contains(?, grade) ORDER BY line LIMIT 1",
                   [scale_values])
    if outside:
        raise InputError(source, f"grade {outside[1]!r} is outside the scale "
                         f"({scale_description})", line=outside[0], field="grade")
    if on_conflict == "error":
        clash = _one(cur, """
            WITH groups AS (
                SELECT query_id, doc_id, list(grade ORDER BY line) AS grades,
                       list(line ORDER BY line) AS lines
                FROM incoming_qrels GROUP BY query_id, doc_id
                HAVING count(DISTINCT grade) > 1)
            SELECT query_id, doc_id, grades[:3], lines[:3], lines[-1] FROM groups
            ORDER BY lines[1] LIMIT 1""")
        if clash:
            raise ConflictError(source, f"query {clash[0]!r}, doc {clash[1]!r} is judged "
                                f"{' and '.join(map(str, clash[2]))} on lines "
                                f"{', '.join(map(str, clash[3]))} "
                                "(use --on-conflict max|min|last)", line=clash[4])
    pick = {"max": "max(grade)", "min": "min(grade)", "last": "arg_max(grade, line)",
            "error": "min(grade)"}[on_conflict]
    cur.execute(f"""CREATE OR REPLACE TEMP TABLE incoming_judgments AS
                    SELECT query_id, doc_id, {pick} AS grade FROM incoming_qrels
                    GROUP BY query_id, doc_id""")
    (lines, kept) = _one(cur, "SELECT (SELECT count(*) FROM incoming_qrels), "
                              "(SELECT count(*) FROM incoming_judgments)")
    return int(lines - kept)


def _fast_qrels(cur: duckdb.DuckDBPyConnection, dataset: Dataset, trec: TrecFile,
                on_conflict: str, check: Check | None) -> QrelsLoad:
    if trec.qrels_format == "smart":
        raise NotSimple
    reader = normalized_ids(_fast_reader(_QRELS_COLUMNS), trec.normalize_ids)
    # a file of doc "0", grade 0 lines may be SMART: the precise reader decides
    odd = ("query_id IS NULL OR iteration IS NULL OR doc_id IS NULL OR grade IS NULL "
           "OR NOT list_contains($scale, grade) "
           "OR (grade = 0 AND left(doc_id, 1) IN ('0', '.', '+', '-') "
           "    AND coalesce(TRY_CAST(doc_id AS DOUBLE) = 0, false)) "
           f"OR {_TOO_LONG}")
    grade = _guarded("CAST(grade AS INTEGER)", odd)
    fresh = _one(cur, "SELECT 1 FROM judgments WHERE dataset_id = ? LIMIT 1",
                 [dataset.dataset_id]) is None
    with _duckdb_readable(trec) as path:
        if not plain_layout(Path(path)):
            raise NotSimple
        params = {"path": path, "scale": list(dataset.scale.values)}
        try:
            if fresh:  # straight into the table
                cur.execute(f"""INSERT INTO judgments (dataset_id, query_id, doc_id, grade,
                                                       source)
                                SELECT $dataset, query_id, doc_id, {grade}, $source
                                FROM {reader}""",
                            {**params, "dataset": dataset.dataset_id, "source": trec.source})
            else:
                cur.execute(f"""CREATE OR REPLACE TEMP TABLE incoming_judgments AS
                                SELECT query_id, doc_id, {grade} AS grade FROM {reader}""",
                            params)
        except duckdb.Error:
            raise NotSimple from None
    table = "judgments WHERE dataset_id = $dataset" if fresh else "incoming_judgments"
    (pairs,) = _pair_hashes(cur, table, {"dataset": dataset.dataset_id} if fresh else {},
                            ("doc_id",))
    with ThreadPoolExecutor(max_workers=2) as pool:
        repeated = _any_repeated(pairs, pool)
    if len(pairs) == 0 or repeated:
        raise NotSimple  # repeated pairs: the precise reader merges them or names the lines
    rows = len(pairs)
    if check is not None:
        check(import_figures(cur, dataset.dataset_id, "judgments",
                             "(SELECT query_id, doc_id, grade FROM judgments "
                             "WHERE dataset_id = $dataset)" if fresh else "incoming_judgments"))
    if not fresh:
        store_staged_judgments(cur, dataset, trec.source, on_conflict)
        cur.execute("DROP TABLE incoming_judgments")
    return QrelsLoad(int(rows), 0, False)


def load_qrels(begin: Callable, dataset: Dataset, trec: TrecFile, on_conflict: str,
               check: Check | None = None) -> QrelsLoad:
    """Load TREC qrels (or a SMART relevance file) as the dataset's judgments: the fast
    reader, else the precise one, each in its own transaction from ``begin()``.  ``check``
    sees the import's figures before the transaction commits (raising refuses it)."""
    if on_conflict not in ("error", "max", "min", "last"):
        raise SxsError(f"on_conflict must be error, max, min or last; got {on_conflict!r}")
    try:
        with begin() as cur:
            return _fast_qrels(cur, dataset, trec, on_conflict, check)
    except NotSimple:
        pass
    scale = dataset.scale
    with begin() as cur:
        smart = _stage_qrels(cur, trec, scale.values, scale.describe())
        merged = _resolve_qrels(cur, trec.source, list(scale.values), scale.describe(),
                                on_conflict)
        if check is not None:
            check(import_figures(cur, dataset.dataset_id, "judgments", "incoming_judgments",
                                 merged=merged, listed_relevant=smart))
        store_staged_judgments(cur, dataset, trec.source, on_conflict)
        (rows,) = _one(cur, "SELECT count(*) FROM incoming_judgments")
        cur.execute("DROP TABLE incoming_judgments")
        cur.execute("DROP TABLE incoming_qrels")
    return QrelsLoad(int(rows), merged, smart)


