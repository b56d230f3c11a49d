"""Per-judge quality figures and flags: simulated judges of known behaviour, hand-worked
figures, and the Wilson interval against scipy's."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from metrics.agreement import weighted_kappa
from metrics.consensus import dawid_skene, lower_median
from metrics.errors import ArgumentError, LayoutError
from metrics.judge_quality import (
    FLAG_COLUMNS,
    Flag,
    Thresholds,
    consensus_agreement,
    drift,
    flags,
    gold_accuracy,
    judge_quality,
    side_bias,
    speed,
    wilson_interval,
)
from metrics.votes import Choice
from tests.metrics.simulated_judges import CAREFUL, simulate

# the judge -> the flags their one fault must raise, and the figure each flag reads
EXPECTED = {
    "random": {Flag.GOLD_INACCURATE: "gold_exact_high", Flag.LOW_AGREEMENT: "consensus_kappa"},
    "always-left": {Flag.SIDE_BIAS: "side_p"},
    "one-high": {Flag.GRADES_HIGH: "gold_offset", Flag.GOLD_INACCURATE: "gold_exact_high"},
    "too-fast": {Flag.TOO_FAST: "median_seconds"},
}


def test_simulated_judges_are_flagged_for_their_fault_and_careful_ones_are_not() -> None:
    simulated = simulate(seed=23)
    quality = judge_quality(simulated.labels, gold=simulated.gold, votes=simulated.votes,
                            timings=simulated.votes)
    raised = flags(quality)
    print("\n" + raised.to_string(index=False))
    got = {judge: dict(zip(group["flag"], group["figure"], strict=True))
           for judge, group in raised.groupby("judge")}
    assert got == EXPECTED  # the careful judges raise nothing
    assert set(quality.index) == set(EXPECTED) | set(CAREFUL)
    # each flag states the items it stands on
    items = {"gold_exact_high": "gold_items", "gold_offset": "gold_items",
             "consensus_kappa": "consensus_items", "side_p": "decided_votes",
             "median_seconds": "timed"}
    for row in raised.itertuples():
        assert row.items == quality.loc[row.judge, items[row.figure]] > 0
        assert row.value == quality.loc[row.judge, row.figure]


def _gold_labels(judge: str, right: list[bool], minutes: list[int] | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    n = len(right)
    gold = pd.DataFrame({"query_id": "q", "doc_id": [f"d{i:03d}" for i in range(n)],
                         "grade": 2})
    labels = gold.assign(judge=judge, grade=[2 if r else 0 for r in right],
                         created_at=pd.Timestamp("2026-01-01", tz="UTC")
                         + pd.to_timedelta(minutes or list(range(n)), unit="min"))
    return labels, gold


def test_a_judge_who_gets_worse_is_flagged_for_drift_and_a_steady_one_is_not() -> None:
    rng = np.random.default_rng(5)
    worse = list(rng.random(20) < 0.9) + list(rng.random(20) < 0.3)
    steady = list(rng.random(40) < 0.75)
    labels = pd.concat([_gold_labels("worse", worse)[0], _gold_labels("steady", steady)[0]])
    gold = _gold_labels("x", worse)[1]
    figures = drift(labels, gold)
    assert figures.loc["worse", "drift_first"] == np.mean(worse[:20])
    assert figures.loc["worse", "drift_second"] == np.mean(worse[20:])
    raised = flags(judge_quality(labels, gold=gold))
    assert raised[raised["flag"] == Flag.DRIFT]["judge"].tolist() == ["worse"]


def test_drift_orders_answers_by_time_and_tests_the_halves_with_fisher() -> None:
    # ten right then ten wrong, stored in reverse time order
    labels, gold = _gold_labels("j", [True] * 10 + [False] * 10, list(range(20))[::-1])
    row = drift(labels, gold).loc["j"]
    assert (row["drift_first"], row["drift_second"]) == (0.0, 1.0)
    # the 2 x 2 table [[0, 10], [10, 0]]: two-sided p = 2 / C(20, 10)
    assert row["drift_p"] == pytest.approx(2 / math.comb(20, 10), rel=1e-12)
    one = drift(*_gold_labels("j", [True])).loc["j"]
    assert math.isnan(one["drift_p"]) and one["drift_second_items"] == 1


def test_gold_accuracy_by_hand() -> None:
    gold = pd.DataFrame({"query_id": "q", "doc_id": list("abcde"), "grade": [0, 1, 2, 3, 3]})
    labels = pd.DataFrame({"query_id": "q", "doc_id": list("abcdef"), "judge": "j",
                           "grade": [0, 2, 2, 1, 3, 1]})  # f is not gold
    row = gold_accuracy(labels, gold).loc["j"]
    assert row["gold_items"] == 5
    assert row["gold_exact"] == pytest.approx(3 / 5)
    assert row["gold_within_one"] == pytest.approx(4 / 5)
    assert row["gold_offset"] == pytest.approx((0 + 1 + 0 - 2 + 0) / 5)
    assert (row["gold_above"], row["gold_below"]) == (1, 1)
    assert row["gold_offset_p"] == 1.0
    low, high = stats.binomtest(3, 5).proportion_ci(method="wilson")
    assert (row["gold_exact_low"], row["gold_exact_high"]) == pytest.approx((low, high))


def test_side_bias_counts_blind_left_or_right_votes_only() -> None:
    votes = pd.DataFrame({
        "judge": "j",
        "choice": [Choice.LEFT] * 9 + [Choice.RIGHT, Choice.TIE, Choice.BOTH_BAD]
        + [Choice.RIGHT] * 5,
        "blind": [True] * 12 + [False] * 5})
    row = side_bias(votes).loc["j"]
    assert (row["blind_votes"], row["decided_votes"], row["left_votes"]) == (12, 10, 9)
    assert row["left_share"] == 0.9
    assert row["side_p"] == pytest.approx(2 * 11 / 1024)  # P(X >= 9) + P(X <= 1), X ~ B(10, 1/2)
    with pytest.raises(ArgumentError, match="choice 'up' is not one of"):
        side_bias(votes.assign(choice="up"))


def test_speed_by_hand_leaves_untimed_judgments_out() -> None:
    timings = pd.DataFrame({"judge": ["a"] * 5 + ["b"],
                            "ms_spent": [500, 1500, 2500, 9000, None, 3000]})
    figures = speed(timings, floor_seconds=2.0)
    assert figures.loc["a"].tolist() == [4, 2.0, 0.5]
    assert figures.loc["b"].tolist() == [1, 3.0, 0.0]
    with pytest.raises(ArgumentError, match="is not a time"):
        speed(timings.assign(ms_spent=-1))


def test_agreement_leaves_the_judge_out_of_the_consensus() -> None:
    rng = np.random.default_rng(2)
    items = [f"d{i:02d}" for i in range(30)]
    frames = [pd.DataFrame({"query_id": "q", "doc_id": items, "judge": judge,
                            "grade": rng.integers(0, 4, len(items))}) for judge in "abc"]
    labels = pd.concat(frames, ignore_index=True)
    figures = consensus_agreement(labels, aggregate=lower_median)
    for mine, others in [("a", "bc"), ("b", "ac"), ("c", "ab")]:
        rest = labels[labels["judge"].isin(list(others))]
        expected = weighted_kappa(
            labels[labels["judge"] == mine].set_index(["query_id", "doc_id"])["grade"],
            lower_median(rest))
        assert figures.loc[mine, "consensus_kappa"] == pytest.approx(expected, abs=1e-12)
        assert figures.loc[mine, "consensus_items"] == 30
    # with two judges, each one's consensus is the other's grades
    two = consensus_agreement(labels[labels["judge"] != "c"], aggregate=lower_median)
    by = {j: g.set_index(["query_id", "doc_id"])["grade"] for j, g in labels.groupby("judge")}
    assert two.loc["a", "consensus_kappa"] == pytest.approx(weighted_kappa(by["a"], by["b"]))
    alone = consensus_agreement(frames[0])
    assert alone.loc["a", "consensus_items"] == 0 and math.isnan(
        alone.loc["a", "consensus_kappa"])


def test_agreement_uses_the_others_dawid_skene_consensus_by_default() -> None:
    labels = simulate(seed=23).labels
    default = consensus_agreement(labels)
    explicit = consensus_agreement(labels, aggregate=lambda frame: dawid_skene(frame).grade)
    by_median = consensus_agreement(labels, aggregate=lower_median)
    pd.testing.assert_frame_equal(default, explicit)
    assert not np.allclose(default["consensus_kappa"], by_median["consensus_kappa"])


def test_too_fast_reads_the_median_against_the_floor() -> None:
    timings = pd.DataFrame({"judge": ["quick"] * 10 + ["steady"] * 10,
                            "ms_spent": [1000] * 6 + [9000] * 4 + [1000] * 4 + [9000] * 6})
    quality = speed(timings, floor_seconds=2.0)
    assert quality["share_fast"].tolist() == [0.6, 0.4]
    assert flags(quality)[["judge", "flag"]].values.tolist() == [["quick", "too_fast"]]
    assert flags(quality, Thresholds(floor_seconds=0.5)).empty


def test_flags_need_enough_items_and_ignore_absent_figures() -> None:
    quality = pd.DataFrame({"decided_votes": [19, 20], "side_p": [1e-6, 1e-6]},
                           index=pd.Index(["few", "enough"], name="judge"))
    raised = flags(quality)
    assert raised.columns.tolist() == list(FLAG_COLUMNS)
    assert raised[["judge", "flag", "items"]].values.tolist() == [["enough", "side_bias", 20]]
    assert flags(quality, Thresholds(min_votes=19))["judge"].tolist() == ["enough", "few"]
    with pytest.raises(ArgumentError, match="threshold min_gold"):
        Thresholds(min_gold=-1)
    with pytest.raises(ArgumentError, match="confidence"):
        Thresholds(confidence=1.0)


def test_gold_needs_created_at_for_drift_and_one_grade_per_judge_and_item() -> None:
    labels, gold = _gold_labels("j", [True, False])
    with pytest.raises(LayoutError, match="created_at"):
        judge_quality(labels.drop(columns="created_at"), gold=gold)
    with pytest.raises(ArgumentError, match="appears twice"):
        gold_accuracy(pd.concat([labels, labels]), gold)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 2000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))),
       st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99, 0.999]))
def test_wilson_interval_equals_scipys_and_contains_the_proportion(kn, confidence) -> None:
    k, n = kn
    low, high = wilson_interval(k, n, confidence)
    expected = stats.binomtest(k, n).proportion_ci(confidence_level=confidence,
                                                   method="wilson")
    assert (float(low), float(high)) == pytest.approx((expected.low, expected.high), abs=1e-12)
    assert 0 <= low <= k / n <= high <= 1


def test_wilson_interval_is_element_wise_and_nan_without_items() -> None:
    low, high = wilson_interval(np.array([0, 3, 0]), np.array([0, 10, 4]))
    assert math.isnan(low[0]) and math.isnan(high[0])
    assert low[2] == 0.0 and high[1] == pytest.approx(
        stats.binomtest(3, 10).proportion_ci(method="wilson").high)
    with pytest.raises(ArgumentError):
        wilson_interval(5, 4)


def test_speed_leaves_untimed_votes_of_a_nullable_column_out() -> None:
    """The store's ms_spent is a nullable integer: a vote cast without its time (pd.NA) is no
    timed judgment (it raised "boolean value of NA is ambiguous" before)."""
    timings = pd.DataFrame({"judge": ["a", "a", "b"],
                            "ms_spent": pd.array([None, 3000, None], dtype="Int64")})
    found = speed(timings)
    assert found.index.tolist() == ["a"]
    assert (found.loc["a", "timed"], found.loc["a", "median_seconds"]) == (1, 3.0)
