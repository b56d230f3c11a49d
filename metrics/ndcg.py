"""NDCG for one query, in the three variants sxs reports.

* **NDCG** (classic, trec_eval's ``ndcg_cut.k``): unlabelled docs have gain 0; the ideal is the
  query's own labels sorted by grade.
* **NDCG-f** (filtered, trec_eval ``-J``): unlabelled docs are removed from the ranking first
  (a condensed list), then classic NDCG@k.  It answers "among the labelled results, does the
  system put the better ones first?".
* **NDCG-m** (max ideal): the ideal is k results at the scale's maximum grade, the same for
  every query, so a query whose corpus has nothing good cannot score 1.

Formulas (see :mod:`metrics.dcg` for gain and discount)::

    DCG@k    = sum_{r=1..min(k,n)} g(grade_r) * d(r)       unlabelled -> g = 0
    NDCG@k   = DCG@k / IDCG@k,    IDCG@k = DCG@k of the query's labels in descending order
    NDCG-f@k = NDCG@k of the ranking with unlabelled docs removed
    NDCG-m@k = DCG@k / (g(max_grade) * sum_{r=1..k} d(r))
    best NDCG-m@k = IDCG@k / (g(max_grade) * sum_{r=1..k} d(r))   (the query's ceiling)

Edge cases: an empty ranking has DCG 0; an ideal of 0 (no positive label) gives 0.0; a
duplicate doc id raises :class:`~metrics.ranking.DuplicateDocError`; a negative grade
(trec_eval's "pooled, not judged") has gain 0 and is dropped from NDCG-f's list, as ``-J`` does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics.dcg import (
    Discount,
    Gain,
    check_cutoff,
    check_gain_discount,
    dcg_rows,
    first_judged,
    ideal_dcg_rows,
    max_ideal_dcg,
    normalise,
)
from metrics.errors import ArgumentError, GradeError
from metrics.ranking import DocId, Judgments, grades_in_rank_order, label_grades
from metrics.scale import GradeScale


def resolve_max_grade(max_grade: float | GradeScale | None) -> float:
    """The maximum grade as a float, from a number or a :class:`GradeScale`."""
    if max_grade is None:
        raise ArgumentError("max_grade is required (a number or a GradeScale)")
    try:
        value = float(max_grade.max_grade if isinstance(max_grade, GradeScale) else max_grade)
    except (TypeError, ValueError):
        value = float("nan")
    if not np.isfinite(value) or value <= 0:
        raise ArgumentError(f"max_grade must be a positive number; got {max_grade!r}")
    return value


def check_labels_within(judgments: Judgments, max_grade: float) -> None:
    """Raise :class:`GradeError` if a label is above ``max_grade`` (the scale would be wrong)."""
    above = np.flatnonzero(label_grades(judgments)[0] > max_grade)
    if len(above):
        doc = list(judgments)[above[0]]
        raise GradeError(f"grade {judgments[doc]!r} of doc {doc!r} is above max_grade "
                         f"{max_grade:g}")


def _check(k: int, gain: str, discount: str) -> None:
    check_cutoff(k)
    check_gain_discount(gain, discount)


def dcg(ranking: Sequence[DocId], judgments: Judgments, k: int, *, gain: Gain = "linear",
        discount: Discount = "log2") -> float:
    """DCG@k = sum_{r<=k} g(grade_r) d(r); unlabelled docs and negative grades add 0."""
    _check(k, gain, discount)
    label_grades(judgments)
    return float(dcg_rows(grades_in_rank_order(ranking, judgments), k, gain, discount)[0])


def ideal_dcg(judgments: Judgments, k: int, *, gain: Gain = "linear",
              discount: Discount = "log2") -> float:
    """IDCG@k: DCG@k of the query's labels in descending grade order (0 with no labels)."""
    _check(k, gain, discount)
    return float(ideal_dcg_rows(label_grades(judgments), k, gain, discount)[0])


def ndcg(ranking: Sequence[DocId], judgments: Judgments, k: int, *, gain: Gain = "linear",
         discount: Discount = "log2") -> float:
    """Classic NDCG@k = DCG@k / IDCG@k, unlabelled docs at gain 0; 0.0 when IDCG@k is 0.

    Equals trec_eval's ``ndcg_cut.k`` with the default linear gain and log2 discount.
    """
    return float(normalise(dcg(ranking, judgments, k, gain=gain, discount=discount),
                           ideal_dcg(judgments, k, gain=gain, discount=discount)))


def ndcg_f(ranking: Sequence[DocId], judgments: Judgments, k: int, *, gain: Gain = "linear",
           discount: Discount = "log2") -> float:
    """NDCG-f@k: drop unjudged docs (unlabelled, or a negative grade), then classic NDCG@k.

    The labelled docs keep their relative order and move up (a condensed list), so the k in
    NDCG-f@k counts labelled docs only.  Equals trec_eval ``-J`` ``ndcg_cut.k``.  A ranking
    with no labelled doc scores 0.0.
    """
    _check(k, gain, discount)
    condensed = first_judged(grades_in_rank_order(ranking, judgments), k)
    ideal = ideal_dcg_rows(label_grades(judgments), k, gain, discount)
    return float(normalise(dcg_rows(condensed, k, gain, discount), ideal)[0])


def ndcg_m(ranking: Sequence[DocId], judgments: Judgments, k: int, *,
           max_grade: float | GradeScale, gain: Gain = "linear",
           discount: Discount = "log2") -> float:
    """NDCG-m@k = DCG@k / (DCG@k of k results at ``max_grade``); unlabelled docs at gain 0.

    The denominator does not depend on the query.  Raises :class:`GradeError` if a label exceeds
    ``max_grade``.
    """
    top = resolve_max_grade(max_grade)
    check_labels_within(judgments, top)
    value = dcg(ranking, judgments, k, gain=gain, discount=discount)
    return float(normalise(np.array([value]), max_ideal_dcg(k, top, gain, discount))[0])


def best_ndcg_m(judgments: Judgments, k: int, max_grade: float | GradeScale, *,
                gain: Gain = "linear", discount: Discount = "log2") -> float:
    """The query's NDCG-m@k ceiling: IDCG@k of its own labels / DCG@k of k at ``max_grade``.

    1.0 when the query has at least k labels at the maximum grade; 0.0 with no positive label.
    Its mean over queries is the dataset's health figure ("does the corpus have anything good
    for these queries?").
    """
    top = resolve_max_grade(max_grade)
    check_labels_within(judgments, top)
    ideal = ideal_dcg(judgments, k, gain=gain, discount=discount)
    return float(normalise(np.array([ideal]), max_ideal_dcg(k, top, gain, discount))[0])
