"""Loading TREC qrels (or a SMART relevance file) straight into the store's ``judgments``.

The file is parsed by DuckDB with the readers of :mod:`judge_app.store.trec_readers`: the fast
reader first (straight into the table when the dataset has no judgments yet), the precise
reader when it gives up.  Here: grades checked against the scale, repeated lines merged or
refused by ``on_conflict``, conflicts with the stored grades, the replaced grades kept in
``judgment_history``, and the import guard's figures (``check``) before the transaction
commits.  Every load runs in transactions from the ``begin()`` its backend hands it
(:meth:`~judge_app.store.backend.Backend.load_judgments`), so a refused file stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import duckdb

from judge_app.errors import ConflictError, InputError, SxsError
from judge_app.io.formats import SMART
from judge_app.io.ids import normalized_ids
from judge_app.io.trec import TrecFile, plain_layout
from judge_app.store.import_guard import Check, import_figures
from judge_app.store.model import Dataset
from judge_app.store.repeats import any_repeated, pair_hashes
from judge_app.store.sql import one
from judge_app.store.trec_readers import (
    QRELS_COLUMNS,
    TOO_LONG,
    NotSimple,
    duckdb_readable,
    fast_reader,
    guarded,
    stage_qrels,
)
from judge_app.store.trec_readers import qrels_rows as qrels_rows


@dataclass(frozen=True)
class QrelsLoad:
    """What a qrels load stored: rows written, duplicate lines merged, SMART or TREC."""

    rows: int
    merged: int
    smart: bool


def store_staged_judgments(cur: duckdb.DuckDBPyConnection, dataset: Dataset, source: str,
                           on_conflict: str, recorded: str | None = None) -> None:
    """Add the relation ``incoming_judgments`` (query_id, doc_id, grade; optionally origin
    and imported_at per row) to the dataset's judgments, recorded with ``recorded`` (default
    ``source``, which errors name) where a row has none; the checks of
    :meth:`~judge_app.store.judgments.Judgments.put_judgments`."""
    repeat = one(cur, """SELECT query_id, doc_id FROM incoming_judgments
                          GROUP BY query_id, doc_id HAVING count(*) > 1 LIMIT 1""")
    if repeat:
        raise ConflictError(source, f"query {repeat[0]!r}, doc {repeat[1]!r} is "
                            "judged twice in one import")
    clash = one(cur, """
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
    params = {"source": source if recorded is None else recorded,
              "dataset": dataset.dataset_id}
    if one(cur, "SELECT 1 FROM judgments WHERE dataset_id = ? LIMIT 1",
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
    outside = one(cur, "SELECT line, grade_text FROM incoming_qrels "
                        "WHERE NOT list_contains(?, grade) ORDER BY line LIMIT 1",
                   [scale_values])
    if outside:
        raise InputError(source, f"grade {outside[1]!r} is outside the scale "
                         f"({scale_description})", line=outside[0], field="grade")
    if on_conflict == "error":
        clash = one(cur, """
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
    (lines, kept) = one(cur, "SELECT (SELECT count(*) FROM incoming_qrels), "
                              "(SELECT count(*) FROM incoming_judgments)")
    return int(lines - kept)


def _fast_qrels(cur: duckdb.DuckDBPyConnection, dataset: Dataset, trec: TrecFile,
                on_conflict: str, check: Check | None) -> QrelsLoad:
    if trec.qrels_format == SMART:
        raise NotSimple
    reader = normalized_ids(fast_reader(QRELS_COLUMNS), trec.normalize_ids)
    # a file of doc "0", grade 0 lines may be SMART: the precise reader decides
    odd = ("query_id IS NULL OR iteration IS NULL OR doc_id IS NULL OR grade IS NULL "
           "OR NOT list_contains($scale, grade) "
           "OR (grade = 0 AND left(doc_id, 1) IN ('0', '.', '+', '-') "
           "    AND coalesce(TRY_CAST(doc_id AS DOUBLE) = 0, false)) "
           f"OR {TOO_LONG}")
    grade = guarded("CAST(grade AS INTEGER)", odd)
    fresh = one(cur, "SELECT 1 FROM judgments WHERE dataset_id = ? LIMIT 1",
                 [dataset.dataset_id]) is None
    with duckdb_readable(trec) as path:
        if not plain_layout(Path(path)):
            raise NotSimple
        params = {"path": path, "scale": list(dataset.scale.values)}
        try:
            if fresh:  # straight into the table
                cur.execute(f"""INSERT INTO judgments (dataset_id, query_id, doc_id, grade,
                                                       source)
                                SELECT $dataset, query_id, doc_id, {grade}, $source
                                FROM {reader}""",
                            {**params, "dataset": dataset.dataset_id, "source": trec.origin})
            else:
                cur.execute(f"""CREATE OR REPLACE TEMP TABLE incoming_judgments AS
                                SELECT query_id, doc_id, {grade} AS grade FROM {reader}""",
                            params)
        except duckdb.Error:
            raise NotSimple from None
    table = "judgments WHERE dataset_id = $dataset" if fresh else "incoming_judgments"
    (pairs,) = pair_hashes(cur, table, {"dataset": dataset.dataset_id} if fresh else {},
                            ("doc_id",))
    with ThreadPoolExecutor(max_workers=2) as pool:
        repeated = any_repeated(pairs, pool)
    if len(pairs) == 0 or repeated:
        raise NotSimple  # repeated pairs: the precise reader merges them or names the lines
    rows = len(pairs)
    if check is not None:
        check(import_figures(cur, dataset.dataset_id, "judgments",
                             "(SELECT query_id, doc_id, grade FROM judgments "
                             "WHERE dataset_id = $dataset)" if fresh else "incoming_judgments"))
    if not fresh:
        store_staged_judgments(cur, dataset, trec.source, on_conflict, trec.origin)
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
        smart = stage_qrels(cur, trec, scale.values, scale.describe())
        merged = _resolve_qrels(cur, trec.source, list(scale.values), scale.describe(),
                                on_conflict)
        if check is not None:
            check(import_figures(cur, dataset.dataset_id, "judgments", "incoming_judgments",
                                 merged=merged, listed_relevant=smart))
        store_staged_judgments(cur, dataset, trec.source, on_conflict, trec.origin)
        (rows,) = one(cur, "SELECT count(*) FROM incoming_judgments")
        cur.execute("DROP TABLE incoming_judgments")
        cur.execute("DROP TABLE incoming_qrels")
    return QrelsLoad(int(rows), merged, smart)
