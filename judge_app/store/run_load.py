"""Loading a TREC run file straight into the store's ``run_results``.

The file is parsed by DuckDB with the readers of :mod:`judge_app.store.trec_readers`: the fast
reader first, its rows checked in the very pass that stores them, then the precise reader
when the fast one gives up.  Here: the run's row (:func:`run_row`), its ranks (kept when the
file is already in trec_eval's order, else re-derived from score descending then doc id
descending, unless the caller trusts the file's ranks), the duplicate checks
(:mod:`judge_app.store.repeats`), and the import guard's figures (``check``) before the
transaction commits.  Every load runs in transactions from the ``begin()`` its backend hands
it (:meth:`~judge_app.store.backend.Backend.load_run`), so a refused file stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import duckdb
import numpy as np

from judge_app.errors import InputError, SxsError
from judge_app.io.display_text import refuse_hidden
from judge_app.io.ids import MAX_ID_BYTES, normalized_ids
from judge_app.io.nul import plain_text
from judge_app.io.trec import NOT_PLAIN, TrecFile, plain_layout
from judge_app.store.import_guard import Check, import_figures
from judge_app.store.model import Dataset
from judge_app.store.repeats import any_repeated, block_starts, pair_hashes, repeated_in_blocks
from judge_app.store.sql import one
from judge_app.store.trec_readers import (
    MAX_RANK,
    OUT_OF_ORDER,
    RUN_COLUMNS,
    TOO_LONG,
    WITH_PREVIOUS,
    MixedTags,
    NotSimple,
    Unordered,
    duckdb_readable,
    fast_failure,
    fast_reader,
    first_lines_in_order,
    guarded,
    stage_run,
    whole,
)


def run_row(cur: duckdb.DuckDBPyConnection, dataset: Dataset, name: str, source: str,
             replace: bool) -> int:
    """The run's id: a new run, or the existing one emptied when ``replace``."""
    if not plain_text(name, "run name").strip():
        raise SxsError("a run needs a name")
    if len(name.encode("utf-8")) > MAX_ID_BYTES:
        raise SxsError(f"the run name is {len(name.encode('utf-8')):,} bytes long; a run name "
                       f"holds at most {MAX_ID_BYTES:,} bytes (UTF-8), like an id")
    refuse_hidden(name, "run name")
    found = one(cur, "SELECT run_id FROM runs WHERE dataset_id = ? AND name = ?",
                 [dataset.dataset_id, name])
    if found and not replace:
        raise SxsError(f"run {name!r} already exists in dataset {dataset.name!r} "
                       "(use --replace to overwrite it)")
    if found:
        cur.execute("DELETE FROM run_results WHERE run_id = ?", [found[0]])
        cur.execute("UPDATE runs SET source = ?, created_at = current_timestamp "
                    "WHERE run_id = ?", [source, found[0]])
        return int(found[0])
    (run_id,) = one(cur, "INSERT INTO runs (dataset_id, name, source) VALUES (?, ?, ?) "
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
    repeat = one(cur, """
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
        bad = one(cur, f"SELECT line, rank FROM {kept} WHERE rank < 1 OR rank > {MAX_RANK} "
                        "ORDER BY line LIMIT 1")
        if bad:
            reason = "is not positive" if bad[1] < 1 else "is too large"
            raise InputError(source, f"rank {bad[1]} {reason}", line=bad[0], field="rank")
        tie = one(cur, f"""SELECT query_id, rank, max(line) FROM {kept}
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
    (stored,) = one(cur, "SELECT count(*) FROM run_results WHERE run_id = ?", [run_id])
    return int(stored)


def _fast_run(cur: duckdb.DuckDBPyConnection, dataset: Dataset, trec: TrecFile,
              name: str | None, trust_rank: bool, replace: bool, ordered: bool
              ) -> tuple[str, int]:
    """The fast reader for a run: typed columns, every row checked as it is stored; with
    ``ordered``, the file's ranks are kept if every line is already in trec_eval's order."""
    reader = normalized_ids(fast_reader(RUN_COLUMNS), trec.normalize_ids)
    odd = (f"query_id IS NULL OR q0 IS NULL OR doc_id IS NULL OR tag IS NULL OR rank IS NULL "
           f"OR NOT {whole('rank')} OR rank < 1 OR rank > {MAX_RANK} OR score IS NULL "
           f"OR NOT isfinite(score) OR {TOO_LONG}")
    with duckdb_readable(trec) as path, ThreadPoolExecutor(max_workers=1) as scan:
        # the byte scan for whitespace other than spaces runs alongside the load (its
        # answer is waited for before anything else is checked)
        plain = scan.submit(plain_layout, Path(path))
        params: dict = {"path": path}
        tag_guard = None
        if name is None:
            try:
                first = one(cur, f"SELECT tag FROM {reader} LIMIT 1", {"path": path})
            except duckdb.Error:
                raise NotSimple from None
            if first is None or first[0] is None or any(c in first[0] for c in NOT_PLAIN + "\r"):
                raise NotSimple  # the precise reader splits the line and names the field
            name, params["tag"], tag_guard = first[0], first[0], "tag <> $tag"
        run_id = run_row(cur, dataset, name, trec.source, replace)
        ordered = ordered and not trust_rank and first_lines_in_order(cur, reader, params)
        score = guarded("score", odd, tag_guard)
        rank = ("CAST(rank AS INTEGER)" if trust_rank or ordered else
                "row_number() OVER (PARTITION BY query_id ORDER BY score DESC, doc_id DESC)")
        try:
            cur.execute(f"INSERT INTO run_results SELECT $run, query_id, doc_id, {rank}, "
                        f"{score} FROM {reader}", {**params, "run": run_id})
        except duckdb.Error as error:
            if not plain.result():  # a tab in a field, say: not a mixed-tags file
                raise NotSimple from None
            raise fast_failure(error) from None
        if not plain.result():
            raise NotSimple
    # a doc twice in a query (or, with trusted ranks, two docs at one rank): the precise
    # reader names the lines, or keeps the first with --dedupe.  Equal hashes of different
    # pairs only send the file to the precise reader, which compares the ids themselves.
    if ordered:
        return name, _checked_in_order(cur, run_id)
    keys = ("doc_id", "rank") if trust_rank else ("doc_id",)
    hashes = pair_hashes(cur, "run_results WHERE run_id = $run", {"run": run_id}, keys)
    if len(hashes[0]) == 0:
        raise NotSimple
    with ThreadPoolExecutor(max_workers=2) as pool:
        if any(any_repeated(values, pool) for values in hashes):
            raise NotSimple
    return name, len(hashes[0])


def _checked_in_order(cur: duckdb.DuckDBPyConnection, run_id: int) -> int:
    """The rows of a run stored with the file's ranks, once they are known to be in
    trec_eval's order (else :class:`Unordered`) with no (query, doc) pair twice (else
    :class:`NotSimple`).

    In order, each query is one block of rows ranked 1..n in the table's scan order, so a
    pair can only repeat inside a block: the pairs' hashes are sorted block by block
    (:func:`repeated_in_blocks`) while DuckDB checks the order on another thread with
    :data:`_QUICK_ORDER_CHECK`.  That check compares query ids by their hashes and scores
    only: when two queries' hashes collide, or a query holds two equal scores (the order
    then rests on doc ids), the exact :data:`_ORDER_CHECK` decides."""
    fetched = cur.execute("SELECT hash(query_id, doc_id) AS pair, rank FROM run_results "
                          "WHERE run_id = ?", [run_id]).fetchnumpy()
    pairs, ranks = np.asarray(fetched["pair"]), np.asarray(fetched["rank"])
    if len(pairs) == 0:
        raise NotSimple
    with ThreadPoolExecutor(max_workers=1) as pool:
        checked = pool.submit(one, cur, _QUICK_ORDER_CHECK, [run_id])
        starts = block_starts(ranks)
        repeated = starts is not None and repeated_in_blocks(pairs, starts)
        starts_found, queries, query_hashes, out_of_order, ties = checked.result()
    if starts is None or out_of_order or starts_found != queries:
        raise Unordered
    if ties or query_hashes != queries:
        starts_found, queries, out_of_order = one(cur, _ORDER_CHECK, [run_id])
        if starts_found != queries or out_of_order:
            raise Unordered
    if repeated:
        raise NotSimple
    return len(pairs)


_ORDER_CHECK = f"""SELECT count(*) FILTER (WHERE rank = 1),
                          count(DISTINCT query_id) FILTER (WHERE rank = 1), {OUT_OF_ORDER}
                   FROM {WITH_PREVIOUS.format(rows="run_results WHERE run_id = ?")}"""
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


def _check_run(cur: duckdb.DuckDBPyConnection, dataset: Dataset, name: str,
               check: Check | None, merged: int = 0) -> None:
    """Call ``check`` with the figures of the run just written (still in its transaction)."""
    if check is None:
        return
    (run_id,) = one(cur, "SELECT run_id FROM runs WHERE dataset_id = ? AND name = ?",
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
        (lines,) = one(cur, "SELECT count(*) FROM incoming_run")
        stored = store_staged_run(cur, dataset, name, trec.source, trust_rank=trust_rank,
                                  dedupe=dedupe, replace=replace)
        cur.execute("DROP TABLE incoming_run")
        _check_run(cur, dataset, name, check, merged=int(lines) - stored)
    return name, stored
