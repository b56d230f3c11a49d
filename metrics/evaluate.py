"""Batch evaluation: every measure for every query of a run, vectorised.

``evaluate(run, qrels, ["ndcg@10", "ndcg_f@10", "ndcg_m@10"], max_grade=3)``

* ``run``: DataFrame with ``query_id``, ``doc_id`` and ``rank`` (preferred; an order key) or
  ``score`` (ranked by score descending, then doc id descending, as trec_eval does).
* ``qrels``: DataFrame with ``query_id``, ``doc_id``, ``grade``.  A doc absent from the qrels is
  unlabelled.

Policies, written down:

* The evaluated queries are the queries of the qrels (trec_eval's).  Run queries without any
  label are not evaluated (there is nothing to score them against).
* ``missing_queries="zero"`` (default): a qrels query the run does not answer scores 0 on every
  run-dependent measure and counts in the mean (trec_eval ``-c``), so two runs are always
  averaged over the same queries.  ``"drop"`` leaves such queries out (trec_eval's default).
  ``best_ndcg_m`` depends on the qrels only and keeps its value.
* ``Evaluation.settings`` counts them: ``queries_judged`` (the qrels' queries),
  ``queries_not_answered`` (of those, the ones the run does not answer: scored 0 or dropped)
  and ``queries_without_labels`` (run queries the qrels never mention: not evaluated).
* Measures needing the scale's maximum grade take it from the measure's ``max_grade``
  parameter, else from ``max_grade=`` (a number or a :class:`~metrics.scale.GradeScale`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd

from metrics.dcg import (
    dcg_rows,
    first_judged,
    ideal_dcg_rows,
    max_ideal_dcg,
    normalise,
)
from metrics.errors import ArgumentError, GradeError, MeasureError
from metrics.layout import (
    QrelsIndex,
    RankedRows,
    RunMatrix,
    ids_as_text,
    layout,
    rank_rows,
    require_columns,
)
from metrics.measures import Measure, parse_measures
from metrics.ndcg import resolve_max_grade
from metrics.precision import graded_rows, judged_rows, relevant_rows
from metrics.scale import GradeScale

MissingQueries = Literal["zero", "drop"]


@dataclass(frozen=True)
class Evaluation:
    """Per-query values (rows: queries, columns: measures) and how they were computed."""

    per_query: pd.DataFrame
    measures: tuple[Measure, ...]
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def mean(self) -> pd.Series:
        """Mean of each measure over the evaluated queries."""
        return self.per_query.mean().rename("mean")


@dataclass(frozen=True)
class _Context:
    matrix: RunMatrix
    labels: np.ndarray
    max_grade: float | None

    def k(self, measure: Measure) -> int:
        """The measure's cutoff; full depth is the matrix width (every ranked doc and every
        label fits in it, see :func:`run_matrix`)."""
        return self.matrix.grades.shape[1] if measure.cutoff is None else measure.cutoff


def _max_grade_of(measure: Measure, default: float | None) -> float:
    own = measure.param("max_grade")
    value = own if own is not None else default
    if value is None:
        raise ArgumentError(f"{measure} needs the scale's maximum grade: pass max_grade= "
                         "(a number or a GradeScale) or write it in the measure")
    return resolve_max_grade(value)


def _ndcg(m: Measure, c: _Context) -> np.ndarray:
    gain, discount = m.param("gain"), m.param("discount")
    k = c.k(m)
    return normalise(dcg_rows(c.matrix.grades, k, gain, discount),
                     ideal_dcg_rows(c.labels, k, gain, discount))


def _ndcg_f(m: Measure, c: _Context) -> np.ndarray:
    gain, discount = m.param("gain"), m.param("discount")
    k = c.k(m)
    condensed = first_judged(c.matrix.judged, k)
    return normalise(dcg_rows(condensed, k, gain, discount),
                     ideal_dcg_rows(c.labels, k, gain, discount))


def _ndcg_m(m: Measure, c: _Context) -> np.ndarray:
    gain, discount = m.param("gain"), m.param("discount")
    ideal = max_ideal_dcg(c.k(m), _max_grade_of(m, c.max_grade), gain, discount)
    return normalise(dcg_rows(c.matrix.grades, c.k(m), gain, discount), ideal)


def _best_ndcg_m(m: Measure, c: _Context) -> np.ndarray:
    gain, discount = m.param("gain"), m.param("discount")
    ideal = max_ideal_dcg(c.k(m), _max_grade_of(m, c.max_grade), gain, discount)
    return normalise(ideal_dcg_rows(c.labels, c.k(m), gain, discount), ideal)


def _p(m: Measure, c: _Context) -> np.ndarray:
    return relevant_rows(c.matrix.grades, c.k(m), m.param("rel"))


def _p_graded(m: Measure, c: _Context) -> np.ndarray:
    return graded_rows(c.matrix.grades, c.k(m), _max_grade_of(m, c.max_grade))


def _judged(m: Measure, c: _Context) -> np.ndarray:
    return judged_rows(c.matrix.grades, c.k(m))


_COMPUTE: dict[str, Callable[[Measure, _Context], np.ndarray]] = {
    "ndcg": _ndcg,
    "ndcg_f": _ndcg_f,
    "ndcg_m": _ndcg_m,
    "best_ndcg_m": _best_ndcg_m,
    "p": _p,
    "p_graded": _p_graded,
    "judged": _judged,
}
_RUN_INDEPENDENT = {"best_ndcg_m"}


@dataclass(frozen=True)
class PreparedQrels:
    """Qrels indexed once, to evaluate several runs against them."""

    index: QrelsIndex
    max_label: float


def prepare_qrels(qrels: pd.DataFrame, *runs: pd.DataFrame) -> PreparedQrels:
    """Index ``qrels`` for the given runs (ids compare as int when every side is int)."""
    for frame, what in ((qrels, "qrels"), *((r, "run") for r in runs)):
        require_columns(frame, what, ("query_id", "doc_id"))
    as_text = ids_as_text(qrels["query_id"], qrels["doc_id"],
                          *(r[c] for r in runs for c in ("query_id", "doc_id")))
    index = QrelsIndex.build(qrels, as_text)
    return PreparedQrels(index, float(np.max(index.grades, initial=-np.inf)))


def unlabelled_run_queries(prepared: PreparedQrels, rows: RankedRows) -> int:
    """How many of a run's queries have no label at all (they are not evaluated)."""
    return int((prepared.index.query_ids.get_indexer(rows.run_query_ids) < 0).sum())


def full_depth(rows: RankedRows, prepared: PreparedQrels) -> int:
    """The depth that holds every ranked doc and every label of every evaluated query."""
    return int(max(rows.lengths.max(initial=0), prepared.index.n_labels.max(initial=0), 1))


def run_matrix(rows: RankedRows, prepared: PreparedQrels, measures: Sequence[Measure]
               ) -> RunMatrix:
    """The matrices ``measures`` read from one run (full-depth measures read it all)."""
    full = full_depth(rows, prepared) if any(m.cutoff is None for m in measures) else 0
    depth = max(full if m.cutoff is None else m.cutoff for m in measures)
    judged_depth = max((full if m.cutoff is None else m.cutoff
                        for m in measures if m.name == "ndcg_f"), default=0)
    return layout(rows, prepared.index, depth, judged_depth)


def score_queries(matrix: RunMatrix, prepared: PreparedQrels, measures: Sequence[Measure],
                  max_grade: float | GradeScale | None,
                  missing_queries: MissingQueries = "zero") -> pd.DataFrame:
    """Per-query values of ``measures`` from a laid-out run (see :func:`evaluate`)."""
    if missing_queries not in ("zero", "drop"):
        raise ArgumentError(f"missing_queries must be 'zero' or 'drop'; got {missing_queries!r}")
    default_max = None if max_grade is None else resolve_max_grade(max_grade)
    for m in measures:
        if m.definition.needs_max_grade:
            top = _max_grade_of(m, default_max)
            if prepared.max_label > top:
                raise GradeError(f"{m}: the qrels have grade {prepared.max_label:g}, "
                                 f"above the maximum grade {top:g}")
    depth = matrix.grades.shape[1]
    context = _Context(matrix, prepared.index.top_labels(depth), default_max)
    values = {str(m): _COMPUTE[m.name](m, context) for m in measures}
    frame = pd.DataFrame(values, index=prepared.index.query_ids.rename("query_id"))
    answered = matrix.lengths > 0
    if missing_queries == "drop":
        frame = frame[answered]
    return frame


def evaluate(run: pd.DataFrame, qrels: pd.DataFrame | PreparedQrels,
             measures: str | Sequence[str | Measure], *,
             max_grade: float | GradeScale | None = None,
             missing_queries: MissingQueries = "zero") -> Evaluation:
    """Evaluate ``run`` against ``qrels`` on ``measures`` (names like ``ndcg_f@10``).

    Returns an :class:`Evaluation` whose ``per_query`` frame has one row per evaluated query
    (sorted by query id) and one column per measure, and whose ``mean`` is their average.
    Raises a :class:`~metrics.errors.MetricsError` (``LayoutError``, ``DuplicateDocError``,
    ``MeasureError``, ...) naming the row, query, doc or measure at fault.
    """
    parsed = parse_measures(measures if isinstance(measures, str) else list(measures))
    for m in parsed:
        if m.definition.pairwise:
            raise MeasureError(f"{m} compares two runs: use compare(run_a, run_b, ...)")
    prepared = qrels if isinstance(qrels, PreparedQrels) else prepare_qrels(qrels, run)
    rows = rank_rows(run, prepared.index.query_ids, prepared.index.ids_as_text)
    matrix = run_matrix(rows, prepared, parsed)
    frame = score_queries(matrix, prepared, parsed, max_grade, missing_queries)
    settings = {"missing_queries": missing_queries, "max_grade": max_grade,
                "queries_judged": len(prepared.index.query_ids),
                "queries_not_answered": int((matrix.lengths == 0).sum()),
                "queries_without_labels": unlabelled_run_queries(prepared, rows)}
    return Evaluation(frame, tuple(parsed), settings)
