"""Brute-force Monte Carlo over the decision's model of unjudged grades (tests only).

Draw the band distributions (p_0 ~ Dirichlet(1 + n_0), then p_b ~ Dirichlet(s p_0 + n_b)),
draw every unjudged grade from its band's p_b, complete the pool, and score each completion
with metrics.dcg's kernels (DCG of each run's top k, the ideal by sorting the query's labels).
Nothing here uses metrics.decision's formulas: not the mean, not the variances, not the
normal approximation, not the linearised ideal.
"""

from __future__ import annotations

import numpy as np

from metrics.dcg import dcg_rows, ideal_dcg_rows, max_ideal_dcg, normalise
from metrics.grade_model import GradeModel, bands_of
from metrics.judging_pool import JudgingPool


def draw_completions(pool: JudgingPool, model: GradeModel, draws: int, seed: int
                     ) -> np.ndarray:
    """(draws, pool size) grades: the judged ones as they are, the others drawn (a Dirichlet
    draw as normalised gamma draws; a grade by its inverse distribution function)."""
    rng = np.random.default_rng(seed)
    bands = bands_of(pool.rank_a, pool.rank_b)
    unjudged = np.flatnonzero(~pool.judged)
    out = np.tile(pool.grade, (draws, 1))
    p0 = rng.dirichlet(1.0 + model.global_counts, size=draws)  # (draws, G)
    shape = model.prior_strength * p0[:, None, :] + model.band_counts[None, :, :]
    gamma = rng.standard_gamma(np.maximum(shape, 1e-9))
    p_b = gamma / gamma.sum(axis=2, keepdims=True)  # (draws, bands, G)
    cdf = np.cumsum(p_b[:, bands[unjudged], :], axis=2)  # (draws, U, G)
    uniform = rng.random((draws, len(unjudged), 1))
    index = np.minimum((uniform > cdf).sum(axis=2), len(model.values) - 1)
    out[:, unjudged] = model.values[index]
    return out


def mean_deltas(pool: JudgingPool, completed: np.ndarray, name: str, gain: str = "linear",
                discount: str = "log2") -> np.ndarray:
    """Mean Δ (B - A) over the queries of each completed pool (one per row of
    ``completed``): NDCG-m@k (``ndcg_m``) or classic NDCG@k (``ndcg``)."""
    return query_deltas(pool, completed, name, gain, discount).mean(axis=1)


def query_deltas(pool: JudgingPool, completed: np.ndarray, name: str, gain: str = "linear",
                 discount: str = "log2") -> np.ndarray:
    """(completions, queries) Δ (B - A) of each query in each completed pool."""
    k, n, draws = pool.k, pool.n_queries, len(completed)
    row_of = np.arange(draws)[:, None] * n + pool.query[None, :]  # (draws, P)
    dcgs = []
    for rank in (pool.rank_a, pool.rank_b):
        inside = rank > 0
        grades = np.full((draws * n, k), np.nan)
        grades[row_of[:, inside].ravel(), np.tile(rank[inside] - 1, draws)] = \
            completed[:, inside].ravel()
        dcgs.append(dcg_rows(grades, k, gain, discount))
    if name == "ndcg_m":
        ideal = max_ideal_dcg(k, pool.max_grade, gain, discount)
    else:
        # the query's labels: those outside the pool, then its pool pairs (all graded now)
        outside = [np.repeat(pool.levels, pool.outside[q]) for q in range(n)]
        width_out = max((len(o) for o in outside), default=0)
        slot = np.zeros(len(pool.query), dtype=np.int64)
        for q in range(n):
            mine = np.flatnonzero(pool.query == q)
            slot[mine] = np.arange(len(mine))
        width = width_out + max(int(np.bincount(pool.query, minlength=n).max(initial=0)), 1)
        labels = np.full((draws * n, width), np.nan)
        for q, grades in enumerate(outside):
            labels[np.arange(draws) * n + q, : len(grades)] = grades
        labels[row_of.ravel(), np.tile(width_out + slot, draws)] = completed.ravel()
        ideal = ideal_dcg_rows(labels, k, gain, discount)
    delta = normalise(dcgs[1], ideal) - normalise(dcgs[0], ideal)
    return delta.reshape(draws, n)
