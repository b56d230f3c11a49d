"""Replay judging with known grades: how many judgments until the decision is in, per order.

``simulate_judging(run_a, run_b, oracle, "ndcg_m@10", max_grade=scale, order="decision")``
walks the two runs' depth-k pool (:mod:`metrics.judging_pool`) from the labels given as
``start`` (none by default): it takes the decision (:func:`metrics.decision.decide_pool`),
and while it is undecided grades the next ``batch`` pairs of the ``order``
(:class:`metrics.judging_order.JudgingOrder`) with the oracle's grades, then decides again.  It
stops at the first decided verdict (B better, A better, or no difference we could detect),
when the pool is all judged, or after ``max_judgments``.  Nothing is written anywhere: the
replay is a pure function of its inputs (the random order and the Monte Carlo are seeded).

Rules, stated:

* The oracle grades every pool pair: a pair the oracle lacks (or grades below 0) is grade 0,
  not relevant, as trec_eval counts an unjudged document.  An oracle grade must be one an
  unjudged doc may take (the scale's values).
* The reference verdict is the decision once every pool pair is judged by the oracle (the
  ``start`` labels outside the pool still count in NDCG's ideal; the oracle's labels outside
  the pool never enter, as judging the pool never brings them).
* ``share`` is the judgments made over the pool's size.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metrics.decision import Decision, Verdict, assess, decide_pool, measure_spec
from metrics.errors import ArgumentError, GradeError
from metrics.judging_order import JudgingOrder, order_pairs, parse_order
from metrics.judging_pool import JudgingPool, judging_pool
from metrics.measures import Measure
from metrics.scale import GradeScale


@dataclass(frozen=True)
class JudgingReplay:
    """The replay of one order: judgments until decided, the verdict, and its reference."""

    order: JudgingOrder
    measure: str
    confidence: float
    pool: int  # pool pairs
    judged_at_start: int
    judgments: int  # judgments made by the replay
    decision: Decision  # the decision where the replay stopped
    reference: Decision  # the decision with every pool pair judged by the oracle
    trace: pd.DataFrame = field(repr=False)  # one row per decision taken on the way
    final: JudgingPool = field(repr=False)  # the pool where the replay stopped

    @property
    def verdict(self) -> Verdict:
        return self.decision.verdict

    @property
    def decided(self) -> bool:
        return self.decision.verdict.decided

    @property
    def share(self) -> float:
        """Judgments made over the pool's size."""
        return self.judgments / self.pool if self.pool else 0.0

    @property
    def agrees(self) -> bool:
        """Whether the verdict where it stopped is the verdict on the fully judged pool."""
        return self.decision.verdict is self.reference.verdict

    def to_dict(self) -> dict[str, object]:
        return {"order": self.order.value, "measure": self.measure,
                "confidence": self.confidence, "pool": self.pool,
                "judged_at_start": self.judged_at_start, "judgments": self.judgments,
                "share": self.share, "decided": self.decided, "verdict": self.verdict.value,
                "reference": self.reference.verdict.value, "agrees": self.agrees}


def oracle_grades(pool: JudgingPool, run_a: pd.DataFrame, run_b: pd.DataFrame,
                  oracle: pd.DataFrame, max_grade: float | GradeScale,
                  grades: Iterable[float] | None = None) -> np.ndarray:
    """The oracle's grade of every pool pair (0 where it has none, see the module doc)."""
    graded = judging_pool(run_a, run_b, oracle, pool.k, max_grade, grades=grades,
                          queries=pool.query_ids)
    if not np.array_equal(graded.doc_id, pool.doc_id):  # pragma: no cover - same runs
        raise ArgumentError("the oracle's pool differs from the runs' pool")
    truth = np.nan_to_num(graded.grade, nan=0.0)
    off = ~np.isin(truth, pool.values)
    if off.any():
        raise GradeError(f"oracle grade {truth[off][0]:g} is not one an unjudged doc may take "
                         f"({', '.join(f'{v:g}' for v in pool.values)})")
    return truth


def simulate_judging(run_a: pd.DataFrame, run_b: pd.DataFrame, oracle: pd.DataFrame,
                     measure: str | Measure = "ndcg_m@10", *,
                     max_grade: float | GradeScale,
                     order: str | JudgingOrder = JudgingOrder.DECISION,
                     confidence: float = 0.95, start: pd.DataFrame | None = None,
                     batch: int = 1, grades: Iterable[float] | None = None,
                     prior_strength: float = 2.0, samples: int = 256, seed: int = 0,
                     max_judgments: int | None = None) -> JudgingReplay:
    """Replay judging the pool of ``run_a`` and ``run_b`` in ``order`` with the ``oracle``'s
    grades until the decision is in (see the module doc).

    ``oracle``/``start``: query_id, doc_id, grade frames; ``batch``: pairs graded between two
    decisions (1: decide after every judgment).
    """
    spec = measure_spec(measure, max_grade)
    pool = judging_pool(run_a, run_b, start, spec.k, max_grade, grades=grades)
    truth = oracle_grades(pool, run_a, run_b, oracle, max_grade, grades)
    return replay(pool, truth, spec.measure, order=order, confidence=confidence, batch=batch,
                  prior_strength=prior_strength, samples=samples, seed=seed,
                  max_judgments=max_judgments)


def replay(pool: JudgingPool, truth: np.ndarray, measure: str | Measure = "ndcg_m@10", *,
           order: str | JudgingOrder = JudgingOrder.DECISION, confidence: float = 0.95,
           batch: int = 1, prior_strength: float = 2.0, samples: int = 256, seed: int = 0,
           max_judgments: int | None = None) -> JudgingReplay:
    """:func:`simulate_judging` on a pool: ``truth`` holds the grade of every pool pair."""
    order = parse_order(order)
    for name, value in (("batch", batch), ("max_judgments", max_judgments)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < 1):
            raise ArgumentError(f"{name} must be a positive integer; got {value!r}")
    spec = measure_spec(measure, pool.max_grade)
    truth = np.asarray(truth, dtype=float)
    if truth.shape != (pool.size,) or np.isnan(truth).any():
        raise ArgumentError(f"truth must hold a grade for each of the {pool.size} pool pairs")
    options = {"prior_strength": prior_strength, "samples": samples, "seed": seed}
    static = None
    if order is not JudgingOrder.DECISION:
        static = order_pairs(pool, order, discount=spec.discount, seed=seed)[0]
    limit = pool.size if max_judgments is None else max_judgments
    state, judgments, rows, served = pool, 0, [], 0
    while True:
        found = assess(state, spec.measure, **options)
        decision = decide_pool(state, spec.measure, confidence=confidence, assessment=found,
                               **options)
        rows.append({"judgments": judgments, "expected": decision.expected,
                     "lower": decision.lower, "upper": decision.upper,
                     "p_b_better": decision.p_b_better, "p_query": decision.p_query,
                     "p_verdict": decision.p_verdict, "verdict": decision.verdict.value})
        left = int((~state.judged).sum())
        if decision.verdict.decided or left == 0 or judgments >= limit:
            break
        size = min(batch, left, limit - judgments)
        if static is None:
            picks = order_pairs(state, order, assessment=found)[0][:size]
        else:
            still = static[served:]
            still = still[~state.judged[still]]
            picks = still[:size]
            served = len(static) - len(still) + size
        state = state.with_grades(picks, truth[picks])
        judgments += len(picks)
    unjudged = np.flatnonzero(~pool.judged)
    reference = decide_pool(pool.with_grades(unjudged, truth[unjudged]), spec.measure,
                            confidence=confidence, **options)
    return JudgingReplay(order=order, measure=str(spec.measure), confidence=float(confidence),
                         pool=pool.size, judged_at_start=int(pool.judged.sum()),
                         judgments=judgments, decision=decision, reference=reference,
                         trace=pd.DataFrame(rows), final=state)
