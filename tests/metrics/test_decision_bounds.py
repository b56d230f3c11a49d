"""The decision's certain bounds against brute force: every completion of the unjudged grades,
scored by the per-query measures of metrics.ndcg (an independent oracle), lies within them,
and the extremes are attained (the bounds are exact)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from metrics.bounds import ratio_bounds
from metrics.dcg import gain_of, rank_discounts
from metrics.decision import assess
from metrics.judging_pool import judging_pool
from metrics.ndcg import ndcg, ndcg_f, ndcg_m

MAX = 2  # a 3-grade scale: 0, 1, 2
UNIVERSE = [f"d{i}" for i in range(7)]

rankings = st.lists(st.sampled_from(UNIVERSE), unique=True, max_size=6)
labels = st.dictionaries(st.sampled_from(UNIVERSE), st.integers(-1, MAX), max_size=6)
queries = st.lists(st.tuples(rankings, rankings, labels), min_size=1, max_size=3)
conventions = st.tuples(st.sampled_from(["linear", "exponential"]),
                        st.sampled_from(["log2", "reciprocal"]))


def frames(case: list[tuple[list[str], list[str], dict[str, int]]]
           ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    runs = []
    for side in (0, 1):
        rows = [(f"q{q}", doc, rank) for q, query in enumerate(case)
                for rank, doc in enumerate(query[side], start=1)]
        runs.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"]))
    qrels = pd.DataFrame([(f"q{q}", doc, float(grade)) for q, (_, _, judged) in enumerate(case)
                          for doc, grade in judged.items()],
                         columns=["query_id", "doc_id", "grade"])
    return runs[0], runs[1], qrels


def unjudged_pairs(case, k: int) -> list[tuple[int, str]]:
    return [(q, doc) for q, (a, b, judged) in enumerate(case)
            for doc in dict.fromkeys([*a[:k], *b[:k]]) if judged.get(doc, -1) < 0]


def brute_force(case, k: int, measure: str, gain: str, discount: str) -> list[float]:
    """Mean Δ (B - A) of every completion of the pool's unjudged grades with 0..MAX."""
    gaps = unjudged_pairs(case, k)
    score = {"ndcg": lambda r, j: ndcg(r, j, k, gain=gain, discount=discount),
             "ndcg_f": lambda r, j: ndcg_f(r, j, k, gain=gain, discount=discount),
             "ndcg_m": lambda r, j: ndcg_m(r, j, k, max_grade=MAX, gain=gain,
                                           discount=discount)}[measure]
    means = []
    for fill in itertools.product(range(MAX + 1), repeat=len(gaps)):
        completed = [dict(judged) for _, _, judged in case]
        for (q, doc), grade in zip(gaps, fill, strict=True):
            completed[q][doc] = grade
        means.append(np.mean([score(b, completed[q]) - score(a, completed[q])
                              for q, (a, b, _) in enumerate(case)]))
    return means


@settings(max_examples=120, deadline=None)
@given(queries, st.integers(1, 4), st.sampled_from(["ndcg_m", "ndcg", "ndcg_f"]), conventions)
def test_certain_bounds_contain_every_completion_and_are_attained(case, k, name, conv) -> None:
    gain, discount = conv
    assume(len(unjudged_pairs(case, k)) <= 4)
    assume(any(a or b for a, b, _ in case))
    run_a, run_b, qrels = frames(case)
    measure = f"{name}(gain='{gain}',discount='{discount}')@{k}"
    pool = judging_pool(run_a, run_b, qrels, k, MAX)
    found = assess(pool, measure, samples=8)
    # the decision's queries are the runs' (a query neither run answers is not one)
    answered = [query for query in case if query[0] or query[1]]
    means = brute_force(answered, k, name, gain, discount)
    lower, upper = found.lower.mean(), found.upper.mean()
    assert lower - 1e-12 <= min(means) and max(means) <= upper + 1e-12  # contains every one
    assert min(means) == pytest.approx(lower, abs=1e-12)  # exact: attained
    assert max(means) == pytest.approx(upper, abs=1e-12)


@settings(max_examples=120, deadline=None)
@given(st.lists(st.floats(-1.5, 1.5, allow_nan=False), min_size=0, max_size=4),
       st.lists(st.floats(-1, 1, allow_nan=False), min_size=9, max_size=9),
       st.lists(st.integers(0, 3), min_size=3, max_size=3),
       st.sampled_from([(True, True, True), (True, False, True), (False, True, True),
                        (True, True, False)]),
       st.integers(1, 5), st.sampled_from(["log2", "reciprocal"]))
def test_ratio_bounds_equal_brute_force_for_any_weights(weights, label_weights, counts,
                                                        assignable, k, discount) -> None:
    """(c + sum w_i g_i) / IDCG@k over every grading of the docs with the assignable levels,
    the ideal built independently by sorting (metrics.dcg's ideal kernel); c is the labelled
    docs' part, sum_j v_j g_j (a label in no top k has v_j = 0)."""
    from metrics.dcg import ideal_dcg_rows

    level_grades = np.array([2.0, 1.0, 0.0])
    level_gains = gain_of(level_grades, "linear")
    allowed = level_grades[np.array(assignable)]
    labels = np.repeat(level_grades, counts)
    constant = float(np.dot(label_weights[: len(labels)], labels))
    values = []
    for fill in itertools.product(allowed, repeat=len(weights)):
        ideal = ideal_dcg_rows(np.concatenate((labels, fill))[None, :], k, "linear",
                               discount)[0]
        top = constant + float(np.dot(weights, fill))
        values.append(top / ideal if ideal > 0 else 0.0)
    low, high = ratio_bounds(np.array([constant]), np.array([weights]).reshape(1, -1),
                             np.array([counts]), level_gains, np.array(assignable),
                             rank_discounts(k, discount))
    assert low[0] == pytest.approx(min(values), abs=1e-12)
    assert high[0] == pytest.approx(max(values), abs=1e-12)


def test_a_doc_in_both_runs_takes_one_grade() -> None:
    """A doc both runs retrieve is one pair: bounding each run apart would allow it two
    grades (relevant in B, not in A) and a wider range than any real completion."""
    run_a = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["x", "a"], "rank": [1, 2]})
    run_b = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["x", "b"], "rank": [1, 2]})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "grade": [0.0, 0.0]})
    pool = judging_pool(run_a, run_b, qrels, 2, MAX)
    assert pool.size == 3 and (~pool.judged).sum() == 1
    found = assess(pool, "ndcg_m@2")
    assert found.lower[0] == found.upper[0] == 0.0  # x at rank 1 in both: Δ is 0 whatever it is
