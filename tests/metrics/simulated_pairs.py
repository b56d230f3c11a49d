"""Simulated run pairs with known truth, for the decision's calibration and property tests.

A query has ``CANDIDATES`` docs; its relevance rate r_q ~ Beta(1, 3) (queries differ a lot,
which the decision's model does not know), a doc is relevant with probability r_q and then of
grade 1 or 2 (3-grade scale).  Run A ranks the docs by grade + N(0, 1) noise, run B by
grade * (1 + delta) + N(0, 1): with delta = 0 the two runs are exchangeable, so the population
mean of any Δ (B - A) is exactly 0; with delta > 0, B separates the grades better and is the
better run (delta < 0: A).  The truth is the sign of delta.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.judging_pool import JudgingPool

CANDIDATES = 20
MAX_GRADE = 2


def simulated_pool(rng: np.random.Generator, n: int, delta: float, k: int = 5,
                   judged_share: float = 1.0) -> tuple[JudgingPool, np.ndarray]:
    """(the depth-k pool with a random ``judged_share`` of its pairs judged, every pair's
    true grade)."""
    rate = rng.beta(1, 3, size=(n, 1))
    relevant = rng.random((n, CANDIDATES)) < rate
    grade = np.where(relevant, rng.integers(1, MAX_GRADE + 1, size=(n, CANDIDATES)), 0)
    rank = np.zeros((2, n, CANDIDATES), dtype=np.int64)
    for side, slope in enumerate((1.0, 1.0 + delta)):
        top = np.argsort(-(grade * slope + rng.normal(size=(n, CANDIDATES))), axis=1)[:, :k]
        np.put_along_axis(rank[side], top, np.tile(np.arange(1, k + 1), (n, 1)), axis=1)
    query, doc = np.nonzero((rank[0] > 0) | (rank[1] > 0))
    truth = grade[query, doc].astype(float)
    judged = rng.random(len(query)) < judged_share
    levels = np.arange(MAX_GRADE + 1, dtype=float)
    pool = JudgingPool(query_ids=pd.Index([f"q{q}" for q in range(n)]), k=k, query=query,
                       doc_id=np.array([f"d{d}" for d in doc], dtype=object),
                       rank_a=rank[0][query, doc], rank_b=rank[1][query, doc],
                       grade=np.where(judged, truth, np.nan), levels=levels,
                       assignable=np.ones(len(levels), dtype=bool),
                       outside=np.zeros((n, len(levels)), dtype=np.int64),
                       max_grade=float(MAX_GRADE))
    return pool, truth


def wrong(verdict: str, delta: float) -> bool:
    """A decided verdict of a difference the truth does not have."""
    return (verdict == "b_better" and delta <= 0) or (verdict == "a_better" and delta >= 0)
