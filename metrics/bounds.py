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
:func:`ratio_bounds` solves a batch of such problems at once (queries with the same number of
unlabelled docs, one vectorised step per level); it takes any weights in place of the
discounts, of either sign, which is how :mod:`metrics.decision` bounds NDCG_B - NDCG_A of one
query over joint completions (a doc in both runs has one grade; both share the ideal).

Assumptions, stated: only the unlabelled docs in the top k are completed (unlabelled docs
below k or never retrieved stay unlabelled); the grades available are the scale's.

Edge cases: no unlabelled doc in the top k gives (ndcg, ndcg); no positive grade possible
anywhere gives (0.0, 0.0).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

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


def ratio_bounds(constant: np.ndarray, weights: np.ndarray, label_counts: np.ndarray,
                 level_gains: np.ndarray, assignable: np.ndarray, discounts: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Smallest and largest (c + sum_i w_i g_i) / IDCG@k over every grading of m docs, for a
    batch of problems at once (exact).

    Row b of the batch: ``constant`` c_b, ``weights`` (B, m) w_bi of its m ungraded docs (any
    sign, any order), ``label_counts`` (B, L) its existing labels per gain level; the levels'
    ``level_gains`` (descending) and whether an ungraded doc may take each (``assignable``) are
    shared, and so are the rank ``discounts`` d(1..k).  g_i is the gain given to doc i; IDCG@k
    is the DCG@k of the labels and the graded docs together in descending order.  A grading
    whose IDCG is 0 (every gain 0) scores 0.  c must be the labelled docs' part of the
    numerator, sum_j v_j g_j over the labels (so 0 when every label has gain 0).

    Classic NDCG@k of one run is the case w_i = d(rank of i), c = DCG of the labelled docs;
    the difference NDCG_B - NDCG_A of one query the case w_i = d_B(i) - d_A(i) (a doc in both
    runs is one doc with one grade), since both runs share the query's ideal.
    """
    constant = np.asarray(constant, dtype=float)
    weights = np.asarray(weights, dtype=float)
    label_counts = np.asarray(label_counts, dtype=np.int64)
    level_gains = np.asarray(level_gains, dtype=float)
    assignable = np.asarray(assignable, dtype=bool)
    cum = np.concatenate(([0.0], np.cumsum(discounts)))
    rows, m = weights.shape
    ideal_labels = _ideal(np.zeros_like(label_counts), label_counts, level_gains, cum)
    if m == 0 or rows == 0:
        value = np.divide(constant, ideal_labels, out=np.zeros(rows), where=ideal_labels > 0)
        return value, value.copy()
    lower, upper = np.empty(rows), np.empty(rows)
    chunk = max(1, _CELLS // ((m + 1) ** 2 * len(level_gains)))
    for first in range(0, rows, chunk):
        part = slice(first, first + chunk)
        problem = _Batch(constant[part], np.sort(weights[part], axis=1)[:, ::-1],
                         label_counts[part], level_gains, assignable, cum)
        lower[part], upper[part] = problem.solve()
    return lower, upper


_CELLS = 1 << 21  # cells of one DP step held at once (rows x (m+1)^2 x levels)


def _ideal(counts: np.ndarray, label_counts: np.ndarray, level_gains: np.ndarray,
           cum: np.ndarray) -> np.ndarray:
    """IDCG@k of the labels plus ``counts`` graded docs per level (rows of a batch)."""
    total = label_counts + counts
    before = np.cumsum(total, axis=1) - total
    top = len(cum) - 1
    return (level_gains * (cum[np.minimum(before + total, top)]
                           - cum[np.minimum(before, top)])).sum(axis=1)


@dataclass(frozen=True, eq=False)
class _Batch:
    """B completion problems with the same number m of ungraded docs (weights descending).

    A grading is a composition (c_1 .. c_L) of the m docs over the levels plus an
    assignment; for a composition the ideal is fixed, and by the rearrangement inequality
    the numerator is largest when the higher gains go to the larger weights (smallest when
    reversed), whatever their signs.  Both split into one term per level that depends only on
    (docs already given higher levels s, c_l), so max/min of N - t * IDCG is an exact dynamic
    programme over the levels, and Dinkelbach's method (t <- N/IDCG of the optimum) converges
    to the extreme ratio in a handful of steps."""

    constant: np.ndarray
    weights: np.ndarray  # (B, m) descending
    label_counts: np.ndarray  # (B, L)
    level_gains: np.ndarray  # (L,) descending
    assignable: np.ndarray  # (L,)
    cum: np.ndarray  # cum[r] = d(1) + .. + d(min(r, k))

    @property
    def m(self) -> int:
        return self.weights.shape[1]

    @cached_property
    def prefix(self) -> np.ndarray:
        """P[j] = sum of the j largest weights."""
        return np.concatenate((np.zeros((len(self.weights), 1)),
                               np.cumsum(self.weights, axis=1)), axis=1)

    @cached_property
    def _cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Row ``used`` (docs given this level or higher), column ``s`` (higher levels),
        c = used - s (this level); cells with s > used do not exist."""
        used = np.arange(self.m + 1)[:, None]
        s = np.arange(self.m + 1)[None, :]
        exists = s <= used
        return np.broadcast_to(s, exists.shape), np.where(exists, used - s, 0), exists

    @cached_property
    def _ideal_ends(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per level (E, S), each (B, m+1): the level's share of the ideal DCG with ``used``
        docs at it or higher, s of them higher, is gain * (E[used] - S[s]) with
        E[used] = d(1..before + labels + used) and S[s] = d(1..before + s) (before: the
        labels of higher levels; cum clipped at k)."""
        before = np.cumsum(self.label_counts, axis=1) - self.label_counts
        top = len(self.cum) - 1
        steps = np.arange(self.m + 1)[None, :]
        return [(self.cum[np.minimum(before[:, level, None] + self.label_counts[:, level, None]
                                     + steps, top)],
                 self.cum[np.minimum(before[:, level, None] + steps, top)])
                for level in range(len(self.level_gains))]

    def masked_steps(self, sign: float, best_first: bool
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per level, (sign * N term, -inf where the cell is not allowed; IDCG term),
        arrays over (B, used, s) for the middle levels, (B, used) at s = 0 for the first and
        (B, s) at used = m for the last (the only cells the DP reads there).  A step of the
        DP is then masked - (sign * t) * ideal, exactly sign * (N - t * IDCG) (negating is
        exact, so both signs share the IDCG terms, :attr:`_ideal_steps`)."""
        _, _, exists = self._cells
        m, levels = self.m, len(self.level_gains)
        # the weights a level's docs take: prefix[used] - prefix[s] (best first) or
        # prefix[m - s] - prefix[m - used] = R[s] - R[used], R the prefix reversed
        top_u = top_v = self.prefix if best_first else self.prefix[:, ::-1]
        out = []
        span = np.arange(m + 1)
        for level, (gain, ok) in enumerate(zip(self.level_gains, self.assignable,
                                               strict=True)):
            factor = sign * gain
            if level == 0:  # s = 0, c = used
                block = (top_u - top_v[:, :1]) if best_first else (top_v[:, :1] - top_u)
                allowed = (span == 0) | bool(ok)
            elif level == levels - 1:  # used = m, c = m - s
                block = (top_u[:, m:] - top_v) if best_first else (top_v - top_u[:, m:])
                allowed = (span == m) | bool(ok)
            else:
                if best_first:
                    block = top_u[:, :, None] - top_v[:, None, :]
                else:
                    block = top_v[:, None, :] - top_u[:, :, None]
                allowed = exists & ((span[:, None] == span[None, :]) | bool(ok))
            masked = np.multiply(block, factor, out=block if block.base is None else None)
            if not allowed.all():
                np.copyto(masked, -np.inf, where=~np.broadcast_to(allowed, masked.shape))
            out.append((masked, self._ideal_steps[level]))
        return out

    @cached_property
    def _ideal_steps(self) -> list[np.ndarray]:
        """Per level, the IDCG term gain * (E[used] - S[s]) over the cells
        :meth:`masked_steps` lays out."""
        levels, m = len(self.level_gains), self.m
        out = []
        for level, ((end, start), gain) in enumerate(zip(self._ideal_ends, self.level_gains,
                                                         strict=True)):
            if level == 0:
                ideal = end - start[:, :1]
            elif level == levels - 1:
                ideal = end[:, m:] - start
            else:
                ideal = end[:, :, None] - start[:, None, :]
            ideal *= gain
            out.append(ideal)
        return out

    def evaluate(self, counts: np.ndarray, rows: np.ndarray, best_first: bool
                 ) -> tuple[np.ndarray, np.ndarray]:
        """(N, IDCG) of each row's composition ``counts`` (rows: which batch rows), summed
        level by level in the order the DP adds them."""
        before = np.cumsum(counts, axis=1) - counts
        prefix = self.prefix[rows]
        line = np.arange(len(rows))[:, None]
        if best_first:
            block = prefix[line, before + counts] - prefix[line, before]
        else:
            block = prefix[line, self.m - before] - prefix[line, self.m - before - counts]
        num = self.constant[rows].copy()
        ideal = np.zeros(len(rows))
        for level, (gain, (end, start)) in enumerate(zip(self.level_gains, self._ideal_ends,
                                                         strict=True)):
            num += gain * block[:, level]
            used, higher = before[:, level] + counts[:, level], before[:, level]
            ideal += gain * (end[rows, used] - start[rows, higher])
        return num, ideal

    def best_compositions(self, t: np.ndarray, rows: np.ndarray,
                          steps: list[tuple[np.ndarray, np.ndarray]], sign: float = 1.0
                          ) -> np.ndarray:
        """Each row's composition maximising sign * (N - t * IDCG) (``steps``:
        :meth:`masked_steps`).  The first level starts from no doc placed (its best is its
        s = 0 column); of the last level only the row of all m docs placed is needed."""
        subset = len(rows) < len(self.constant)
        line = np.arange(len(rows))
        levels = len(steps)
        choices: list[np.ndarray] = []
        value = np.empty(0)
        buffer = None  # the middle levels' (rows, m+1, m+1) sums, one array reused
        scale = -sign * t  # -(sign * t), exactly
        for level, (masked, ideal) in enumerate(steps):
            if subset:
                masked, ideal = masked[rows], ideal[rows]
            # masked - (sign * t) * ideal, as masked + scale * ideal, in place
            if level == 0:
                value = ideal * scale[:, None]
                value += masked
                choices.append(np.zeros((len(rows), self.m + 1), dtype=np.int64))
            elif level == levels - 1:
                total = ideal * scale[:, None]
                total += masked
                total += value
                choice = np.zeros((len(rows), self.m + 1), dtype=np.int64)
                choice[:, self.m] = total.argmax(axis=1)
                choices.append(choice)
            else:
                total = np.multiply(ideal, scale[:, None, None],
                                    out=None if buffer is None else buffer[:len(rows)])
                buffer = total
                total += masked
                total += value[:, None, :]
                best = total.argmax(axis=2)
                choices.append(best)
                value = np.take_along_axis(total, best[:, :, None], axis=2)[:, :, 0]
        counts = np.zeros((len(rows), len(self.level_gains)), dtype=np.int64)
        used = np.full(len(rows), self.m)
        for level in range(len(self.level_gains) - 1, -1, -1):
            higher = choices[level][line, used]
            counts[:, level] = used - higher
            used = higher
        return counts

    @cached_property
    def _span(self) -> tuple[int, int]:
        """The highest and the lowest level an ungraded doc may take."""
        allowed = np.flatnonzero(self.assignable)
        return int(allowed[0]), int(allowed[-1])

    def _family_ideals(self) -> np.ndarray:
        """(B, m+1): the IDCG with j = 0..m docs at the highest level an ungraded doc may
        take and the others at the lowest (per level, gain * (E[used] - S[higher]))."""
        highest, lowest = self._span
        m = self.m
        ideal = np.zeros((len(self.constant), m + 1))
        for level, (gain, (end, start)) in enumerate(zip(self.level_gains, self._ideal_ends,
                                                         strict=True)):
            if level < highest:
                ideal += gain * (end[:, :1] - start[:, :1])
            elif level == highest:
                ideal += gain * (end - start[:, :1])
            elif level < lowest:
                ideal += gain * (end - start)
            elif level == lowest:
                ideal += gain * (end[:, m:] - start)
            else:
                ideal += gain * (end[:, m:] - start[:, m:])
        return ideal

    @cached_property
    def all_highest_ideal(self) -> np.ndarray:
        """(B,) the IDCG with every ungraded doc at the highest level it may take: 0 only
        when every gain is 0 (then every grading scores 0)."""
        return self._family_ideals()[:, self.m]

    def start(self, maximise: bool) -> np.ndarray:
        """(B, L) where Dinkelbach's method starts: the best ratio among m + 1 gradings,
        the j weights that help most (the largest for the largest ratio, the smallest for
        the smallest) at the highest level and the others at the lowest, j = 0..m (j = m:
        all at the highest).  One of them is often the optimum, which one step of the DP
        then confirms.  (Only where to start: the ratio is then evaluated exactly.)"""
        highest, lowest = self._span
        m, prefix = self.m, self.prefix
        if maximise:  # the j largest weights: P[j]; the others: P[m] - P[j]
            top, rest = prefix, prefix[:, m:] - prefix
        else:  # the j smallest: P[m] - P[m - j]; the others: P[m - j]
            top, rest = prefix[:, m:] - prefix[:, ::-1], prefix[:, ::-1]
        num = self.constant[:, None] + self.level_gains[highest] * top
        if lowest != highest:
            num = num + self.level_gains[lowest] * rest
        ideal = self._family_ideals()
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(ideal > 0, num / ideal, -np.inf if maximise else np.inf)
        best = ratio.argmax(axis=1) if maximise else ratio.argmin(axis=1)
        counts = np.zeros((len(self.constant), len(self.level_gains)), dtype=np.int64)
        counts[:, lowest] = m - best
        counts[:, highest] += best
        return counts

    def optimise(self, maximise: bool) -> np.ndarray:
        sign = 1.0 if maximise else -1.0
        steps = self.masked_steps(sign, best_first=maximise)
        everyone = np.arange(len(self.constant))
        counts = self.start(maximise)
        num, ideal = self.evaluate(counts, everyone, maximise)
        t = np.divide(num, ideal, out=np.zeros(len(num)), where=ideal > 0)
        # ideal 0 with all at the highest level: every gain is 0, every grading scores 0
        active = everyone[self.all_highest_ideal > 0]
        for _ in range(_MAX_STEPS):
            if len(active) == 0:
                break
            counts = self.best_compositions(t[active], active, steps, sign)
            num, ideal = self.evaluate(counts, active, maximise)
            gap = sign * (num - t[active] * ideal)
            moved = gap > 1e-12 * np.maximum(1.0, np.abs(num))
            t[active[moved]] = np.divide(num[moved], ideal[moved],
                                         out=np.zeros(int(moved.sum())),
                                         where=ideal[moved] > 0)
            active = active[moved]
        return t

    def solve(self) -> tuple[np.ndarray, np.ndarray]:
        lower, upper = self.optimise(maximise=False), self.optimise(maximise=True)
        # a grading with every gain 0 (IDCG 0) scores 0: possible where a level of gain 0 is
        # assignable and every label has gain 0
        zero_level = self.assignable & (self.level_gains <= 0)
        positive_labels = (self.label_counts[:, self.level_gains > 0] > 0).any(axis=1)
        zero = bool(zero_level.any()) & ~positive_labels
        return np.where(zero, np.minimum(lower, 0.0), lower), np.where(zero,
                                                                         np.maximum(upper, 0.0),
                                                                         upper)


def ndcg_bounds(ranking: Sequence[DocId], judgments: Judgments, k: int,
                max_grade: float | GradeScale, *, grades: Iterable[float] | None = None,
                gain: Gain = "linear", discount: Discount = "log2") -> NdcgBounds:
    """Smallest and largest classic NDCG@k over every grading of the top k's unlabelled docs.

    ``grades`` are the values an unlabelled doc may take: by default the scale's values when
    ``max_grade`` is a :class:`GradeScale`, else the integers 0..max_grade.  The zero-filled
    classic NDCG@k always lies in [lower, upper]; so does the NDCG after any expert grading.
    """
    found = _completion(ranking, judgments, k, max_grade, grades, gain, discount)
    if isinstance(found, NdcgBounds):
        return found
    return _solve_all([found])[0]


@dataclass(frozen=True)
class _Key:
    """One query's completion problem, hashable: what :func:`ratio_bounds` needs."""

    k: int
    discount: Discount
    labelled_dcg: float
    unlabelled: tuple[int, ...]  # 0-based positions in the top k
    levels: tuple[float, ...]  # gains, descending
    level_labels: tuple[int, ...]
    assignable: tuple[bool, ...]

    @property
    def shape(self) -> tuple[object, ...]:
        """Problems of one shape are solved in one batch."""
        return self.k, self.discount, len(self.unlabelled), self.levels, self.assignable


def _completion(ranking: Sequence[DocId], judgments: Judgments, k: int,
                max_grade: float | GradeScale, grades: Iterable[float] | None, gain: Gain,
                discount: Discount) -> NdcgBounds | _Key:
    """The answer when it needs no search, else the problem to solve."""
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
    return _Key(k, discount, labelled_dcg, tuple(unlabelled.tolist()), tuple(levels.tolist()),
                tuple(int((label_gains == g).sum()) for g in levels),
                tuple(np.isin(levels, option_gains).tolist()))


_SOLVED: dict[_Key, tuple[float, float]] = {}
_REMEMBERED = 65536


def _solve_all(keys: list[_Key]) -> list[NdcgBounds]:
    """The bounds of every problem: each shape's new problems solved in one batch.  Solving
    is a pure function of the problem, so answers are remembered (up to 65,536 problems):
    queries whose problem did not change (often all of them again when only votes changed)
    are solved once per process."""
    fresh: dict[tuple[object, ...], list[_Key]] = {}
    for key in dict.fromkeys(keys):
        if key not in _SOLVED:
            fresh.setdefault(key.shape, []).append(key)
    for group in fresh.values():
        first = group[0]
        discounts = rank_discounts(first.k, first.discount)
        lower, upper = ratio_bounds(np.array([key.labelled_dcg for key in group]),
                                    discounts[np.array([key.unlabelled for key in group])],
                                    np.array([key.level_labels for key in group]),
                                    np.array(first.levels), np.array(first.assignable),
                                    discounts)
        if len(_SOLVED) + len(group) > _REMEMBERED:
            _SOLVED.clear()
        _SOLVED.update(zip(group, zip(lower.tolist(), upper.tolist(), strict=True),
                           strict=True))
    return [NdcgBounds(*_SOLVED[key], len(key.unlabelled)) for key in keys]


def bounds_per_query(run: pd.DataFrame, qrels: pd.DataFrame, k: int,
                     max_grade: float | GradeScale, *, gain: Gain = "linear",
                     discount: Discount = "log2") -> pd.DataFrame:
    """:func:`ndcg_bounds` for every qrels query of a run (the problems solved in batches).

    ``run`` has query_id, doc_id, rank; ``qrels`` has query_id, doc_id, grade.  A qrels query
    the run lacks gets (0, 0).  Returns lower, upper, unlabelled per query_id.
    """
    top = run.sort_values(["query_id", "rank"], kind="stable").groupby(
        "query_id", sort=False).head(k)  # only the top k is ever read
    rankings = {query_id: list(docs) for query_id, (docs,) in
                _blocks(top["query_id"], top["doc_id"]).items()}
    labelled = qrels.sort_values("query_id", kind="stable")
    found = {}
    for query_id, (docs, grades) in _blocks(labelled["query_id"], labelled["doc_id"],
                                            labelled["grade"]).items():
        judgments = dict(zip(docs, grades, strict=True))
        found[query_id] = _completion(rankings.get(query_id, []), judgments, k, max_grade,
                                      None, gain, discount)
    keys = [key for key in found.values() if isinstance(key, _Key)]
    solved = iter(_solve_all(keys))
    rows = {query_id: (value if isinstance(value, NdcgBounds) else next(solved))
            for query_id, value in found.items()}
    frame = pd.DataFrame.from_dict(
        {query_id: (b.lower, b.upper, b.unlabelled) for query_id, b in rows.items()},
        orient="index", columns=["lower", "upper", "unlabelled"])
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
