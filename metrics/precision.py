"""Precision and label coverage of the top k of one ranking.

Formulas, always over k (trec_eval's convention: a ranking shorter than k is not rewarded)::

    P@k (binary)  = |{r <= k : grade_r >= rel}| / k          unlabelled = not relevant
    P@k (graded)  = sum_{r<=k} max(grade_r, 0) / (k * max_grade)   unlabelled = 0
    judged@k      = |{r <= k : doc_r has a label >= 0}| / k   (negative = pooled, unjudged)

An empty ranking scores 0.0 on all three.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from metrics.dcg import check_cutoff, is_judged
from metrics.ndcg import check_labels_within, resolve_max_grade
from metrics.ranking import DocId, Judgments, grades_in_rank_order, label_grades
from metrics.scale import GradeScale


def relevant_rows(grades: np.ndarray, k: int, rel: float) -> np.ndarray:
    """Binary P@k of each row of grades (NaN = unlabelled = not relevant)."""
    top = np.asarray(grades, dtype=float)[:, :k]
    return np.sum(np.nan_to_num(top, nan=-np.inf) >= rel, axis=1) / k


def graded_rows(grades: np.ndarray, k: int, max_grade: float) -> np.ndarray:
    """Graded P@k of each row: sum of positive grades in the top k over k * max_grade."""
    top = np.asarray(grades, dtype=float)[:, :k]
    return np.sum(np.maximum(np.nan_to_num(top, nan=0.0), 0.0), axis=1) / (k * max_grade)


def judged_rows(grades: np.ndarray, k: int) -> np.ndarray:
    """judged@k of each row: labelled docs in the top k over k."""
    top = np.asarray(grades, dtype=float)[:, :k]
    return np.sum(is_judged(top), axis=1) / k


def precision(ranking: Sequence[DocId], judgments: Judgments, k: int, *, rel: float = 1
              ) -> float:
    """Binary P@k with a relevance threshold: share of the top k with grade >= ``rel``.

    With the default ``rel=1`` this is trec_eval's ``P.k``.
    """
    check_cutoff(k)
    label_grades(judgments)
    return float(relevant_rows(grades_in_rank_order(ranking, judgments), k, rel)[0])


def graded_precision(ranking: Sequence[DocId], judgments: Judgments, k: int,
                     max_grade: float | GradeScale) -> float:
    """Graded P@k = sum of the top k's grades / (k * max_grade); unlabelled and negative = 0."""
    check_cutoff(k)
    top = resolve_max_grade(max_grade)
    check_labels_within(judgments, top)
    label_grades(judgments)
    return float(graded_rows(grades_in_rank_order(ranking, judgments), k, top)[0])


def judged_at_k(ranking: Sequence[DocId], judgments: Judgments, k: int) -> float:
    """Label coverage of the top k: labelled docs among the first k results, over k."""
    check_cutoff(k)
    return float(judged_rows(grades_in_rank_order(ranking, judgments), k)[0])
