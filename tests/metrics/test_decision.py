"""decide(): the probable figure against Monte Carlo over its model, the figures against
compare() and the paired t-test once everything is judged, the verdict's calibration on
simulated run pairs with known truth, and bad input."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import compare
from metrics.decision import Limit, Verdict, assess, decide, decide_pool
from metrics.errors import ArgumentError, GradeError, MeasureError
from metrics.judging_pool import judging_pool
from metrics.scale import ESCI
from metrics.significance import t_test
from tests.generated import random_collection
from tests.metrics.model_oracle import draw_completions, query_deltas
from tests.metrics.simulated_pairs import simulated_pool, wrong

ORACLE_DRAWS = 4000


# the same examples on every run: a statistical check with tolerances, not a search (a random
# draw found seed=26, n=20, delta=0, share=0.125, ndcg: query_sd² 0.0710 against 0.0751)
@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(st.integers(0, 10_000), st.integers(20, 50), st.sampled_from([0.0, 0.3, -0.3]),
       st.floats(0.1, 0.6), st.sampled_from(["ndcg_m", "ndcg"]))
def test_probable_figure_agrees_with_monte_carlo_over_the_model(seed, n, delta, share,
                                                                 name) -> None:
    """P(mean Δ > 0), E[mean Δ] and its sd, and the paired test's spread once judged, against
    completions drawn from the model itself (p_0, p_b, then every grade) and scored by
    metrics.dcg's kernels.  Tolerance for P: the sampling error of both Monte Carlos (3 sd)
    plus 0.03 for the normal approximation (its Berry-Esseen bound is looser) and, for NDCG,
    the ideal's linearisation."""
    rng = np.random.default_rng(seed)
    pool, _ = simulated_pool(rng, n, delta, judged_share=share)
    found = assess(pool, f"{name}@5")
    decision = decide_pool(pool, f"{name}@5", assessment=found)
    per_query = query_deltas(pool, draw_completions(pool, found.model, ORACLE_DRAWS, seed + 1),
                             name)
    sampled = per_query.mean(axis=1)
    # the t-test's spread: the expected sample variance of the judged per-query Δ
    spread = per_query.var(axis=1, ddof=1)
    assert decision.query_sd ** 2 == pytest.approx(spread.mean(), rel=0.05)
    p = float((sampled > 0).mean())
    noise = np.sqrt(max(p * (1 - p), 1e-4) / ORACLE_DRAWS) + 0.5 / np.sqrt(1000)
    assert abs(decision.p_b_better - p) <= 3 * noise + 0.03, (decision.p_b_better, p)
    assert abs(decision.expected - sampled.mean()) <= 4 * sampled.std() / np.sqrt(
        ORACLE_DRAWS) + (0.0 if name == "ndcg_m" else 0.1 * sampled.std())
    relative = 0.06 if name == "ndcg_m" else 0.15
    assert decision.label_sd == pytest.approx(sampled.std(), rel=relative)


def test_with_every_pair_judged_the_figures_are_compare_and_the_t_test() -> None:
    run_a, qrels = random_collection(31, n_queries=80, max_ranked=12)
    rng = np.random.default_rng(1)
    run_b = run_a.assign(score=run_a["score"] + rng.normal(0, 0.7, size=len(run_a)))
    # grade every pool pair (0 where the qrels have none) and keep only queries both answer
    both = set(run_a["query_id"]) & set(run_b["query_id"])
    run_a, run_b = (r[r["query_id"].isin(both)] for r in (run_a, run_b))
    pool = judging_pool(run_a, run_b, qrels, 10, ESCI)
    grades = np.where(pool.judged, pool.grade, 0.0)
    full = pd.concat([qrels[qrels["grade"] >= 0].merge(
        pool.pairs()[["query_id", "doc_id"]], how="left", indicator=True)
        .query("_merge == 'left_only'").drop(columns="_merge"),
        pool.pairs()[["query_id", "doc_id"]].assign(grade=grades)], ignore_index=True)
    full = full[full["query_id"].isin(both)]
    compared = compare(run_a, run_b, full, ["ndcg_m@10", "ndcg@10", "ndcg_f@10"],
                       max_grade=ESCI, permutations=100)
    for measure in ("ndcg_m@10", "ndcg@10", "ndcg_f@10"):
        decision = decide(run_a, run_b, full, measure, max_grade=ESCI)
        deltas = compared.per_query.query("measure == @measure").set_index("query_id")
        assert decision.unjudged == 0 and decision.lower == decision.upper
        assert decision.expected == pytest.approx(deltas["delta"].mean(), abs=1e-12)
        assert decision.observed == pytest.approx(deltas["delta"].mean(), abs=1e-12)
        assert decision.p_query == pytest.approx(t_test(deltas["a"], deltas["b"]), rel=1e-9)
        assert decision.label_sd == 0.0


def test_observed_is_compare_on_the_labels_so_far() -> None:
    run_a, qrels = random_collection(32, n_queries=60, max_ranked=15)
    run_b = run_a.assign(score=-run_a["score"])
    labelled = set(qrels["query_id"])
    run_a, run_b = (r[r["query_id"].isin(labelled)] for r in (run_a, run_b))
    compared = compare(run_a, run_b, qrels, ["ndcg_m@5", "ndcg@5", "ndcg_f@5"],
                       max_grade=ESCI, permutations=100)
    for measure in ("ndcg_m@5", "ndcg@5", "ndcg_f@5"):
        decision = decide(run_a, run_b, qrels, measure, max_grade=ESCI)
        want = compared.per_query.query("measure == @measure").set_index("query_id")["delta"]
        got = decision.per_query["observed"]
        assert got.to_numpy() == pytest.approx(want.reindex(got.index).to_numpy(), abs=1e-12)
        assert decision.lower <= decision.expected <= decision.upper


def test_swapping_the_runs_mirrors_the_decision() -> None:
    pool, _ = simulated_pool(np.random.default_rng(5), 40, 0.5, judged_share=0.5)
    swapped = replace(pool, rank_a=pool.rank_b, rank_b=pool.rank_a)
    for measure in ("ndcg_m@5", "ndcg@5"):
        one, other = decide_pool(pool, measure), decide_pool(swapped, measure)
        assert other.expected == pytest.approx(-one.expected, abs=1e-9)
        assert (other.lower, other.upper) == pytest.approx((-one.upper, -one.lower), abs=1e-12)
        assert other.p_b_better == pytest.approx(one.p_a_better, abs=0.02)
        assert other.label_sd == pytest.approx(one.label_sd, rel=1e-6)
        mirror = {Verdict.B_BETTER: Verdict.A_BETTER, Verdict.A_BETTER: Verdict.B_BETTER}
        assert other.verdict is mirror.get(one.verdict, one.verdict)


def test_verdicts_say_which_uncertainty_limits_them() -> None:
    pool, truth = simulated_pool(np.random.default_rng(6), 30, 0.0, judged_share=0.0)
    start = decide_pool(pool, "ndcg_m@5")
    assert start.verdict is Verdict.UNDECIDED and start.limit is Limit.LABELS
    assert start.labels_needed is not None and 0 < start.labels_needed <= start.unjudged
    assert start.judged == 0 and start.unjudged == pool.size
    # identical runs: every pair judged, Δ is 0 on every query: no difference, ever
    same = replace(pool, rank_b=pool.rank_a, grade=truth)
    done = decide_pool(same, "ndcg_m@5")
    assert done.verdict is Verdict.NO_DIFFERENCE and done.limit is Limit.QUERIES
    assert done.expected == 0.0 and done.queries_needed is None
    assert "more labels won't decide this" in done.explanation()


@pytest.mark.parametrize("measure", ["ndcg_m@5", "ndcg@5"])
def test_calibration_wrong_decided_verdicts_at_most_five_percent(measure: str) -> None:
    """500 simulated run pairs with known truth (tests/metrics/simulated_pairs.py: queries
    with very different shares of good docs, which the model does not know), a random share
    of each pool judged: the decided verdicts that name the wrong run are <= 5% of the
    decided ones at confidence 0.95."""
    rng = np.random.default_rng(2026)
    outcomes = []
    for _ in range(500):
        n = int(rng.choice([20, 40, 80]))
        delta = float(rng.choice([0.0, 0.0, 0.3, -0.3, 0.8, -0.8]))
        pool, _ = simulated_pool(rng, n, delta, judged_share=float(rng.uniform(0, 1)))
        decision = decide_pool(pool, measure, samples=64)
        outcomes.append((decision.verdict.value, delta))
    decided = [(v, d) for v, d in outcomes if v in ("b_better", "a_better")]
    errors = sum(wrong(v, d) for v, d in decided)
    rate = errors / len(decided)
    print(f"\n{measure}: {len(outcomes)} pairs, {len(decided)} decided a difference, "
          f"{errors} wrong: {rate:.1%} of the decided, {errors / len(outcomes):.1%} of all")
    assert len(decided) >= 50  # the test has something to judge
    assert rate <= 0.05


def test_bad_input_is_refused_in_one_line() -> None:
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "rank": [1]})
    with pytest.raises(MeasureError, match="decision is taken on"):
        decide(run, run, None, "p@10", max_grade=ESCI)
    with pytest.raises(MeasureError, match="decision is taken on"):
        decide(run, run, None, "ndcg", max_grade=ESCI)
    with pytest.raises(ArgumentError, match="confidence"):
        decide(run, run, None, "ndcg@10", max_grade=ESCI, confidence=1.5)
    with pytest.raises(GradeError, match="above the maximum"):
        decide(run, run, pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "grade": [7]}),
               "ndcg@10", max_grade=ESCI)
    empty = run.iloc[:0]
    with pytest.raises(ArgumentError, match="no query"):
        decide(empty, empty, None, "ndcg_m@10", max_grade=ESCI)
