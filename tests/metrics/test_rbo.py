"""RBO against Webber, Moffat & Zobel (2010), computed here straight from the definition.

The oracle sums (1 - p) * sum_d p^(d-1) * X_d / d to a depth where p^d is below 1e-15:
``min`` on the lists as seen; ``max`` on the lists extended so that every unseen item matches
as early as it can (S gets L's unmatched items then shared fresh ones; L gets S's unmatched
items then the same fresh ones), which attains the paper's per-depth maximum overlap; ``ext``
transcribes eq. 32 term by term.
"""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import DuplicateDocError, rbo
from metrics.compare import rbo_between

DEPTH = 1000  # 0.95^1000 < 1e-22


def _sum_by_definition(s: list, ell: list, p: float) -> float:
    """(1 - p) * sum_{d=1..DEPTH} p^(d-1) |s_{:d} & l_{:d}| / d, overlap kept incrementally."""
    total, x = 0.0, 0
    seen_s: set = set()
    seen_l: set = set()
    for d in range(1, DEPTH + 1):
        if d <= len(s):
            item = s[d - 1]
            x += item in seen_l
            seen_s.add(item)
        if d <= len(ell):
            item = ell[d - 1]
            x += item in seen_s
            seen_l.add(item)
        total += p ** (d - 1) * x / d
    return (1 - p) * total


def oracle_min(a: list, b: list, p: float) -> float:
    return _sum_by_definition(a, b, p)


def oracle_max(a: list, b: list, p: float) -> float:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    fresh = [("fresh", i) for i in range(DEPTH)]
    s_ext = short + [x for x in long if x not in short] + fresh
    l_ext = long + [x for x in short if x not in long] + fresh
    return _sum_by_definition(s_ext, l_ext, p)


def oracle_ext(a: list, b: list, p: float) -> float:
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    s, ell = len(short), len(long)
    x = [len(set(short[:d]) & set(long[:d])) for d in range(ell + 1)]
    first = sum(x[d] / d * p**d for d in range(1, ell + 1))
    second = sum(x[s] * (d - s) / (s * d) * p**d for d in range(s + 1, ell + 1))
    return (1 - p) / p * (first + second) + ((x[ell] - x[s]) / ell + x[s] / s) * p**ell


rankings = st.lists(st.integers(0, 14), unique=True, max_size=12)
persistence = st.sampled_from([0.5, 0.8, 0.9, 0.95])


@settings(max_examples=300, deadline=None)
@given(rankings, rankings, persistence)
def test_rbo_matches_the_definition(a: list, b: list, p: float) -> None:
    got = rbo(a, b, p)
    if not a and not b:
        assert (got.min, got.residual, got.ext) == (0.0, 1.0, 1.0)
        return
    assert got.min == pytest.approx(oracle_min(a, b, p), abs=1e-10)
    assert got.max == pytest.approx(oracle_max(a, b, p), abs=1e-10)
    if a and b:
        assert got.ext == pytest.approx(oracle_ext(a, b, p), abs=1e-10)
    else:
        assert got.ext == 0.0


@settings(max_examples=300, deadline=None)
@given(rankings, rankings, persistence)
def test_rbo_invariants(a: list, b: list, p: float) -> None:
    ab, ba = rbo(a, b, p), rbo(b, a, p)
    assert (ab.min, ab.residual, ab.ext) == pytest.approx((ba.min, ba.residual, ba.ext))
    for value in (ab.min, ab.residual, ab.ext, ab.max):
        assert -1e-12 <= value <= 1 + 1e-12
    assert ab.min - 1e-12 <= ab.ext <= ab.min + ab.residual + 1e-12


@given(st.lists(st.integers(0, 50), unique=True, min_size=1, max_size=30), persistence)
def test_identical_rankings_extrapolate_to_one(a: list, p: float) -> None:
    assert rbo(a, a, p).ext == pytest.approx(1.0)


def test_disjoint_rankings_score_zero() -> None:
    got = rbo(list("abcde"), list("vwxyz"), 0.9)
    assert got.min == 0.0 and got.ext == 0.0 and got.residual > 0


def test_even_lists_closed_form_eq_11() -> None:
    # Eq. 11: RBO_min = (1-p)/p * (sum_{d<=k} (X_d - X_k) p^d / d - X_k ln(1-p)).
    a, b, p = list("abcdefg"), list("bxadcyf"), 0.9
    x = [len(set(a[:d]) & set(b[:d])) for d in range(8)]
    expected = (1 - p) / p * (sum((x[d] - x[7]) * p**d / d for d in range(1, 8))
                              - x[7] * math.log(1 - p))
    assert rbo(a, b, p).min == pytest.approx(expected, abs=1e-12)


def test_depth_cuts_both_lists_and_bad_input_is_refused() -> None:
    assert rbo(list("abcxyz"), list("abcuvw"), 0.9, depth=3).ext == pytest.approx(1.0)
    with pytest.raises(ValueError, match="between 0 and 1"):
        rbo(["a"], ["a"], 1.0)
    with pytest.raises(DuplicateDocError, match="'a'"):
        rbo(["a", "b", "a"], ["a"], 0.9)


@pytest.mark.parametrize("coded", [False, True])
def test_batch_rbo_equals_the_per_query_function(coded: bool) -> None:
    """Also with categorical ids (each run its own categories, as Parquet dictionaries are)."""
    a = pd.DataFrame({"query_id": ["q1"] * 5 + ["q2"] * 3 + ["q3"] * 2,
                      "doc_id": list("abcde") + list("xyz") + list("mn"),
                      "rank": [1, 2, 3, 4, 5, 1, 2, 3, 1, 2]})
    b = pd.DataFrame({"query_id": ["q1"] * 4 + ["q2"] * 5 + ["q4"],
                      "doc_id": list("bazc") + list("zyxwv") + ["k"],
                      "rank": [1, 2, 3, 4, 1, 2, 3, 4, 5, 1]})
    if coded:
        a, b = (f.astype({"query_id": "category", "doc_id": "category"}) for f in (a, b))
    got = rbo_between(a, b, depth=4, p=0.8)
    lists_a = {"q1": list("abcd"), "q2": list("xyz"), "q3": list("mn"), "q4": []}
    lists_b = {"q1": list("bazc"), "q2": list("zyxw"), "q3": [], "q4": ["k"]}
    assert list(got.index) == ["q1", "q2", "q3", "q4"]
    for qid in got.index:
        want = rbo(lists_a[qid], lists_b[qid], 0.8)
        assert got.loc[qid, "min"] == pytest.approx(want.min, abs=1e-12)
        assert got.loc[qid, "residual"] == pytest.approx(want.residual, abs=1e-12)
        assert got.loc[qid, "ext"] == pytest.approx(want.ext, abs=1e-12)
