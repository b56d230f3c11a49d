"""How far missing labels could move classic NDCG@k: exact bounds over every completion.

The unlabelled docs in the top k will some day get grades from the scale.  ``ndcg_bounds``
returns the smallest and the largest NDCG@k over *every* way of grading them, so a score can be
read as "somewhere in [lower, upper] once the gaps are filled".

Why not simply "all unlabelled at 0" and "all at the maximum grade"?  Because a newly labelled
doc also enters the query's ideal ranking.  Labels ``{a: 3}``, ranking ``[a, u2, .., u9, u10]``
with only ``u10`` unlabelled (k=10): at 0, NDCG = 1.0; at 3, the ideal gains a second 3 at rank 2,
and NDCG falls to 0.79.  Filling with the maximum can *lower* the score, and grading
other docs 0 can leave it higher than any "all max" fill.  The exact bounds below always contain
the NDCG of any completion, the zero-filled classic value included.

Method.  For a multiset of assigned grades the ideal DCG is fixed, and the DCG is largest when
the higher grades sit at the better-ranked unlabelled positions (smallest when reversed), by the
rearrangement inequality.  A completion is therefore a composition (c_1 .. c_L) of the m
unlabelled docs over the L gain levels, and both DCG and ideal DCG split into one term per level
that depends only on (docs already assigned to higher levels, c_l).  The ratio is optimised by
Dinkelbach's method: t <- N(x)/D(x) with x = argmax/argmin N - t*D, each inner problem an exact
dynamic programme in O(L m^2).  It converges in a handful of steps to the exact optimum.

Assumptions, stated: only the unlabelled docs in the top k are completed (unlabelled docs
below k or never retrieved stay unlabelled); the grades available are the scale's.

Edge cases: no unlabelled doc in the top k gives (ndcg, ndcg); no positive grade possible
anywhere gives (0.0, 0.0).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
import pandas as pd

from metrics.dcg import (
    Discount,
    Gain,
    check_cutoff,
    check_gain_discount,
    gain_of,
    is_judged,
    rank_discounts,
)
from metrics.errors import GradeError
from metrics.ndcg import check_labels_within, ndcg, resolve_max_grade
from metrics.ranking import DocId, Judgments, grades_in_rank_order, label_grades
from metrics.scale import GradeScale

_MAX_STEPS = 200


@dataclass(frozen=True)
class NdcgBounds:
    """The range of NDCG@k over every grading of the top k's unlabelled docs."""

    lower: float
    upper: float
    unlabelled: int

    @property
    def width(self) -> float:
        return self.upper - self.lower


@dataclass(frozen=True, eq=False)
class _Problem:
    """One query's completion problem, in gains."""

    k: int
    labelled_dcg: float  # DCG of the labelled docs in the top k
    slot_discounts: np.ndarray  # d(r) of each unlabelled position, best rank first
    level_gains: np.ndarray  # distinct gains, descending
    level_labels: np.ndarray  # how many existing labels have each level's gain
    assignable: np.ndarray  # whether an unlabelled doc may take the level's gain
    cum_discount: np.ndarray  # cum_discount[r] = sum_{i<=min(r,k)} d(i)

    @property
    def m(self) -> int:
        return len(self.slot_discounts)

    def ideal_before(self) -> np.ndarray:
        return np.concatenate(([0], np.cumsum(self.level_labels)[:-1]))

    def ideal_term(self, level: int, assigned_before: np.ndarray, count: np.ndarray
                   ) -> np.ndarray:
        start = self.ideal_before()[level] + assigned_before
        stop = start + self.level_labels[level] + count
        cum = self.cum_discount
        top = len(cum) - 1
        return self.level_gains[level] * (cum[np.minimum(stop, top)] - cum[np.minimum(start, top)])

    def numerator_term(self, level: int, assigned_before: np.ndarray, count: np.ndarray,
                       best_first: bool) -> np.ndarray:
        prefix = np.concatenate(([0.0], np.cumsum(self.slot_discounts)))
        if best_first:
            block = prefix[assigned_before + count] - prefix[assigned_before]
        else:
            block = prefix[self.m - assigned_before] - prefix[self.m - assigned_before - count]
        return self.level_gains[level] * block

    def evaluate(self, counts: np.ndarray, best_first: bool) -> tuple[float, float]:
        """(DCG, ideal DCG) of a composition."""
        before = np.concatenate(([0], np.cumsum(counts)[:-1]))
        num = self.labelled_dcg
        ideal = 0.0
        for level, (numerator, ideal_terms) in enumerate(
                zip(self._numerator_terms[best_first], self._ideal_terms, strict=True)):
            cell = (before[level] + counts[level], before[level])  # (used, s)
            num += float(numerator[cell])
            ideal += float(ideal_terms[cell])
        return num, ideal

    @cached_property
    def _cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The DP's cells laid out by anti-diagonal: row ``used`` (docs assigned so far,
        this level included), column ``s`` (assigned to higher levels), ``c = used - s``
        (assigned to this level); cells with ``s > used`` do not exist."""
        rows = np.arange(self.m + 1)[:, None]
        s = np.arange(self.m + 1)[None, :]
        exists = s <= rows
        return np.broadcast_to(s, exists.shape), np.where(exists, rows - s, 0), exists

    @cached_property
    def _ideal_terms(self) -> list[np.ndarray]:
        s, c, _ = self._cells
        return [self.ideal_term(level, s, c) for level in range(len(self.level_gains))]

    @cached_property
    def _numerator_terms(self) -> dict[bool, list[np.ndarray]]:
        """Per ``best_first`` (higher grades at the better-ranked slots, or reversed)."""
        s, c, _ = self._cells
        return {order: [self.numerator_term(level, s, c, order)
                        for level in range(len(self.level_gains))]
                for order in (True, False)}

    @cached_property
    def _allowed(self) -> list[np.ndarray]:
        _, c, exists = self._cells
        return [exists & ((c == 0) | bool(self.assignable[level]))
                for level in range(len(self.level_gains))]

    def best_composition(self, t: float, maximise: bool, best_first: bool) -> np.ndarray:
        """The composition optimising DCG - t * ideal DCG (dynamic programme over levels).

        ``value[used]`` is the best objective with ``used`` docs assigned to the levels so
        far; a level's step takes, for each ``used``, the best split ``s + c = used`` (the
        first best ``s`` on ties).  Every term is fixed by the problem, so only ``t`` varies
        between Dinkelbach steps."""
        sign = 1.0 if maximise else -1.0
        s, _, _ = self._cells
        rows = np.arange(self.m + 1)
        value = np.full(self.m + 1, -np.inf)
        value[0] = 0.0
        choices = []
        for numerator, ideal, allowed in zip(self._numerator_terms[best_first],
                                             self._ideal_terms, self._allowed, strict=True):
            total = np.where(allowed, value[s] + sign * (numerator - t * ideal), -np.inf)
            best = total.argmax(axis=1)
            value = total[rows, best]
            choices.append(rows - best)
        counts = np.zeros(len(self.level_gains), dtype=int)
        used = self.m
        for level in range(len(self.level_gains) - 1, -1, -1):
            counts[level] = choices[level][used]
            used -= counts[level]
        return counts


def _ratio(num: float, ideal: float) -> float:
    return num / ideal if ideal > 0 else 0.0


def _optimise(problem: _Problem, maximise: bool) -> float:
    best_first = maximise
    counts = np.zeros(len(problem.level_gains), dtype=int)
    top_level = int(np.flatnonzero(problem.assignable)[0])
    counts[top_level] = problem.m
    t = _ratio(*problem.evaluate(counts, best_first))
    for _ in range(_MAX_STEPS):
        counts = problem.best_composition(t, maximise, best_first)
        num, ideal = problem.evaluate(counts, best_first)
        gap = num - t * ideal
        tolerance = 1e-12 * max(1.0, abs(num))
        if (gap <= tolerance) if maximise else (gap >= -tolerance):
            return t
        t = _ratio(num, ideal)
    return t  # pragma: no cover - Dinkelbach is finite on a finite set


def ndcg_bounds(ranking: Sequence[DocId], judgments: Judgments, k: int,
                max_grade: float | GradeScale, *, grades: Iterable[float] | None = None,
                gain: Gain = "linear", discount: Discount = "log2") -> NdcgBounds:
    """Smallest and largest classic NDCG@k over every grading of the top k's unlabelled docs.

    ``grades`` are the values an unlabelled doc may take: by default the scale's values when
    ``max_grade`` is a :class:`GradeScale`, else the integers 0..max_grade.  The zero-filled
    classic NDCG@k always lies in [lower, upper]; so does the NDCG after any expert grading.
    """
    check_cutoff(k)
    check_gain_discount(gain, discount)
    top_grade = resolve_max_grade(max_grade)
    check_labels_within(judgments, top_grade)
    if grades is None:
        grades = (max_grade.values if isinstance(max_grade, GradeScale)
                  else range(0, int(top_grade) + 1))
    options = np.array(sorted(set(float(g) for g in grades)), dtype=float)
    if len(options) == 0 or options.max() > top_grade:
        raise GradeError(f"grades must be non-empty and at most max_grade; got {list(options)}")

    row = grades_in_rank_order(ranking, judgments)[0, :k]
    labels = label_grades(judgments)[0]
    labels = labels[labels >= 0]
    unlabelled = np.flatnonzero(~is_judged(row))
    if len(unlabelled) == 0:
        value = ndcg(ranking, judgments, k, gain=gain, discount=discount)
        return NdcgBounds(value, value, 0)

    label_gains = gain_of(labels, gain)
    option_gains = np.unique(gain_of(options, gain))
    levels = np.unique(np.concatenate((option_gains, label_gains)))[::-1]
    if levels[0] <= 0:
        return NdcgBounds(0.0, 0.0, len(unlabelled))
    discounts = rank_discounts(k, discount)
    labelled_dcg = float(gain_of(np.where(is_judged(row), row, 0.0), gain)
                         @ discounts[: len(row)])
    zero_possible = bool(option_gains.min() <= 0 and label_gains.max(initial=0.0) <= 0)
    lower, upper = _solved(k, discount, labelled_dcg, tuple(unlabelled.tolist()),
                           tuple(levels.tolist()),
                           tuple(int((label_gains == g).sum()) for g in levels),
                           tuple(np.isin(levels, option_gains).tolist()), zero_possible)
    return NdcgBounds(lower, upper, len(unlabelled))


@lru_cache(maxsize=65536)
def _solved(k: int, discount: Discount, labelled_dcg: float, unlabelled: tuple[int, ...],
            levels: tuple[float, ...], level_labels: tuple[int, ...],
            assignable: tuple[bool, ...], zero_possible: bool) -> tuple[float, float]:
    """(lower, upper) of one completion problem.  A pure function of its arguments, so it
    is remembered: queries with the same problem (often all of them again when only votes
    changed) are solved once per process."""
    discounts = rank_discounts(k, discount)
    problem = _Problem(
        k=k,
        labelled_dcg=labelled_dcg,
        slot_discounts=discounts[list(unlabelled)],
        level_gains=np.array(levels, dtype=float),
        level_labels=np.array(level_labels, dtype=int),
        assignable=np.array(assignable, dtype=bool),
        cum_discount=np.concatenate(([0.0], np.cumsum(discounts))),
    )
    lower = 0.0 if zero_possible else _optimise(problem, maximise=False)
    return lower, _optimise(problem, maximise=True)


def bounds_per_query(run: pd.DataFrame, qrels: pd.DataFrame, k: int,
                     max_grade: float | GradeScale, *, gain: Gain = "linear",
                     discount: Discount = "log2") -> pd.DataFrame:
    """:func:`ndcg_bounds` for every qrels query of a run (a loop per query: dashboards).

    ``run`` has query_id, doc_id, rank; ``qrels`` has query_id, doc_id, grade.  A qrels query
    the run lacks gets (0, 0).  Returns lower, upper, unlabelled per query_id.
    """
    top = run.sort_values(["query_id", "rank"], kind="stable").groupby(
        "query_id", sort=False).head(k)  # only the top k is ever read
    rankings = {query_id: list(docs) for query_id, (docs,) in
                _blocks(top["query_id"], top["doc_id"]).items()}
    labelled = qrels.sort_values("query_id", kind="stable")
    rows = {}
    for query_id, (docs, grades) in _blocks(labelled["query_id"], labelled["doc_id"],
                                            labelled["grade"]).items():
        judgments = dict(zip(docs, grades, strict=True))
        found = ndcg_bounds(rankings.get(query_id, []), judgments, k, max_grade, gain=gain,
                            discount=discount)
        rows[query_id] = (found.lower, found.upper, found.unlabelled)
    frame = pd.DataFrame.from_dict(rows, orient="index",
                                   columns=["lower", "upper", "unlabelled"])
    frame.index.name = "query_id"
    return frame


def _blocks(keys: pd.Series, *columns: pd.Series) -> dict[object, tuple[np.ndarray, ...]]:
    """The columns cut into the runs of equal consecutive ``keys`` (sorted input: groups)."""
    keys_array = keys.to_numpy(dtype=object)
    if len(keys_array) == 0:
        return {}
    arrays = [column.to_numpy(dtype=object) for column in columns]
    change = np.flatnonzero(keys_array[1:] != keys_array[:-1]) + 1
    edges = np.concatenate(([0], change, [len(keys_array)]))
    return {keys_array[start]: tuple(array[start:stop] for array in arrays)
            for start, stop in itertools.pairwise(edges)}
