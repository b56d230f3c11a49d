"""The judging orders: the vocabulary, today's backfill order reproduced, and the decision
order's value against Monte Carlo over the model."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judge_app.services.queue import backfill_queue
from metrics.decision import assess
from metrics.errors import ArgumentError
from metrics.judging_order import (
    JUDGING_ORDERS,
    JudgingOrder,
    judging_order,
    order_pairs,
    parse_order,
)
from metrics.scale import ESCI
from tests.generated import random_collection
from tests.metrics.model_oracle import draw_completions, mean_deltas
from tests.metrics.simulated_pairs import simulated_pool


def test_the_orders_are_one_vocabulary() -> None:
    assert JUDGING_ORDERS == ("decision", "weight", "pool", "random")
    assert parse_order("weight") is JudgingOrder.WEIGHT
    assert all(order.description for order in JudgingOrder)
    with pytest.raises(ArgumentError, match="decision, weight, pool, random"):
        parse_order("fastest")


def _ranked(run: pd.DataFrame) -> pd.DataFrame:
    ranked = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    return ranked.assign(rank=ranked.groupby("query_id").cumcount() + 1)[
        ["query_id", "doc_id", "rank"]]


def test_weight_order_is_todays_backfill_queue() -> None:
    """judge_app.services.queue.backfill_queue (the store's candidates: one row per run a
    pair is in, no expert label yet) gives the same pairs, weights and order."""
    run, _ = random_collection(51, n_queries=60)
    rng = np.random.default_rng(3)
    run_a = _ranked(run)
    run_b = _ranked(run.assign(score=run["score"] + rng.normal(0, 1, size=len(run))))
    k = 10
    candidates = pd.concat([r[r["rank"] <= k] for r in (run_a, run_b)]).assign(experts=0)
    today = backfill_queue(candidates, k)
    ours = judging_order(run_a, run_b, None, f"ndcg_m@{k}", max_grade=ESCI, order="weight")
    assert list(zip(ours["query_id"], ours["doc_id"], strict=True)) == list(
        zip(today["query_id"], today["doc_id"], strict=True))
    assert ours["weight"].to_numpy() == pytest.approx(today["weight"].to_numpy())


def test_decision_value_is_the_covariance_with_mean_delta_squared_over_the_variance() -> None:
    """Cov(mean Δ, g_i), the decision order's ingredient, against completions drawn from the
    model and scored by metrics.dcg (tests/metrics/model_oracle.py)."""
    pool, _ = simulated_pool(np.random.default_rng(8), 25, 0.3, judged_share=0.3)
    found = assess(pool, "ndcg_m@5")
    completed = draw_completions(pool, found.model, 20_000, 9)
    means = mean_deltas(pool, completed, "ndcg_m")
    grades = completed[:, found.unjudged]
    products = (means - means.mean())[:, None] * (grades - grades.mean(axis=0))
    sampled = products.mean(axis=0)
    error = products.std(axis=0) / np.sqrt(len(products))  # the Monte Carlo's own
    model = found.model.covariances(found.mean_weights, found.bands)
    assert (np.abs(model - sampled) <= 4 * error).all()
    assert np.abs(sampled).max() > 20 * error.max()  # the covariances are not all noise
    value = found.value_of_judging()
    assert value == pytest.approx(model ** 2 / found.model.var_gain[found.bands])


def test_decision_order_skips_what_cannot_move_the_difference() -> None:
    """A doc both runs rank alike weighs nothing in NDCG-m's Δ: the weight order serves it
    first (it weighs most there), the decision order serves it after the pairs that can move
    Δ (it is worth only what it teaches about its band)."""
    pool, _ = simulated_pool(np.random.default_rng(4), 60, 0.3, judged_share=0.5)
    found = assess(pool, "ndcg_m@5")
    chosen, value = order_pairs(pool, "decision", assessment=found)
    alike = pool.rank_a[chosen] == pool.rank_b[chosen]
    assert alike.any() and not alike[0]
    assert value[alike].mean() < 0.1 * value[~alike].mean()
    by_weight, _ = order_pairs(pool, "weight")
    both_first = (pool.rank_a == 1) & (pool.rank_b == 1) & ~pool.judged
    if both_first.any():
        assert both_first[by_weight[0]]


def test_pool_and_random_orders() -> None:
    pool, _ = simulated_pool(np.random.default_rng(2), 10, 0.0, judged_share=0.4)
    unjudged = np.flatnonzero(~pool.judged)
    walked, _ = order_pairs(pool, "pool")
    assert walked.tolist() == unjudged.tolist()
    shuffled, _ = order_pairs(pool, "random", seed=3)
    assert sorted(shuffled.tolist()) == unjudged.tolist()
    assert order_pairs(pool, "random", seed=3)[0].tolist() == shuffled.tolist()  # seeded
    with pytest.raises(ArgumentError, match="assessment"):
        order_pairs(pool, "decision")
