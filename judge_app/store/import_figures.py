"""What an import is about to leave in the dataset, measured inside its transaction so the
caller can refuse it (:mod:`judge_app.services.import_guard` decides) before anything is kept.

The figures of the imported rows, keyed by (query, doc) pairs for judgments, expert labels
and runs (a relation of ``query_id, doc_id`` and, for judgments and labels, ``grade``), by
``doc_id`` for documents and by ``query_id`` for queries: how many rows and queries, the
lowest and highest grade, and whether any key is also on the dataset's *other side* — the
runs' results for judgments, the judgments for a run, both for labels, documents and
queries.  When none is, the overlap is counted again with each id normalisation of
:mod:`judge_app.io.ids`, applied to the imported ids alone and to both sides, so a refusal can
name the fix; when some are, the first :data:`SAMPLE` imported keys are counted as written
and with each normalisation applied to them, so a partial overlap that a normalisation would
make much larger can be pointed out.


Identifiers and normalisation expressions come from fixed tables here; values are bound.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb

from judge_app.io.ids import IdNormalization, normalized, normalized_ids

PAIRS = ("query_id", "doc_id")
KEYS = {"judgments": PAIRS, "labels": PAIRS, "run": PAIRS, "documents": ("doc_id",),
        "queries": ("query_id",)}
"""What each kind of import is keyed by (and compared with the other side on)."""


@dataclass(frozen=True)
class ImportFigures:
    """The shape of an import about to be kept.

    ``what``: a key of :data:`KEYS`; ``rows``: (query, doc) pairs (documents, queries: ids;
    labels: labels); ``queries``: how many
    (counted for judgments, and for a run only when each of its queries has one doc);
    ``one_doc_per_query``: every query has a single doc; ``lines``: rows read
    before repeated pairs were merged (``merged`` of them); ``lowest``/``highest`` grade
    (None for a run); ``listed_relevant``: a SMART file, every pair grade 1 by definition;
    ``against``: the other side compared with (``runs``/``judgments``, empty when the
    dataset has none); ``overlapping``: whether a pair is on both sides (None: not compared);
    ``overlap_if``: when none is, per normalisation, the pairs on both sides when the
    imported ids are normalised, and when both sides are; ``sample``: when some are, how
    many distinct keys of the first :data:`SAMPLE` were counted (``sampled_all``: all of the
    file's), ``matched`` of them on the other side as written, ``matched_if`` per
    normalisation of the imported ids."""

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
    sample: int = 0
    sampled_all: bool = True
    matched: int = 0
    matched_if: dict[str, int] = field(default_factory=dict)

    @property
    def keys(self) -> tuple[str, ...]:
        return KEYS[self.what]


SAMPLE = 10_000
"""How many of the imported pairs the overlap is first asked of."""

Check = Callable[[ImportFigures], None]
"""Called with an import's figures inside its transaction; raising refuses the import."""

_RUN_PAIRS = """SELECT r.query_id, r.doc_id FROM run_results r
                JOIN runs USING (run_id) WHERE runs.dataset_id = $dataset"""
_JUDGED_PAIRS = "SELECT query_id, doc_id FROM judgments WHERE dataset_id = $dataset"
_BOTH = f"{_RUN_PAIRS} UNION ALL {_JUDGED_PAIRS}"
_OTHER_SIDE = {
    "judgments": ("runs", _RUN_PAIRS),
    "run": ("judgments", _JUDGED_PAIRS),
    "labels": ("runs and judgments", _BOTH),
    "documents": ("runs and judgments", f"SELECT doc_id FROM ({_BOTH})"),
    "queries": ("runs and judgments", f"SELECT query_id FROM ({_BOTH})"),
}


def _rows(cur: duckdb.DuckDBPyConnection, sql: str, params: dict) -> list[tuple]:
    """The rows of ``sql``, bound to the ``params`` it names (DuckDB refuses others)."""
    used = {key: value for key, value in params.items() if re.search(rf"\${key}\b", sql)}
    return cur.execute(sql, used).fetchall()


def _fetch(cur: duckdb.DuckDBPyConnection, sql: str, params: dict) -> tuple:
    """The first row of ``sql`` (see :func:`_rows`)."""
    return _rows(cur, sql, params)[0]


def import_figures(cur: duckdb.DuckDBPyConnection, dataset_id: int, what: str, incoming: str,
                   params: dict | None = None, *, merged: int = 0,
                   listed_relevant: bool = False) -> ImportFigures:
    """The figures of the relation ``incoming`` (SQL text from the loaders, never a user's)
    about to become the dataset's ``judgments``, a ``run`` (whose relation has ``rank``),
    expert ``labels``, ``documents`` or ``queries`` (see :data:`KEYS`).

    Cheap on a large run: a run has a single doc per query exactly when no rank is above 1
    (ranks run 1, 2, ... in each query), asked with an early stop; the overlap is first asked
    of the file's first :data:`SAMPLE` keys (almost always enough to find one) and only
    without a hit of all of them; the partial overlap is counted on those first keys only,
    in one pass over the other side."""
    if what not in KEYS:
        raise ValueError(f"not a kind of import: {what!r}")
    keys = KEYS[what]
    key_list = ", ".join(keys)
    params = {**(params or {}), "dataset": dataset_id}
    lowest = highest = queries = None
    one_doc = False
    if what in ("judgments", "labels"):
        (rows, queries, lowest, highest) = _fetch(
            cur, f"SELECT count(*), count(DISTINCT query_id), min(grade), max(grade) "
                 f"FROM {incoming}", params)
        one_doc = what == "judgments" and rows == queries
    elif what == "run":
        (rows, deeper) = _fetch(cur, f"""SELECT count(*), EXISTS (
                                             SELECT 1 FROM {incoming} WHERE rank > 1)
                                         FROM {incoming}""", params)
        one_doc = not deeper
        queries = rows if one_doc else None
    else:
        (rows,) = _fetch(cur, f"SELECT count(*) FROM {incoming}", params)
    against, other = _OTHER_SIDE[what]
    figures = dict(what=what, rows=int(rows), queries=queries, lines=int(rows) + merged,
                   one_doc_per_query=bool(one_doc) and rows > 0, merged=merged,
                   lowest=lowest, highest=highest, listed_relevant=listed_relevant)
    other_side = f"({other})"
    if not _fetch(cur, f"SELECT EXISTS (SELECT 1 FROM {other_side})", params)[0]:
        return ImportFigures(**figures)
    on = " AND ".join(f"o.{key} = i.{key}" for key in keys)
    sample = f"(SELECT {key_list} FROM {incoming} LIMIT {SAMPLE})"
    (overlapping,) = _fetch(
        cur, f"SELECT EXISTS (SELECT 1 FROM {other_side} o SEMI JOIN {sample} i ON {on})",
        params)
    if not overlapping:
        (overlapping,) = _fetch(
            cur, f"SELECT EXISTS (SELECT 1 FROM {incoming} i SEMI JOIN {other_side} o "
                 f"ON {on})", params)
    if overlapping:
        return ImportFigures(**figures, against=against, overlapping=True,
                             **_sampled(cur, sample, other_side, keys, int(rows), params))
    overlap_if: dict[str, tuple[int, int]] = {}
    for how in IdNormalization:
        mine = normalized_ids(f"(SELECT {key_list} FROM {incoming})", how, keys)
        theirs = normalized_ids(other_side, how, keys)
        (alone, both) = _fetch(cur, f"""
            SELECT (SELECT count(*) FROM (SELECT DISTINCT * FROM {mine}) i
                    SEMI JOIN {other_side} o ON {on}),
                   (SELECT count(*) FROM (SELECT DISTINCT * FROM {mine}) i
                    SEMI JOIN {theirs} o ON {on})""", params)
        overlap_if[how.value] = (int(alone), int(both))
    return ImportFigures(**figures, against=against, overlapping=False, overlap_if=overlap_if)


def _sampled(cur: duckdb.DuckDBPyConnection, sample: str, other_side: str,
             keys: tuple[str, ...], rows: int, params: dict) -> dict:
    """How many distinct keys of ``sample`` are on the other side as written and with each
    normalisation applied to them: one pass over the other side, probing the sample's keys
    (one variant a normalisation) grouped by variant.  Nothing is counted (no pass) when no
    normalisation changes any key of the sample, the usual case: it could change no count."""
    key_list = ", ".join(keys)
    changes = " OR ".join(f"{normalized(key, how)} <> {key}"
                          for how in IdNormalization for key in keys)
    (changed,) = _fetch(cur, f"SELECT EXISTS (SELECT 1 FROM {sample} WHERE {changes})",
                        params)
    if not changed:
        return {}
    variants = " UNION ".join(
        [f"SELECT DISTINCT '' AS how, {key_list} FROM {sample}"]
        + [f"SELECT DISTINCT '{how.value}' AS how, {key_list} "
           f"FROM {normalized_ids(sample, how, keys)}" for how in IdNormalization])
    on = " AND ".join(f"o.{key} = i.{key}" for key in keys)
    found = _rows(cur, f"""
        WITH i AS ({variants}),
             o AS (SELECT DISTINCT {key_list} FROM {other_side} SEMI JOIN i USING ({key_list}))
        SELECT how, count(*) FROM i SEMI JOIN o ON {on} GROUP BY how
        UNION ALL SELECT '#', count(*) FROM i WHERE how = ''""", params)
    counted = dict(found)
    return dict(sample=int(counted.get("#", 0)), sampled_all=rows <= SAMPLE,
                matched=int(counted.get("", 0)),
                matched_if={how.value: int(counted.get(how.value, 0))
                            for how in IdNormalization})
