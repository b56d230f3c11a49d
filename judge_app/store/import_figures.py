"""What an import is about to leave in the dataset, measured inside its transaction so the
caller can refuse it (:mod:`judge_app.services.import_guard` decides) before anything is kept.

The figures of the imported rows (a relation of ``query_id, doc_id`` and, for judgments,
``grade``; one row per pair): how many rows and queries, the lowest and highest grade, and
whether any (query, doc) pair is also on the dataset's *other side* — the runs' results for
judgments, the judgments for a run.  Only when none is, the overlap is counted again with each
id normalisation of :mod:`judge_app.io.ids`, applied to the imported ids alone and to both
sides, so a refusal can name the fix.

Also the SQL form of those normalisations (:func:`normalized`), for the TREC loaders.
Identifiers and normalisation expressions come from fixed tables here; values are bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb

from judge_app.io.ids import ID_WHITESPACE, IdNormalization

_SQL_NORMALIZATIONS = {
    IdNormalization.STRIP_ZEROS: "CASE WHEN {c} <> '' AND ltrim({c}, '0') = '' THEN '0' "
                                 "ELSE ltrim({c}, '0') END",
    IdNormalization.LOWER: "lower({c})",
    IdNormalization.STRIP: "trim({c}, " + "'" + ID_WHITESPACE + "')",
}
_COLUMNS = ("query_id", "doc_id")


def normalized(column: str, how: str | IdNormalization | None) -> str:
    """SQL: the id ``column`` (``query_id`` or ``doc_id``) rewritten by ``how`` (see
    :mod:`judge_app.io.ids`); the column itself when ``how`` is None."""
    if column not in _COLUMNS:
        raise ValueError(f"not an id column: {column!r}")
    if how is None:
        return column
    return _SQL_NORMALIZATIONS[IdNormalization(how)].format(c=column)


def normalized_ids(relation: str, how: str | IdNormalization | None) -> str:
    """SQL: ``relation`` with its query and doc ids rewritten by ``how``."""
    if how is None:
        return relation
    return (f"(SELECT * REPLACE ({normalized('query_id', how)} AS query_id, "
            f"{normalized('doc_id', how)} AS doc_id) FROM {relation})")


@dataclass(frozen=True)
class ImportFigures:
    """The shape of an import about to be kept.

    ``what``: ``judgments`` or ``run``; ``rows``: (query, doc) pairs; ``queries``: how many
    (counted for judgments, and for a run only when each of its queries has one doc);
    ``one_doc_per_query``: every query has a single doc; ``lines``: rows read
    before repeated pairs were merged (``merged`` of them); ``lowest``/``highest`` grade
    (None for a run); ``listed_relevant``: a SMART file, every pair grade 1 by definition;
    ``against``: the other side compared with (``runs``/``judgments``, empty when the
    dataset has none); ``overlapping``: whether a pair is on both sides (None: not compared);
    ``overlap_if``: when none is, per normalisation, the pairs on both sides when the
    imported ids are normalised, and when both sides are."""

    what: str
    rows: int
    queries: int | None
    lines: int
    one_doc_per_query: bool = False
    merged: int = 0
    lowest: int | None = None
    highest: int | None = None
    listed_relevant: bool = False
    against: str = ""
    overlapping: bool | None = None
    overlap_if: dict[str, tuple[int, int]] = field(default_factory=dict)


SAMPLE = 10_000
"""How many of the imported pairs the overlap is first asked of."""

Check = Callable[[ImportFigures], None]
"""Called with an import's figures inside its transaction; raising refuses the import."""

_OTHER_SIDE = {
    "judgments": ("runs", """SELECT r.query_id, r.doc_id FROM run_results r
                             JOIN runs USING (run_id) WHERE runs.dataset_id = $dataset"""),
    "run": ("judgments", """SELECT query_id, doc_id FROM judgments
                            WHERE dataset_id = $dataset"""),
}


def _fetch(cur: duckdb.DuckDBPyConnection, sql: str, params: dict) -> tuple:
    """The first row of ``sql``, bound to the ``params`` it names (DuckDB refuses others)."""
    used = {key: value for key, value in params.items() if re.search(rf"\${key}\b", sql)}
    return cur.execute(sql, used).fetchall()[0]


def import_figures(cur: duckdb.DuckDBPyConnection, dataset_id: int, what: str, incoming: str,
                   params: dict | None = None, *, merged: int = 0,
                   listed_relevant: bool = False) -> ImportFigures:
    """The figures of the relation ``incoming`` (SQL text from the loaders, never a user's)
    about to become the dataset's ``judgments`` or a ``run`` (whose relation has ``rank``).

    Cheap on a large run: a run has a single doc per query exactly when no rank is above 1
    (ranks run 1, 2, ... in each query), asked with an early stop; the overlap is first asked
    of the file's first :data:`SAMPLE` pairs (almost always enough to find one) and only
    without a hit of all of them."""
    params = {**(params or {}), "dataset": dataset_id}
    if what == "judgments":
        (rows, queries, lowest, highest) = _fetch(
            cur, f"SELECT count(*), count(DISTINCT query_id), min(grade), max(grade) "
                 f"FROM {incoming}", params)
        one_doc = rows == queries
    else:
        (rows, deeper) = _fetch(cur, f"""SELECT count(*), EXISTS (
                                             SELECT 1 FROM {incoming} WHERE rank > 1)
                                         FROM {incoming}""", params)
        one_doc, lowest, highest = not deeper, None, None
        queries = rows if one_doc else None
    against, other = _OTHER_SIDE[what]
    figures = dict(what=what, rows=int(rows), queries=queries, lines=int(rows) + merged,
                   one_doc_per_query=bool(one_doc) and rows > 0, merged=merged,
                   lowest=lowest, highest=highest, listed_relevant=listed_relevant)
    other_side = f"({other})"
    if not _fetch(cur, f"SELECT EXISTS (SELECT 1 FROM {other_side})", params)[0]:
        return ImportFigures(**figures)
    pairs = "o.query_id = i.query_id AND o.doc_id = i.doc_id"
    sample = f"(SELECT query_id, doc_id FROM {incoming} LIMIT {SAMPLE})"
    (overlapping,) = _fetch(
        cur, f"SELECT EXISTS (SELECT 1 FROM {other_side} o SEMI JOIN {sample} i ON {pairs})",
        params)
    if not overlapping:
        (overlapping,) = _fetch(
            cur, f"SELECT EXISTS (SELECT 1 FROM {incoming} i SEMI JOIN {other_side} o "
                 f"ON {pairs})", params)
    overlap_if: dict[str, tuple[int, int]] = {}
    if not overlapping:
        for how in IdNormalization:
            mine = normalized_ids(f"(SELECT query_id, doc_id FROM {incoming})", how)
            theirs = normalized_ids(other_side, how)
            (alone, both) = _fetch(cur, f"""
                SELECT (SELECT count(*) FROM (SELECT DISTINCT * FROM {mine}) i
                        SEMI JOIN {other_side} o ON {pairs}),
                       (SELECT count(*) FROM (SELECT DISTINCT * FROM {mine}) i
                        SEMI JOIN {theirs} o ON {pairs})""", params)
            overlap_if[how.value] = (int(alone), int(both))
    return ImportFigures(**figures, against=against, overlapping=bool(overlapping),
                         overlap_if=overlap_if)
