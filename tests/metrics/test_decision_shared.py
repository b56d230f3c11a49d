"""The decision's work shared and cut, with answers unchanged (issue 22's speed):

* ``decide_measures`` (one pool per cutoff, one assessment per kind of measure: NDCG and
  NDCG-f share theirs) gives exactly the decisions of one ``decide``/``decide_pool`` per
  measure;
* ``pool_from_rows`` (the pool from rows a store joined) is ``judging_pool`` (the pool from
  the runs and labels), negative grades, labels outside the pool and queries outside the
  runs included; it declines runs whose ranks are not positions 1..m;
* ``order_pairs(limit=)`` is the head of the whole order, ties at the cut included;
* ``vote_values``: 2 min(P(Δq > 0), P(Δq < 0)) — 0 where the sign is settled, 1 - |P+ - P-|
  where it is not;
* NDCG's Monte Carlo sums the sampled level counts as bit fields of one integer, or loops
  over the levels where they would not fit: the same figures either way;
* the exact bounds' Dinkelbach iteration starts from the best of m + 1 gradings: the same
  bounds, to the last bit, as when it starts from every doc at the highest grade.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import special

from metrics.dcg import gain_of
from metrics.decision import (
    assess,
    decide,
    decide_measures,
    decide_pool,
    observed_delta,
    vote_values,
)
from metrics.judging_order import JudgingOrder, order_pairs
from metrics.judging_pool import judging_pool, pool_from_rows
from metrics.scale import ESCI
from tests.metrics.simulated_pairs import simulated_pool


def runs_and_labels(seed: int, n: int = 40, candidates: int = 14, k: int = 10,
                    labels: int = 250) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Two runs' top k over ``n`` queries (one query only in A, one only in B) and labels
    among all candidates (some outside the pool, a few "pooled, not judged" -1, a few of a
    query neither run answers)."""
    rng = np.random.default_rng(seed)
    grade = rng.choice(4, size=(n, candidates), p=[0.5, 0.25, 0.15, 0.1])
    docs = np.array([[f"d{q}_{j}" for j in range(candidates)] for q in range(n)])
    runs = []
    for side, noise in enumerate((1.5, 1.2)):
        order = np.argsort(-(grade + rng.normal(0, noise, size=grade.shape)), axis=1)[:, :k]
        rows = [(f"q{q}", docs[q, order[q, r]], r + 1) for q in range(n) for r in range(k)
                if q != side]  # q0 only in B, q1 only in A
        runs.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"]))
    picked = rng.choice(n * candidates, size=labels, replace=False)
    frame = pd.DataFrame({"query_id": [f"q{i // candidates}" for i in picked],
                          "doc_id": docs.ravel()[picked],
                          "grade": grade.ravel()[picked].astype(float)})
    frame.loc[frame.index[:5], "grade"] = -1.0
    extra = pd.DataFrame({"query_id": ["zz", "zz"], "doc_id": ["x", "y"], "grade": [3.0, 0.0]})
    return runs[0], runs[1], pd.concat([frame, extra], ignore_index=True)


def rows_of(run_a: pd.DataFrame, run_b: pd.DataFrame, labels: pd.DataFrame, k: int
            ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the store's ``pool_labels`` returns, joined here by pandas, rows shuffled."""
    a = run_a[run_a["rank"] <= k].rename(columns={"rank": "rank_a"})
    b = run_b[run_b["rank"] <= k].rename(columns={"rank": "rank_b"})
    pairs = a.merge(b, on=["query_id", "doc_id"], how="outer").fillna(
        {"rank_a": 0, "rank_b": 0}).merge(labels, on=["query_id", "doc_id"], how="left")
    pairs = pairs.sample(frac=1.0, random_state=1).reset_index(drop=True)
    counts = labels.groupby(["query_id", "grade"], as_index=False).size().rename(
        columns={"size": "labels"})
    return pairs.astype({"rank_a": int, "rank_b": int}), counts


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pool_from_rows_is_the_pool_from_the_runs(seed: int) -> None:
    run_a, run_b, labels = runs_and_labels(seed)
    for k in (5, 10):
        want = judging_pool(run_a, run_b, labels, k, ESCI)
        got = pool_from_rows(*rows_of(run_a, run_b, labels, k), k, ESCI)
        assert got.query_ids.tolist() == want.query_ids.tolist()
        for name in ("query", "doc_id", "rank_a", "rank_b", "levels", "assignable",
                     "outside"):
            assert np.array_equal(getattr(got, name), getattr(want, name)), name
        assert np.array_equal(got.grade, want.grade, equal_nan=True)
        assert (got.k, got.max_grade) == (want.k, want.max_grade)


def test_pool_from_rows_declines_ranks_that_are_not_positions() -> None:
    run_a, run_b, labels = runs_and_labels(0)
    pairs, counts = rows_of(run_a, run_b, labels, 10)
    skipped = pairs.copy()
    skipped.loc[skipped["rank_a"] == 3, "rank_a"] = 0  # every query's A skips rank 3
    assert pool_from_rows(skipped, counts, 10, ESCI) is None
    repeated = pairs.copy()
    first = repeated.index[repeated["rank_b"] == 2][0]
    repeated.loc[first, "rank_b"] = 1  # one query's B has rank 1 twice
    assert pool_from_rows(repeated, counts, 10, ESCI) is None


def same(got, want) -> None:
    """Two decisions equal in every figure (per-query table included)."""
    a, b = got.to_dict(), want.to_dict()
    assert a.keys() == b.keys()
    for key in a:
        if isinstance(a[key], float):
            assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-15, nan_ok=True), key
        else:
            assert a[key] == b[key], key
    pd.testing.assert_frame_equal(got.per_query, want.per_query)


@pytest.mark.parametrize("seed", [0, 3])
def test_decide_measures_equals_one_decision_per_measure(seed: int) -> None:
    run_a, run_b, labels = runs_and_labels(seed)
    measures = ["ndcg_m@10", "ndcg@10", "ndcg_f@10", "ndcg@5", "ndcg_m@5", "ndcg_f@5"]
    pools = {k: judging_pool(run_a, run_b, labels, k, ESCI) for k in (5, 10)}
    observed = {m: observed_delta(run_a, run_b, labels, m, ESCI, pools[int(m[-2:].strip("@"))]
                                  .query_ids) for m in measures if m.startswith("ndcg_f")}
    shared = decide_measures(pools, measures, samples=64, seed=seed, observed=observed)
    for measure, got in zip(measures, shared, strict=True):
        want = decide(run_a, run_b, labels, measure, max_grade=ESCI, samples=64, seed=seed)
        same(got, want)
        assert got.measure == measure
    with pytest.raises(Exception, match="depth-20 pool"):
        decide_measures(pools, ["ndcg@20"])


@pytest.mark.parametrize("order", [JudgingOrder.DECISION, JudgingOrder.WEIGHT,
                                   JudgingOrder.POOL, JudgingOrder.RANDOM])
def test_a_limited_order_is_the_head_of_the_whole_order(order: JudgingOrder) -> None:
    pool, _ = simulated_pool(np.random.default_rng(4), 60, 0.3, k=10, judged_share=0.4)
    found = assess(pool, "ndcg_m@10") if order is JudgingOrder.DECISION else None
    whole, values = order_pairs(pool, order, assessment=found, seed=2)
    for limit in (0, 1, 7, 50, len(whole), len(whole) + 5):
        head, head_values = order_pairs(pool, order, assessment=found, seed=2, limit=limit)
        assert np.array_equal(head, whole[:limit])
        assert np.array_equal(head_values, values[:limit])


def test_vote_values_are_twice_the_less_likely_sign() -> None:
    pool, _ = simulated_pool(np.random.default_rng(5), 80, 0.2, k=5, judged_share=0.5)
    judged_all = pool.with_grades(np.flatnonzero(~pool.judged), np.zeros((~pool.judged).sum()))
    found = assess(pool, "ndcg_m@5")
    values = vote_values(found)
    assert values.index.tolist() == pool.query_ids.tolist()
    assert ((values >= 0) & (values <= 1)).all()
    settled = (found.lower > 0) | (found.upper < 0) | (found.variance == 0)
    assert (values[settled] == 0).all()
    doubt = ~settled
    assert doubt.sum() > 10
    p_b = special.ndtr(found.expected[doubt] / np.sqrt(found.variance[doubt]))
    assert values[doubt].to_numpy() == pytest.approx(1 - np.abs(p_b - (1 - p_b)))
    assert (vote_values(assess(judged_all, "ndcg_m@5")) == 0).all()  # all labels in


def test_decide_pool_with_a_shared_assessment_is_unchanged() -> None:
    pool, _ = simulated_pool(np.random.default_rng(6), 50, 0.2, k=5, judged_share=0.3)
    found = assess(pool, "ndcg@5", samples=64)
    same(decide_pool(pool, "ndcg@5", samples=64, assessment=found),
         decide_pool(pool, "ndcg@5", samples=64))


@pytest.mark.parametrize("measure", ["ndcg@10", "ndcg_f@10"])
def test_the_packed_level_counts_of_the_monte_carlo_equal_the_loop_over_levels(
        measure: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Monte Carlo sums each query's sampled level counts as bit fields of one integer;
    where they would not fit it loops over the levels; draws of pairs that do not come
    query by query are reordered first: the same figures every way."""
    import metrics.decision as decision

    run_a, run_b, labels = runs_and_labels(5)
    pool = judging_pool(run_a, run_b, labels, 10, ESCI)
    packed = assess(pool, measure, samples=64, seed=3)
    monkeypatch.setattr(decision, "_PACKED_BITS", 0)
    looped = assess(pool, measure, samples=64, seed=3)
    monkeypatch.setattr(decision, "_grouped", lambda query: False)  # reorder the draws
    reordered = assess(pool, measure, samples=64, seed=3)
    for name in ("expected", "variance", "weights", "lower", "upper"):
        np.testing.assert_array_equal(getattr(packed, name), getattr(looped, name))
        np.testing.assert_array_equal(getattr(packed, name), getattr(reordered, name))


@pytest.mark.parametrize("gain", ["linear", "exponential"])
def test_the_bounds_do_not_depend_on_where_dinkelbach_starts(gain: str,
                                                            monkeypatch) -> None:
    from metrics import bounds

    rng = np.random.default_rng(7)
    levels = gain_of(np.array([3.0, 2.0, 1.0, 0.0]), gain)
    discounts = 1.0 / np.log2(np.arange(2, 12))
    cases = []
    for m in (1, 3, 6, 9):
        for assignable in ([True, True, True, True], [False, True, False, True],
                           [True, False, True, True]):
            counts = rng.integers(0, 4, size=(60, 4))
            constant = (counts * levels * rng.normal(size=(60, 4))).sum(axis=1)
            cases.append((constant, rng.normal(size=(60, m)), counts, levels,
                          np.array(assignable), discounts))
    found = [bounds.ratio_bounds(*case) for case in cases]

    def all_highest(self, maximise: bool) -> np.ndarray:
        counts = np.zeros((len(self.constant), len(self.level_gains)), dtype=np.int64)
        counts[:, int(np.flatnonzero(self.assignable)[0])] = self.m
        return counts

    monkeypatch.setattr(bounds._Batch, "start", all_highest)
    for case, (lower, upper) in zip(cases, found, strict=True):
        want_lower, want_upper = bounds.ratio_bounds(*case)
        assert np.array_equal(lower, want_lower) and np.array_equal(upper, want_upper)
