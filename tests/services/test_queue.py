"""The judging queues: pure ordering rules, checked on small hand-made cases."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from judge_app.services.queue import (
    Rule,
    backfill_queue,
    deciding_rule,
    discount_at,
    identical_tops,
    query_queue,
    ranked_queries,
    unlabelled_weight,
)


def top(rows: list[tuple[str, str, int]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])


def test_query_queue_orders_by_rbo_then_weight_then_judges() -> None:
    rbo = pd.Series({"a": 0.9, "b": 0.1, "c": 0.1, "d": 0.1, "e": 0.5})
    weight = pd.Series({"b": 1.0, "c": 2.0, "d": 2.0})
    counts = pd.DataFrame({"query_id": ["d"], "judges": [1], "mine": [False]})
    order = query_queue(rbo, weight, counts, overlap=2)
    # lowest RBO first; among b, c, d (RBO 0.1): weight c = d > b; c before d (0 judges vs 1)
    assert order == ["c", "d", "b", "e", "a"]


def test_the_rule_named_is_the_first_key_that_sets_a_query_before_the_next() -> None:
    rbo = pd.Series({"a": 0.9, "b": 0.1, "c": 0.1, "d": 0.1, "e": 0.5, "f": 0.1})
    weight = pd.Series({"b": 1.0, "c": 2.0, "d": 2.0, "f": 1.0})
    counts = pd.DataFrame({"query_id": ["d", "f"], "judges": [1, 1], "mine": [False, False]})
    ranked = ranked_queries(rbo, weight, counts, overlap=2)
    assert ranked.index.tolist() == ["c", "d", "b", "f", "e", "a"]
    assert ranked.loc["d"].tolist() == [0.1, 2.0, 1]  # the keys: rbo, weight, judges
    following = zip(ranked.index, [*ranked.index[1:], None], strict=True)
    assert [deciding_rule(ranked, q, after) for q, after in following] == [
        Rule.FEWEST_JUDGES, Rule.MOST_UNLABELLED, Rule.FEWEST_JUDGES, Rule.LARGEST_DIFFERENCE,
        Rule.LARGEST_DIFFERENCE, Rule.LAST_LEFT]
    assert deciding_rule(ranked.assign(judges=0), "b", "f") is Rule.QUERY_ID


def test_query_queue_skips_own_votes_full_queries_and_identical_lists() -> None:
    rbo = pd.Series({"a": 0.2, "b": 0.3, "c": 0.4, "d": 1.0})
    counts = pd.DataFrame({"query_id": ["a", "b"], "judges": [1, 1], "mine": [True, False]})
    assert query_queue(rbo, pd.Series(dtype=float), counts, overlap=1,
                       identical={"d"}) == ["c"]
    assert query_queue(rbo, pd.Series(dtype=float), counts, overlap=2,
                       identical={"d"}) == ["b", "c"]
    with pytest.raises(ValueError, match="overlap"):
        query_queue(rbo, pd.Series(dtype=float), counts, overlap=0)


def test_unlabelled_weight_sums_discounts_of_unlabelled_top_k() -> None:
    a = top([("q", "x", 1), ("q", "y", 2), ("q", "z", 3)])
    b = top([("q", "y", 1), ("q", "w", 2)])
    a["labelled"] = a["doc_id"] == "y"
    b["labelled"] = b["doc_id"] == "y"
    got = unlabelled_weight([a, b], k=2)
    # x at rank 1 in a (unlabelled), w at rank 2 in b; z is below k, y is labelled
    assert got["q"] == pytest.approx(1 / math.log2(2) + 1 / math.log2(3))
    assert list(discount_at([0, 1, 3, 4], 3)) == pytest.approx([0, 1, 0.5, 0])


def test_identical_tops() -> None:
    a = top([("q1", "x", 1), ("q1", "y", 2), ("q2", "x", 1)])
    b = top([("q1", "x", 1), ("q1", "y", 2), ("q2", "z", 1)])
    assert identical_tops(a, b, k=2) == {"q1"}


def test_backfill_queue_weighs_pairs_and_prefers_fewer_expert_labels() -> None:
    # candidates as the store gives them: x (rank 1 in a, bob graded it), y (rank 2 in a,
    # rank 1 in b); z is judged and v graded by this judge, so the store left them out
    candidates = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["x", "y", "y"],
                               "rank": [1, 2, 1], "experts": [1, 0, 0]})
    got = backfill_queue(candidates, k=3)
    # y: 1/log2(3) + 1 = 1.63; x: 1
    assert got["doc_id"].tolist() == ["y", "x"]
    assert got["experts"].tolist() == [0, 1]
    assert got["weight"].iloc[0] == pytest.approx(1 + 1 / math.log2(3))
