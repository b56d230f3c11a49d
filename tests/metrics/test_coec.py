"""COEC on a hand-built log: the curve, the expectations and the grades are worked by hand."""

from __future__ import annotations

import pandas as pd
import pytest

from metrics.coec import coec, coec_grades, default_thresholds, position_bias
from metrics.scale import BINARY, ESCI, WANDS


def impressions() -> pd.DataFrame:
    rows = ([("q1", "d1", 1)] * 4 + [("q1", "d2", 2)] * 4 + [("q2", "d3", 1)] * 2
            + [("q2", "d4", 2)] * 2 + [("q3", "d5", 1), ("q3", "d5", 2)])
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])


def events() -> pd.DataFrame:
    rows = ([("q1", "d1", "click", 1)] * 3
            + [("q1", "d2", "click", 2), ("q2", "d4", "click", 2), ("q3", "d5", "click", 1),
               ("q1", "d2", "click", None),        # no rank: counts for d2, not in the curve
               ("q9", "dz", "click", 5),           # never shown: no expectation, off the curve
               ("q1", "d1", "add_to_cart", 1)])    # not a click
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "action", "rank"])
    frame["rank"] = frame["rank"].astype("Int64")
    return frame


def test_position_bias_curve() -> None:
    curve = position_bias(impressions(), events()[events()["action"] == "click"])
    # rank 1: shown 4 (d1) + 2 (d3) + 1 (d5) = 7 times, clicked 3 (d1) + 1 (d5) = 4 -> 4/7
    # rank 2: shown 4 (d2) + 2 (d4) + 1 (d5) = 7 times, clicked d2 + d4 = 2 -> 2/7
    assert curve["rank"].tolist() == [1, 2]
    assert curve["impressions"].tolist() == [7, 7]
    assert curve["clicks"].tolist() == [4, 2]
    assert curve["ctr"].tolist() == pytest.approx([4 / 7, 2 / 7])


def test_clicks_over_expected_clicks() -> None:
    result = coec(impressions(), events(), min_impressions=2)
    pairs = result.pairs.set_index(["query_id", "doc_id"])
    # q1 d1: 4 impressions at rank 1: E = 4 * 4/7 = 16/7; 3 clicks -> 21/16
    assert pairs.loc[("q1", "d1"), "expected_clicks"] == pytest.approx(16 / 7)
    assert pairs.loc[("q1", "d1"), "coec"] == pytest.approx(21 / 16)
    # q1 d2: 4 at rank 2: E = 8/7; 2 clicks (one without rank) -> 14/8
    assert pairs.loc[("q1", "d2"), "clicks"] == 2
    assert pairs.loc[("q1", "d2"), "coec"] == pytest.approx(14 / 8)
    # q2 d3: E = 2 * 4/7 = 8/7, no click -> 0
    assert pairs.loc[("q2", "d3"), "coec"] == 0.0
    # q2 d4: E = 2 * 2/7 = 4/7, 1 click -> 7/4
    assert pairs.loc[("q2", "d4"), "coec"] == pytest.approx(7 / 4)
    # q3 d5: shown once at 1 and once at 2: E = 4/7 + 2/7 = 6/7, 1 click -> 7/6
    assert pairs.loc[("q3", "d5"), "expected_clicks"] == pytest.approx(6 / 7)
    assert pairs.loc[("q3", "d5"), "coec"] == pytest.approx(7 / 6)
    assert ("q9", "dz") not in pairs.index
    assert (result.clicks_off_curve, result.clicks_unshown) == (2, 1)
    assert result.graded_pairs == 5


def test_minimum_impressions() -> None:
    # only q1's docs have 3 or more impressions
    graded = coec(impressions(), events(), min_impressions=3).pairs.dropna(subset=["coec"])
    assert sorted(graded["doc_id"]) == ["d1", "d2"]
    assert coec(impressions(), events()).graded_pairs == 0      # default: 10 impressions
    with pytest.raises(ValueError, match="min_impressions"):
        coec(impressions(), events(), min_impressions=0)


def test_default_thresholds_are_geometric_around_one() -> None:
    # 2 ** (i - (m - 2) / 2): m = 4 -> 2**-1, 2**0, 2**1; m = 3 -> 2**-0.5, 2**0.5; m = 2 -> 1
    assert default_thresholds(ESCI) == pytest.approx((0.5, 1.0, 2.0))
    assert default_thresholds(WANDS) == pytest.approx((2 ** -0.5, 2 ** 0.5))
    assert default_thresholds(BINARY) == (1.0,)


def test_grades_from_thresholds() -> None:
    values = pd.Series([0.0, 0.49, 0.5, 0.99, 1.0, 1.99, 2.0, 10.0, float("nan")])
    # ESCI: below 0.5 -> 0, [0.5, 1) -> 1, [1, 2) -> 2, 2 and above -> 3
    assert coec_grades(values, ESCI).tolist() == [0, 0, 1, 1, 2, 2, 3, 3, pd.NA]
    # WANDS: below 0.707 -> 0, [0.707, 1.414) -> 1, above -> 2
    assert coec_grades(values, WANDS).tolist() == [0, 0, 0, 1, 1, 2, 2, 2, pd.NA]
    custom = coec_grades(values, BINARY, thresholds=[1.5])
    assert custom.tolist() == [0, 0, 0, 0, 0, 1, 1, 1, pd.NA]
    with pytest.raises(ValueError, match="needs 3 COEC thresholds"):
        coec_grades(values, ESCI, thresholds=[1, 2])
    with pytest.raises(ValueError, match="ascending"):
        coec_grades(values, ESCI, thresholds=[1, 1, 2])
