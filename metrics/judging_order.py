"""Which unjudged (query, doc) pair to grade next: the judging orders, by name.

:class:`JudgingOrder` is the one vocabulary of orders (the store records the order in force
with each label; the CLI and the pages offer these names):

* ``decision``: by value for the decision between A and B: the expected reduction of the
  label variance of the measure's mean Δ (B - A) from learning the pair's grade,
  Cov(mean Δ, g_i)^2 / Var(g_i) under :mod:`metrics.grade_model`
  (:meth:`~metrics.grade_model.GradeModel.value_of_judging`).  With the grade distributions
  known this is (a_i sd(g_i))^2, a_i = (d_B(rank_B) - d_A(rank_A)) / (n · normaliser), the
  pair's weight in mean Δ (Carterette, Allan & Sitaraman, "Minimal test collections for
  retrieval evaluation", SIGIR 2006): a doc both runs rank alike weighs nothing however high
  it ranks.  On top, judging a pair teaches the model about its band, which every pair of the
  band shares: that is the rest of the covariance.  For NDCG and NDCG-f, whose ideal depends
  on the grades, a_i is taken at the query's expected ideal (w_i / E[IDCG_q], scaled to the
  query's sampled variance, see :mod:`metrics.decision`); a grade's effect through the ideal
  itself is left out.  Ties: the higher ``weight``, then pool order.
* ``weight``: today's backfill order: the sum of the pair's discounts d(r) over both runs' top
  k (a doc both rank first weighs most), the measure's discount (log2 by default); ties by
  query id then doc id.
* ``pool``: query by query (query id order), best rank first: the classic depth-k pool walk.
* ``random``: a seeded shuffle of the unjudged pairs.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

import numpy as np
import pandas as pd

from metrics.dcg import rank_discounts
from metrics.decision import Assessment, assess, measure_spec
from metrics.errors import ArgumentError
from metrics.judging_pool import JudgingPool, judging_pool
from metrics.measures import Measure
from metrics.scale import GradeScale


class JudgingOrder(StrEnum):
    """The orders in which unjudged pairs are served (``value`` is what is stored)."""

    DECISION = "decision"
    WEIGHT = "weight"
    POOL = "pool"
    RANDOM = "random"

    @property
    def description(self) -> str:
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    JudgingOrder.DECISION: "by value for the decision: expected reduction of the label "
                           "uncertainty of mean Δ (B - A)",
    JudgingOrder.WEIGHT: "by the sum of the pair's discounts in both runs' top k",
    JudgingOrder.POOL: "query by query, best rank first",
    JudgingOrder.RANDOM: "at random (seeded)",
}

JUDGING_ORDERS: tuple[str, ...] = tuple(order.value for order in JudgingOrder)


def parse_order(order: str | JudgingOrder) -> JudgingOrder:
    """The :class:`JudgingOrder` named ``order``; ArgumentError naming the choices."""
    try:
        return JudgingOrder(order)
    except ValueError:
        raise ArgumentError(f"judging order must be one of {', '.join(JUDGING_ORDERS)}; "
                            f"got {order!r}") from None


def pair_weight(rank_a: np.ndarray, rank_b: np.ndarray, k: int, discount: str = "log2"
                ) -> np.ndarray:
    """Sum of d(r) over the runs whose top k holds the pair (1-based ranks, 0: absent)."""
    table = np.concatenate(([0.0], rank_discounts(k, discount)))
    return table[np.asarray(rank_a)] + table[np.asarray(rank_b)]


def order_pairs(pool: JudgingPool, order: str | JudgingOrder, *,
                assessment: Assessment | None = None, discount: str = "log2", seed: int = 0,
                limit: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(indices of the pool's unjudged pairs in ``order``, each one's value in that order).

    ``decision`` needs the :class:`~metrics.decision.Assessment` of the pool (the measure's).
    ``limit``: only the first ``limit`` of that order (the same pairs as the head of the
    whole order; only the candidates that can be among them are sorted).
    """
    order = parse_order(order)
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 0):
        raise ArgumentError(f"limit must be a whole number >= 0 or None; got {limit!r}")
    unjudged = np.flatnonzero(~pool.judged)
    weight = pair_weight(pool.rank_a[unjudged], pool.rank_b[unjudged], pool.k, discount)
    position = np.arange(len(unjudged))
    if order is JudgingOrder.DECISION:
        if assessment is None:
            raise ArgumentError("the decision order needs the pool's assessment")
        if not np.array_equal(assessment.unjudged, unjudged):
            raise ArgumentError("the assessment is of another state of the pool")
        value = assessment.value_of_judging()
        keep = _candidates(value, limit)
        chosen = keep[np.lexsort((position[keep], -weight[keep], -value[keep]))]
    elif order is JudgingOrder.WEIGHT:
        value = weight
        keep = _candidates(weight, limit)
        docs = pd.Series(pool.doc_id[unjudged][keep]).rank(method="dense").to_numpy()
        chosen = keep[np.lexsort((docs, pool.query[unjudged][keep], -weight[keep]))]
    elif order is JudgingOrder.POOL:
        value = position.astype(float)
        chosen = position
    else:
        value = position.astype(float)
        chosen = np.random.default_rng(seed).permutation(len(unjudged))
    if limit is not None:
        chosen = chosen[:limit]
    return unjudged[chosen], value[chosen]


def _candidates(key: np.ndarray, limit: int | None) -> np.ndarray:
    """The positions whose ``key`` (sorted on descending first) can be among the first
    ``limit``: every one whose key is at least the limit-th largest (ties kept whole, so
    the later keys order them as over the whole)."""
    if limit is None or limit >= len(key):
        return np.arange(len(key))
    if limit == 0:
        return np.arange(0)
    cut = np.partition(key, len(key) - limit)[len(key) - limit]
    return np.flatnonzero(key >= cut)


def judging_order(run_a: pd.DataFrame, run_b: pd.DataFrame, labels: pd.DataFrame | None,
                  measure: str | Measure = "ndcg_m@10", *, max_grade: float | GradeScale,
                  order: str | JudgingOrder = JudgingOrder.DECISION,
                  grades: Iterable[float] | None = None, prior_strength: float = 2.0,
                  samples: int = 256, seed: int = 0,
                  queries: Iterable[object] | None = None, limit: int | None = None
                  ) -> pd.DataFrame:
    """The unjudged pairs of the two runs' depth-k pool in ``order``, most useful first (the
    first ``limit`` only, when given: the head of the whole order, without sorting it all).

    Returns query_id, doc_id, rank_a, rank_b (0: not in that run's top k), weight (today's
    backfill weight) and value (what the order sorts by: the decision value, the weight, or the
    position for ``pool`` and ``random``).
    """
    order = parse_order(order)
    spec = measure_spec(measure, max_grade)
    pool = judging_pool(run_a, run_b, labels, spec.k, max_grade, grades=grades,
                        queries=queries)
    return pool_order(pool, spec.measure, order=order, prior_strength=prior_strength,
                      samples=samples, seed=seed, limit=limit)


def pool_order(pool: JudgingPool, measure: str | Measure = "ndcg_m@10", *,
               order: str | JudgingOrder = JudgingOrder.DECISION, prior_strength: float = 2.0,
               samples: int = 256, seed: int = 0, limit: int | None = None) -> pd.DataFrame:
    """:func:`judging_order` on a pool already built (its columns; the first ``limit`` rows
    only when given)."""
    order = parse_order(order)
    spec = measure_spec(measure, pool.max_grade)
    if spec.k != pool.k:
        raise ArgumentError(f"{spec.measure} needs the depth-{spec.k} pool; got depth {pool.k}")
    found = None
    if order is JudgingOrder.DECISION:
        found = assess(pool, spec.measure, prior_strength=prior_strength, samples=samples,
                       seed=seed)
    chosen, value = order_pairs(pool, order, assessment=found, discount=spec.discount,
                                seed=seed, limit=limit)
    return pd.DataFrame({
        "query_id": pool.query_ids[pool.query[chosen]], "doc_id": pool.doc_id[chosen],
        "rank_a": pool.rank_a[chosen], "rank_b": pool.rank_b[chosen],
        "weight": pair_weight(pool.rank_a[chosen], pool.rank_b[chosen], pool.k, spec.discount),
        "value": value})
