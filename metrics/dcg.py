"""Gain, discount and discounted cumulative gain over rows of grades.

Everything here works on a 2-D float array of grades, one row per query and one column per rank
(column 0 is rank 1). ``NaN`` marks a position with no label (or past the end of the ranking):
it contributes no gain. The per-query functions and the batch evaluator both call these kernels,
so there is exactly one implementation of the arithmetic.

Conventions (trec_eval's):

* gain ``"linear"``: g(grade) = grade;  ``"exponential"``: g(grade) = 2**grade - 1.
* A negative grade means what it means to trec_eval: the doc was pooled but not judged.  It
  has gain 0, and it counts as *unjudged* wherever judged-ness matters (NDCG-f's condensed
  list, as trec_eval ``-J`` does; judged@k; the bounds under missing labels).
* discount ``"log2"``: d(r) = 1 / log2(r + 1);  ``"reciprocal"``: d(r) = 1 / r (the essay's
  illustration).  r is the 1-based rank.
* DCG@k = sum over r = 1..k of g(grade_r) * d(r).
* An ideal DCG of 0 (no positive label) gives a normalised value of 0.0, never NaN.
"""

from __future__ import annotations

import numpy as np

from metrics.conventions import DISCOUNTS, GAINS, Discount, Gain
from metrics.errors import ArgumentError

__all__ = ["DISCOUNTS", "GAINS", "Discount", "Gain", "check_gain_discount"]


def check_gain_discount(gain: str, discount: str) -> None:
    """Raise :class:`ArgumentError` unless ``gain`` and ``discount`` name a known convention."""
    if gain not in GAINS:
        raise ArgumentError(f"gain must be one of {', '.join(GAINS)}; got {gain!r}")
    if discount not in DISCOUNTS:
        raise ArgumentError(f"discount must be one of {', '.join(DISCOUNTS)}; got {discount!r}")


def check_cutoff(k: int) -> None:
    """Raise :class:`ArgumentError` unless ``k`` is a positive integer."""
    if isinstance(k, bool) or not isinstance(k, int | np.integer) or k < 1:
        raise ArgumentError(f"k must be a positive integer; got {k!r}")


def is_judged(grades: np.ndarray) -> np.ndarray:
    """True where a grade is a judgment: present (not NaN) and not negative."""
    grades = np.asarray(grades, dtype=float)
    return ~np.isnan(grades) & (grades >= 0)


def gain_of(grades: np.ndarray, gain: Gain = "linear") -> np.ndarray:
    """Gain of each grade: ``grade`` or ``2**grade - 1``; NaN and negative grades give 0."""
    g = np.nan_to_num(np.asarray(grades, dtype=float), nan=0.0)
    g = np.maximum(g, 0.0)
    if gain == "exponential":
        return np.exp2(g) - 1.0
    return g


def rank_discounts(n: int, discount: Discount = "log2") -> np.ndarray:
    """Discounts d(1..n): ``1/log2(r+1)`` or ``1/r``."""
    ranks = np.arange(1, n + 1, dtype=float)
    if discount == "reciprocal":
        return 1.0 / ranks
    return 1.0 / np.log2(ranks + 1.0)


def dcg_rows(grades: np.ndarray, k: int, gain: Gain = "linear", discount: Discount = "log2"
             ) -> np.ndarray:
    """DCG@k of each row of ``grades`` (rank order, NaN = no gain).

    Rows shorter than ``k`` simply stop early; an empty row has DCG 0.
    """
    top = np.asarray(grades, dtype=float)[:, :k]
    return gain_of(top, gain) @ rank_discounts(top.shape[1], discount)


def ideal_dcg_rows(label_grades: np.ndarray, k: int, gain: Gain = "linear",
                   discount: Discount = "log2") -> np.ndarray:
    """Ideal DCG@k of each row of a query's label grades (any order, NaN padded).

    The ideal ranking puts the query's own labels in descending grade order; NaN padding and
    negative grades contribute nothing.  A query with no positive label has an ideal of 0.
    """
    labels = np.asarray(label_grades, dtype=float)
    if labels.shape[1] == 0:
        return np.zeros(labels.shape[0])
    ordered = -np.sort(-np.nan_to_num(labels, nan=-np.inf), axis=1)
    return dcg_rows(np.where(np.isfinite(ordered), ordered, np.nan), k, gain, discount)


def max_ideal_dcg(k: int, max_grade: float, gain: Gain = "linear", discount: Discount = "log2"
                  ) -> float:
    """DCG@k of k results all at ``max_grade``: NDCG-m's ideal, the same for every query."""
    return float(gain_of(np.array([max_grade]), gain)[0] * rank_discounts(k, discount).sum())


def normalise(dcg: np.ndarray, ideal: np.ndarray | float) -> np.ndarray:
    """``dcg / ideal`` where the ideal is positive, else 0.0 (documented convention)."""
    dcg = np.asarray(dcg, dtype=float)
    ideal = np.broadcast_to(np.asarray(ideal, dtype=float), dcg.shape)
    out = np.zeros_like(dcg)
    positive = ideal > 0
    np.divide(dcg, ideal, out=out, where=positive)
    return out


def first_judged(grades: np.ndarray, k: int) -> np.ndarray:
    """The first ``k`` judged grades of each row, in rank order (NaN padded).

    This is the condensed list of NDCG-f: unjudged results (unlabelled, or negative grades) are
    squeezed out and the judged ones move up, keeping their relative order.
    """
    grades = np.asarray(grades, dtype=float)
    n_rows = grades.shape[0]
    out = np.full((n_rows, k), np.nan)
    judged = is_judged(grades)
    slot = np.cumsum(judged, axis=1) - 1
    keep = judged & (slot < k)
    rows, cols = np.nonzero(keep)
    out[rows, slot[rows, cols]] = grades[rows, cols]
    return out
