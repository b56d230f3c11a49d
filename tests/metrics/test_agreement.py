"""Agreement statistics against a textbook example, an independent package and hand
computations.

Krippendorff's alpha: the 4 coders x 12 units example of K. Krippendorff, "Computing
Krippendorff's Alpha-Reliability" (2011), whose published values are nominal 0.743, ordinal
0.815, interval 0.849; and the ``krippendorff`` package on random tables.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.agreement import (
    cohen_kappa,
    krippendorff_alpha,
    metric_vs_expert,
    vote_for_b,
    weighted_kappa,
    win_rate,
    win_rates_by_judge,
)

NA = np.nan
KRIPPENDORFF_2011 = pd.DataFrame({  # units as rows, coders A-D as columns
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NA, 3],
    "C": [NA, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NA],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NA],
})


@pytest.mark.parametrize("level, published", [
    ("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorff_alpha_textbook_example(level: str, published: float) -> None:
    assert krippendorff_alpha(KRIPPENDORFF_2011, level) == pytest.approx(published, abs=5e-4)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2, 3, None]), min_size=3, max_size=3),
                min_size=2, max_size=25), st.sampled_from(["nominal", "ordinal", "interval"]))
def test_krippendorff_alpha_matches_the_krippendorff_package(rows, level) -> None:
    reference = pytest.importorskip("krippendorff")
    table = pd.DataFrame(rows, dtype=float)
    ours = krippendorff_alpha(table, level)
    try:
        theirs = reference.alpha(reliability_data=table.T.to_numpy(),
                                 level_of_measurement=level)
    except (ValueError, ZeroDivisionError):
        theirs = float("nan")
    if math.isnan(ours) or math.isnan(theirs) or not math.isfinite(theirs):
        return  # degenerate tables: no pairable values or no possible disagreement
    assert ours == pytest.approx(theirs, abs=1e-9)


def _kappa_by_hand(a: list[int], b: list[int]) -> float:
    n = len(a)
    values = sorted(set(a) | set(b))
    observed = sum((x - y) ** 2 for x, y in zip(a, b, strict=True)) / n
    pa = {v: a.count(v) / n for v in values}
    pb = {v: b.count(v) / n for v in values}
    expected = sum(pa[x] * pb[y] * (x - y) ** 2 for x in values for y in values)
    return 1 - observed / expected


def test_weighted_kappa() -> None:
    a = [0, 1, 2, 2, 3, 1, 0, 3]
    b = [0, 2, 2, 1, 3, 1, 1, 3]
    got = weighted_kappa(pd.Series(a), pd.Series(b))
    assert got == pytest.approx(_kappa_by_hand(a, b))
    assert weighted_kappa(pd.Series(a), pd.Series(a)) == pytest.approx(1.0)
    assert weighted_kappa(pd.Series([0, 3]), pd.Series([3, 0])) < 0
    assert math.isnan(weighted_kappa(pd.Series([2, 2]), pd.Series([2, 2])))
    shared = weighted_kappa(pd.Series({"x": 1, "y": 2}), pd.Series({"y": 2, "z": 0}))
    assert math.isnan(shared)  # one shared item, one value: no chance disagreement


def votes(rows: list[tuple[str, str, str, str]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["query_id", "left_run", "choice", "judge"])
    return frame.assign(run_a="A", run_b="B")


def test_votes_read_from_the_side_shown() -> None:
    frame = votes([("q1", "B", "left", "x"), ("q2", "A", "left", "x"),
                   ("q3", "A", "right", "x"), ("q4", "B", "right", "x"),
                   ("q5", "A", "tie", "x"), ("q6", "B", "both_bad", "x")])
    assert vote_for_b(frame).tolist() == [1, -1, 1, -1, 0, 0]


def test_win_rate_wilson_and_sign_test_by_hand() -> None:
    rows = [("q", "B", "left", "x")] * 9 + [("q", "B", "right", "y")] * 3 + \
        [("q", "A", "tie", "x")] * 2 + [("q", "A", "both_bad", "y")]
    got = win_rate(votes(rows))
    assert (got.wins_b, got.wins_a, got.ties, got.both_bad) == (9, 3, 2, 1)
    n, k, z = 12, 9, 1.959963984540054
    p = k / n
    center = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (got.ci_low, got.ci_high) == pytest.approx((center - half, center + half))
    tail = sum(math.comb(n, i) for i in range(0, n - k + 1)) / 2**n
    assert got.p_sign == pytest.approx(min(1.0, 2 * tail))
    table = win_rates_by_judge(votes(rows))
    assert list(table.index) == ["all", "x", "y"]
    assert table.loc["x", "wins_b"] == 9 and table.loc["y", "wins_a"] == 3


def test_metric_vs_expert() -> None:
    deltas = pd.Series({"q1": 0.2, "q2": -0.1, "q3": 0.0, "q4": 0.3})
    frame = votes([("q1", "B", "left", "x"), ("q2", "B", "left", "x"),
                   ("q3", "A", "right", "x"), ("q4", "A", "tie", "x"),
                   ("q9", "B", "left", "x")])  # q9 has no delta: left out
    got = metric_vs_expert(deltas, frame)
    assert got.votes == 3 and got.metric_ties == 1
    assert got.sign_agreement == pytest.approx(1 / 3)
    assert -1 <= got.kendall_tau <= 1


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_krippendorff_alpha_on_a_larger_random_table(level: str) -> None:
    reference = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 4, size=200)
    table = pd.DataFrame({j: np.clip(truth + rng.integers(-1, 2, size=200), 0, 3)
                          for j in range(5)}, dtype=float)
    table = table.mask(rng.random(table.shape) < 0.3)
    theirs = reference.alpha(reliability_data=table.T.to_numpy(), level_of_measurement=level)
    assert krippendorff_alpha(table, level) == pytest.approx(theirs, abs=1e-9)
    assert 0.1 < theirs < 1.0  # a real, non-degenerate case


def test_cohen_kappa_on_the_textbook_two_by_two() -> None:
    """50 items, a: 25 yes / 25 no, b: 30 yes / 20 no, 20 yes-yes and 15 no-no (the
    Wikipedia example): p_o = 35/50 = 0.7, p_e = 0.5*0.6 + 0.5*0.4 = 0.5, kappa = 0.4."""
    a = ["yes"] * 20 + ["yes"] * 5 + ["no"] * 10 + ["no"] * 15
    b = ["yes"] * 20 + ["no"] * 5 + ["yes"] * 10 + ["no"] * 15
    assert cohen_kappa(pd.Series(a), pd.Series(b)) == pytest.approx(0.4)


def test_cohen_kappa_on_votes_by_hand() -> None:
    """Votes read as B (+1), A (-1), neither (0), six queries, one left out by each judge.
    Shared q1..q4: a = +1 +1 -1 0, b = +1 -1 -1 0: p_o = 3/4; shares a: +1 1/2, -1 1/4,
    0 1/4; b: +1 1/4, -1 1/2, 0 1/4; p_e = 1/8 + 1/8 + 1/16 = 5/16;
    kappa = (3/4 - 5/16) / (11/16) = 7/11."""
    a = pd.Series({"q1": 1, "q2": 1, "q3": -1, "q4": 0, "q5": 1})
    b = pd.Series({"q1": 1, "q2": -1, "q3": -1, "q4": 0, "q6": -1})
    assert cohen_kappa(a, b) == pytest.approx(7 / 11)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert math.isnan(cohen_kappa(pd.Series([1, 1]), pd.Series([1, 1])))  # p_e = 1
    assert math.isnan(cohen_kappa(pd.Series({"x": 1}), pd.Series({"y": 1})))  # none shared


def _cohen_by_confusion_matrix(a: list[int], b: list[int]) -> float:
    """The same statistic from the confusion matrix, written independently."""
    labels = sorted(set(a) | set(b))
    matrix = np.zeros((len(labels), len(labels)))
    for x, y in zip(a, b, strict=True):
        matrix[labels.index(x), labels.index(y)] += 1
    n = matrix.sum()
    p_o = np.trace(matrix) / n
    p_e = (matrix.sum(axis=1) @ matrix.sum(axis=0)) / n**2
    return float((p_o - p_e) / (1 - p_e))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from([-1, 0, 1]), st.sampled_from([-1, 0, 1])),
                min_size=1, max_size=40))
def test_cohen_kappa_matches_the_confusion_matrix_formula(pairs) -> None:
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    got = cohen_kappa(pd.Series(a), pd.Series(b))
    if len(set(a)) == 1 and set(a) == set(b):
        assert math.isnan(got)
    else:
        assert got == pytest.approx(_cohen_by_confusion_matrix(a, b))
        assert -1.0 <= got <= 1.0
