"""The depth-k pool of two runs: one pair per (query, doc), ranks in each run, labels in and
outside the pool, and the rules for ids, ranks and grades."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from metrics.errors import DuplicateDocError, GradeError
from metrics.judging_pool import _join, _join_exact, judging_pool
from metrics.scale import ESCI
from tests.generated import random_collection


def _run(rows: list[tuple[str, str, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])


def test_pool_joins_the_two_top_ks_and_counts_labels_outside_it() -> None:
    run_a = _run([("q1", "x", 1), ("q1", "a", 2), ("q1", "deep", 3), ("q2", "y", 1)])
    run_b = _run([("q1", "b", 1), ("q1", "x", 2), ("q3", "z", 1)])
    labels = pd.DataFrame({"query_id": ["q1", "q1", "q1", "q1", "q2"],
                           "doc_id": ["x", "deep", "far", "b", "y"],
                           "grade": [2, 3, 1, -1, 0]})
    pool = judging_pool(run_a, run_b, labels, 2, ESCI)
    pairs = pool.pairs()
    assert list(pool.query_ids) == ["q1", "q2", "q3"]  # either run's queries
    # by query, best rank, then B's rank
    assert pairs.to_dict("records") == [
        {"query_id": "q1", "doc_id": "b", "rank_a": 0, "rank_b": 1, "grade": pytest.approx(
            np.nan, nan_ok=True)},  # a -1 grade is "pooled, not judged"
        {"query_id": "q1", "doc_id": "x", "rank_a": 1, "rank_b": 2, "grade": 2.0},
        {"query_id": "q1", "doc_id": "a", "rank_a": 2, "rank_b": 0, "grade": pytest.approx(
            np.nan, nan_ok=True)},
        {"query_id": "q2", "doc_id": "y", "rank_a": 1, "rank_b": 0, "grade": 0.0},
        {"query_id": "q3", "doc_id": "z", "rank_a": 0, "rank_b": 1, "grade": pytest.approx(
            np.nan, nan_ok=True)},
    ]
    # labels outside the pool (deep at rank 3 > k, far never ranked) enter the ideal only
    assert pool.outside[0].tolist() == [0, 1, 0, 1]  # grades 1 and 3, levels 0..3
    assert pool.label_counts()[0].tolist() == [0, 1, 1, 1]
    assert list(pool.values) == [0, 1, 2, 3]


def test_pool_of_scored_runs_and_integer_ids_matches_a_plain_join() -> None:
    run_a, qrels = random_collection(41, n_queries=40)
    run_b = run_a.assign(score=run_a["score"] * -1)
    pool = judging_pool(run_a, run_b, qrels, 5, ESCI)
    pairs = pool.pairs().set_index(["query_id", "doc_id"])
    want, ranked_runs = [], []
    for run, column in ((run_a, "rank_a"), (run_b, "rank_b")):
        ranked = run.sort_values(["query_id", "score", "doc_id"],
                                 ascending=[True, False, False])
        ranked = ranked.assign(rank=ranked.groupby("query_id").cumcount() + 1)
        ranked_runs.append(ranked.drop(columns="score"))
        want.append(ranked[ranked["rank"] <= 5].set_index(["query_id", "doc_id"])["rank"]
                    .rename(column))
    joined = pd.concat(want, axis=1).fillna(0).astype(int)
    assert sorted(joined.index) == sorted(pairs.index)
    assert (pairs.loc[joined.index, ["rank_a", "rank_b"]] == joined).all().all()
    grades = qrels[qrels["grade"] >= 0].set_index(["query_id", "doc_id"])["grade"]
    expected = grades.reindex(pairs.index)
    assert np.array_equal(pairs["grade"].to_numpy(), expected.to_numpy(), equal_nan=True)
    # the same ranks with integer ids (score ties would break differently: 9 < 10, "9" > "10")
    ints = judging_pool(*(r.assign(query_id=r["query_id"].str[1:].astype(int),
                                   doc_id=r["doc_id"].str[1:].astype(int))
                          for r in (*ranked_runs, qrels)), 5, ESCI)
    assert ints.size == pool.size and ints.judged.sum() == pool.judged.sum()


def test_a_hash_collision_falls_back_to_joining_the_ids() -> None:
    side_a = (np.array([0, 0]), np.array([1, 2]), np.array([7, 9], dtype=np.uint64),
              np.array(["x", "y"], dtype=object))
    side_b = (np.array([0]), np.array([1]), np.array([7], dtype=np.uint64),
              np.array(["w"], dtype=object))  # same hash as x, another doc
    got = _join(side_a, side_b)
    want = _join_exact(side_a, side_b)
    assert sorted(got[4].tolist()) == sorted(want[4].tolist()) == ["w", "x", "y"]
    assert len(got[0]) == 3


def test_bad_input() -> None:
    run = _run([("q", "d", 1), ("q", "d", 2)])
    with pytest.raises(DuplicateDocError):
        judging_pool(run, run, None, 5, ESCI)
    fine = _run([("q", "d", 1)])
    with pytest.raises(GradeError, match="above the maximum"):
        judging_pool(fine, fine, pd.DataFrame({"query_id": ["q"], "doc_id": ["d"],
                                               "grade": [9]}), 5, ESCI)
    with pytest.raises(GradeError, match="unjudged doc may take"):
        judging_pool(fine, fine, None, 5, 3, grades=[0, 5])
    pool = judging_pool(fine, fine, None, 5, ESCI)
    with pytest.raises(GradeError, match="not on the pool's scale"):
        pool.with_grades(np.array([0]), np.array([1.5]))
