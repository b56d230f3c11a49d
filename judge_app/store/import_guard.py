"""The degenerate-import guard: an import that would leave the dataset's figures meaningless is
refused with one line naming the file, the figure and the likely fix, unless forced.

Measured and decided here, in one home: :func:`import_figures` measures the rows an import is
about to keep against the dataset, inside the load's transaction (on PostgreSQL, on the DuckDB
scratch, before anything reaches the database), and the import's :class:`Guard` refuses a
degenerate one before the transaction commits, so a refusal stores nothing.  In
this order, the first that holds refuses:

* **no overlap** — the dataset has runs (importing judgments), judgments (importing a run)
  or either (importing expert labels, documents or queries) and no (query, doc) pair of the
  file — no doc id of a catalog, no query id of a query file — is among them.  When an id
  normalisation would make them meet, the line names it (``--normalize-ids strip-zeros``,
  or, when only normalising both sides would, re-importing the other side that way too).
  Documents and queries are refused only then: a catalog may hold docs no run retrieved;
* **every grade equal** — two or more judgments (or expert labels), all one grade (metrics
  could only tell judged docs from unjudged ones): all zeros, or all one grade of a graded
  scale, is a collapsed import (a wrong grade column or value map).  Not for a SMART file,
  whose listed pairs are all relevant by definition, nor for the same *relevant-only*
  convention in any other file: every grade the top one of a two-grade scale (grade 1 of
  ``binary``), no grade-0 row — a TREC export of a SMART collection reads back so;
* **duplicates** — more than :data:`MAX_MERGED_SHARE` of the file's lines were repeats of a
  (query, doc) merged away (for labels: of a judge's label of a pair at the same time),
  usually a wrong id column;
* **one doc per query** — two or more queries, each with exactly one doc (judgments, runs).

``--force`` imports anyway.  Judged queries left without text because their ids differ from
the queries' only by zero padding (``01`` judged, ``1`` in the queries file: CACM) are warned
of after a judgments or queries import (:func:`zero_padding_warning`).  An import that is
kept but whose overlap with the other side is
partial and would be much larger with a normalisation (:func:`partial_overlap_warning`: at
least twice the keys, and a tenth more of them) gets a one-line warning naming the figures
and the option.

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

from judge_app.errors import InputError
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


# -- the decision: is the import degenerate? ---------------------------------------------------

MAX_MERGED_SHARE = 0.10
"""The share of a file's lines that may be merged as duplicates before the import is refused."""
FORCE = "--force imports it anyway"
WARN_GROWTH = 2.0
"""A partial overlap is worth a warning when a normalisation multiplies it at least by this,"""
WARN_SHARE = 0.10
"""... and adds at least this share of the keys counted."""
_NOUNS = {"judgments": "judgments", "labels": "labels", "run": "(query, doc) pairs",
          "documents": "doc ids", "queries": "query ids"}
_GRADE_HINTS = {"judgments": "--grade-column and --value-map", "labels": "the grade column"}


class DegenerateImport(InputError):
    """An import that would leave the dataset degenerate (see the module doc)."""


def relevant_only(figures: ImportFigures, scale_values: tuple[int, ...]) -> bool:
    """Whether the import lists relevant pairs only, as SMART files and the qrels of
    collections judged that way do: a SMART file, or every grade the top grade of a
    two-grade scale (``binary``: grade 1, no grade-0 row).  All zeros, or one grade of a
    graded scale, is not (see the module doc)."""
    return figures.listed_relevant or (len(scale_values) == 2
                                       and figures.lowest == max(scale_values))


def degenerate_reason(figures: ImportFigures, merging: bool = False,
                      scale_values: tuple[int, ...] = ()) -> str | None:
    """Why the import is degenerate (one clause with the figure and the fix), else None.
    ``merging``: the user asked for repeated pairs to be merged (``--on-conflict`` other than
    error, ``--dedupe``), so many merged lines are what they meant, not a wrong column;
    ``scale_values``: the dataset's grades, which tell a relevant-only file
    (:func:`relevant_only`) from a collapsed one (empty: not known, no file is)."""
    if figures.overlapping is False:
        return _no_overlap(figures)
    if figures.what in ("judgments", "labels") and figures.rows >= 2 \
            and figures.lowest == figures.highest \
            and not relevant_only(figures, tuple(scale_values)):
        return (f"every one of its {figures.rows:,} {_NOUNS[figures.what]} has grade "
                f"{figures.lowest}, so "
                "metrics could only tell judged docs from unjudged ones; check "
                f"{_GRADE_HINTS[figures.what]} ({FORCE}, e.g. for a file listing only "
                "relevant docs)")
    if not merging and figures.lines and figures.merged > MAX_MERGED_SHARE * figures.lines:
        return (f"{figures.merged:,} of its {figures.lines:,} lines "
                f"({figures.merged / figures.lines:.0%}) repeat a (query, doc) pair and were "
                f"merged; check the query and doc id columns ({FORCE})")
    if figures.one_doc_per_query and figures.rows >= 2:
        return (f"each of its {figures.rows:,} queries has a single doc; check the query "
                f"and doc id columns ({FORCE})")
    return None


def _things(figures: ImportFigures) -> str:
    return "(query, doc) pairs" if figures.keys == PAIRS else _NOUNS[figures.what]


def _no_overlap(figures: ImportFigures) -> str | None:
    said = (f"no overlap: none of its {figures.rows:,} {_things(figures)} is in the "
            f"dataset's {figures.against}")
    alone = [(n, how) for how, (n, _) in figures.overlap_if.items() if n]
    both = [(n, how) for how, (_, n) in figures.overlap_if.items() if n]
    if alone:
        count, how = max(alone)
        return (f"{said}; with --normalize-ids {how}, {count:,} "
                f"{'is' if count == 1 else 'are'} ({FORCE})")
    if both:
        count, how = max(both)
        return (f"{said}; {count:,} {'is' if count == 1 else 'are'} when both sides use "
                f"--normalize-ids {how}: re-import the {figures.against} with it first, then "
                f"this file with it ({FORCE})")
    if figures.keys != PAIRS:
        return None  # a catalog may hold docs (a file queries) that no run has met yet
    return (f"{said} (not even after --normalize-ids {'/'.join(figures.overlap_if)}); check "
            f"the query and doc id columns ({FORCE})")


def partial_overlap_warning(figures: ImportFigures) -> str | None:
    """The clause warning that only part of the keys meet the other side while a
    normalisation of the imported ids would make many more meet (see the module doc)."""
    if not figures.overlapping or not figures.sample or not figures.matched_if:
        return None
    best, how = max((n, how) for how, n in figures.matched_if.items())
    matched, sample = figures.matched, figures.sample
    if best < WARN_GROWTH * matched or best - matched < WARN_SHARE * sample:
        return None
    first = "" if figures.sampled_all else "first "
    return (f"only {matched:,} of its {first}{sample:,} {_things(figures)} "
            f"({matched / sample:.0%}) are in the dataset's {figures.against}; with "
            f"--normalize-ids {how}, {best:,} ({best / sample:.0%}) would be (ids are kept "
            "as written unless it is given)")


@dataclass
class Guard:
    """The check an import runs on its figures (a
    :data:`~judge_app.store.import_guard.Check`): refuses a degenerate one
    (:class:`DegenerateImport`, naming ``source``); keeps the warning lines of one it lets
    through in ``warnings`` (each naming ``source``); ``scale_values``: the dataset's grades
    (see :func:`degenerate_reason`)."""

    source: str
    merging: bool = False
    warnings: list[str] = field(default_factory=list)
    scale_values: tuple[int, ...] = ()

    def __call__(self, figures: ImportFigures) -> None:
        reason = degenerate_reason(figures, self.merging, self.scale_values)
        if reason is not None:
            raise DegenerateImport(self.source, reason)
        warning = partial_overlap_warning(figures)
        if warning is not None:
            self.warnings.append(f"warning: {self.source}: {warning}")


def guard(source: str, force: bool = False, merging: bool = False,
          scale_values: tuple[int, ...] = ()) -> Guard | None:
    """The :class:`Guard` of an import of ``source``; None when ``force`` (nothing is
    measured); ``merging`` and ``scale_values`` as in :func:`degenerate_reason`."""
    if force:
        return None
    return Guard(source, merging, scale_values=tuple(scale_values))


def warnings_of(check: Guard | None) -> tuple[str, ...]:
    """The warning lines a guard collected (none when forced)."""
    return tuple(check.warnings) if check is not None else ()


def zero_padding_warning(cur: duckdb.DuckDBPyConnection, dataset_id: int) -> str | None:
    """The clause warning that some of the dataset's judged queries have no text while a
    query's id differs from theirs only by leading zeros (``01`` judged, ``1`` with text),
    naming ``--normalize-ids strip-zeros``; None when no judged query is so.  Plain SQL
    (either backend), over the judged query ids and the queries' ids."""
    bare = normalized("query_id", IdNormalization.STRIP_ZEROS)
    (judged, padded, example, match) = _fetch(cur, f"""
        WITH judged AS (SELECT DISTINCT query_id FROM judgments WHERE dataset_id = $dataset),
             texted AS (SELECT query_id, {bare} AS bare FROM queries
                        WHERE dataset_id = $dataset),
             padded AS (SELECT j.query_id, t.query_id AS match FROM
                            (SELECT query_id, {bare} AS bare FROM judged j WHERE NOT EXISTS
                                (SELECT 1 FROM texted t WHERE t.query_id = j.query_id)) j
                        JOIN texted t ON t.bare = j.bare)
        SELECT (SELECT count(*) FROM judged), (SELECT count(DISTINCT query_id) FROM padded),
               (SELECT min(query_id) FROM padded),
               (SELECT min(match) FROM padded
                WHERE query_id = (SELECT min(query_id) FROM padded))""",
                                               {"dataset": dataset_id})
    if not padded:
        return None
    return (f"{padded:,} of the dataset's {judged:,} judged queries have no text while a "
            f"query's id differs from theirs only by leading zeros (judged {example!r}, "
            f"query {match!r}); import the judgments and the queries with --normalize-ids "
            f"{IdNormalization.STRIP_ZEROS.value}")
