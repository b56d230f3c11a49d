"""compare(): per-query deltas, RBO between the runs, and the paired tests."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics import compare, evaluate, rbo
from metrics.significance import bootstrap_ci, randomization_test, t_test, wilcoxon_test
from tests.generated import random_collection


def _exact_randomization_p(delta: np.ndarray) -> float:
    observed = abs(delta.mean())
    means = [abs(np.dot(signs, delta)) / len(delta)
             for signs in itertools.product((-1, 1), repeat=len(delta))]
    return float(np.mean(np.array(means) >= observed - 1e-12))


def test_randomization_test_approaches_the_exact_permutation_distribution() -> None:
    rng = np.random.default_rng(4)
    a = rng.uniform(size=12)
    b = a + rng.normal(0.08, 0.1, size=12)
    exact = _exact_randomization_p(b - a)  # all 4096 sign flips
    got = randomization_test(a, b, permutations=20_000, seed=1)
    assert got == pytest.approx(exact, abs=0.01)
    assert randomization_test(a, b, seed=1) == randomization_test(a, b, seed=1)  # seeded


def test_tests_agree_with_scipy_and_handle_degenerate_input() -> None:
    rng = np.random.default_rng(5)
    a, b = rng.uniform(size=40), rng.uniform(size=40)
    assert t_test(a, b) == pytest.approx(stats.ttest_rel(b, a).pvalue)
    assert wilcoxon_test(a, b) == pytest.approx(stats.wilcoxon(b - a).pvalue)
    low, high = bootstrap_ci(a, b)
    assert low < (b - a).mean() < high
    same = np.ones(5)
    assert (randomization_test(same, same), t_test(same, same), wilcoxon_test(same, same)) == (
        1.0, 1.0, 1.0)
    assert bootstrap_ci(same, same + 0.1) == pytest.approx((0.1, 0.1))
    assert np.isnan(randomization_test(np.array([]), np.array([])))
    with pytest.raises(ValueError, match="aligned"):
        t_test(np.ones(3), np.ones(4))


def test_compare_reports_deltas_tests_and_rbo() -> None:
    run_a, qrels = random_collection(21, n_queries=120)
    rng = np.random.default_rng(0)
    run_b = run_a.assign(score=run_a["score"] + rng.normal(0, 0.5, size=len(run_a)))
    result = compare(run_a, run_b, qrels, ["ndcg@10", "ndcg_f@10"], permutations=2000)
    ea = evaluate(run_a, qrels, ["ndcg@10"]).mean["ndcg@10"]
    eb = evaluate(run_b, qrels, ["ndcg@10"]).mean["ndcg@10"]
    row = result.summary.loc["ndcg@10"]
    assert row["mean_a"] == pytest.approx(ea) and row["mean_b"] == pytest.approx(eb)
    assert row["delta"] == pytest.approx(eb - ea)
    assert row["wins"] + row["ties"] + row["losses"] == result.settings["queries"]
    assert 0 < row["p_randomization"] <= 1 and 0 <= row["p_t"] <= 1
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]
    per = result.per_query[result.per_query["measure"] == "ndcg@10"]
    assert np.allclose(per["delta"], per["b"] - per["a"])
    assert str(result.rbo_measure) == "rbo@10"
    assert ((result.rbo["ext"] >= 0) & (result.rbo["ext"] <= 1)).all()
    assert result.rbo["ext"].mean() < 1.0  # the runs differ
    assert "ndcg_f@10" in str(result)
    assert result.to_dict()["rbo"] == [{"measure": "rbo@10", "mean_ext": result.rbo["ext"].mean(),
                                        "mean_min": result.rbo["min"].mean()}]


def test_identical_runs_compare_as_equal() -> None:
    run, qrels = random_collection(22, n_queries=60)
    result = compare(run, run, qrels, ["ndcg@10", "rbo(p=0.8)@5"], permutations=500)
    row = result.summary.loc["ndcg@10"]
    assert row["delta"] == 0 and row["p_randomization"] == 1.0 and row["wins"] == 0
    answered = run["query_id"].unique()
    assert np.allclose(result.rbo.loc[result.rbo.index.isin(answered), "ext"], 1.0)


def test_missing_queries_drop_aligns_on_queries_both_runs_answer() -> None:
    qrels = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "grade": [1, 1]})
    a = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"], "rank": [1, 1]})
    b = pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"], "rank": [1]})
    zero = compare(a, b, qrels, ["ndcg@10"], permutations=100)
    drop = compare(a, b, qrels, ["ndcg@10"], permutations=100, missing_queries="drop")
    assert zero.settings["queries"] == 2 and zero.summary.loc["ndcg@10", "losses"] == 1
    assert drop.settings["queries"] == 1 and drop.summary.loc["ndcg@10", "delta"] == 0


def test_compare_keeps_every_rbo_measure_it_is_given() -> None:
    """Issue 10: a second RBO measure (another p, another depth) used to be dropped."""
    run_a, qrels = random_collection(23, n_queries=40)
    rng = np.random.default_rng(1)
    run_b = run_a.assign(score=run_a["score"] + rng.normal(0, 0.5, size=len(run_a)))
    asked = ["rbo(p=0.9)@10", "ndcg@10", "rbo(p=0.8)@10", "rbo@5"]
    result = compare(run_a, run_b, qrels, asked, permutations=100)
    wanted = ["rbo@10", "rbo(p=0.8)@10", "rbo@5"]  # canonical names, in the order given
    text = str(result)
    assert [name for name in wanted if f"{name} between the runs" in text] == wanted
    assert list(result.rbo_frames) == wanted
    assert [m["measure"] for m in result.to_dict()["rbo"]] == wanted
    ranked = {name: {q: list(g.sort_values(["score", "doc_id"], ascending=False)["doc_id"])
                     for q, g in run.groupby("query_id")}
              for name, run in (("a", run_a), ("b", run_b))}
    for name, depth, p in (("rbo@10", 10, 0.9), ("rbo(p=0.8)@10", 10, 0.8), ("rbo@5", 5, 0.9)):
        frame = result.rbo_frames[name]
        for query_id in frame.index[:15]:
            expected = rbo(ranked["a"].get(query_id, []), ranked["b"].get(query_id, []),
                           p=p, depth=depth)
            assert frame.loc[query_id, "ext"] == pytest.approx(expected.ext, abs=1e-12)
            assert frame.loc[query_id, "min"] == pytest.approx(expected.min, abs=1e-12)
    assert result.rbo is result.rbo_frames["rbo@10"]  # the first one asked, as before
    assert str(result.rbo_measure) == "rbo@10"


def test_compare_full_depth_ndcg_and_its_default_rbo_depth() -> None:
    run_a, qrels = random_collection(24, n_queries=50)
    run_b = run_a.assign(score=-run_a["score"])
    result = compare(run_a, run_b, qrels, ["ndcg"], permutations=100)
    assert result.summary.loc["ndcg", "mean_a"] == pytest.approx(
        evaluate(run_a, qrels, "ndcg").mean["ndcg"])
    longest = int(run_a.groupby("query_id").size().max())
    assert str(result.rbo_measure) == f"rbo@{longest}"  # every ranked doc, as ndcg reads them
    assert compare(run_a, run_b, qrels, ["ndcg", "p@5", "ndcg@7"],
                   permutations=100).rbo_measure.cutoff == 7


def test_t_test_is_the_paired_t_formula_with_its_documented_edge_cases() -> None:
    a = np.array([0.2, 0.1, 0.5, 0.3])
    b = a + np.array([1.0, 2.0, 3.0, 4.0])  # d = 1, 2, 3, 4
    t = 2.5 / (np.sqrt(5 / 3) / 2)  # mean 2.5, sd sqrt(5/3) with n - 1 = 3 df
    assert t_test(a, b) == pytest.approx(2 * stats.t.sf(t, df=3), rel=1e-12)
    assert t_test(b, a) == t_test(a, b)  # two-sided
    assert np.isnan(t_test(np.array([]), np.array([])))
    assert t_test(np.array([0.3]), np.array([0.9])) == 1.0
    assert t_test(a, a) == 1.0
    assert t_test(np.zeros(2), np.array([0.0, 1e-16])) == 1.0
    assert t_test(np.zeros(2), np.array([1e-16, 0.0])) == 1.0
    assert t_test(a, a + 0.5) == 0.0  # the same shift on every query
