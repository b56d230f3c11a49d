"""Tie-aware RBO (Corsi & Urbano 2024): checked against its defining properties.

* Without ties every variant is plain RBO.
* RBO^a is the average RBO over every way of breaking the ties: exactly so for ``min`` (linear
  in the expected overlaps) and, for rankings of equal length, for ``ext``; checked here by
  enumerating every tie-breaking.
* A hand-computed RBO^w case.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import rbo
from metrics.rbo_ties import ranking_with_ties, rbo_ties


def _breakings(ranking: list) -> list[list]:
    options = [list(itertools.permutations(sorted(e))) if isinstance(e, set) else [(e,)]
               for e in ranking]
    return [[x for part in combo for x in part] for combo in itertools.product(*options)]


@st.composite
def tied_rankings(draw, max_items: int = 7):
    items = draw(st.lists(st.integers(0, 9), unique=True, max_size=max_items))
    out, i = [], 0
    while i < len(items):
        size = draw(st.integers(1, 3))
        group = items[i: i + size]
        out.append(set(group) if len(group) > 1 else group[0])
        i += size
    return out


@settings(max_examples=150, deadline=None)
@given(tied_rankings(), tied_rankings(), st.sampled_from([0.5, 0.9]))
def test_rbo_a_min_is_the_average_over_tie_breakings(a, b, p) -> None:
    got = rbo_ties(a, b, p, ties="a")
    mins = [rbo(x, y, p).min for x in _breakings(a) for y in _breakings(b)]
    assert got.min == pytest.approx(float(np.mean(mins)), abs=1e-12)
    if len(_breakings(a)[0]) == len(_breakings(b)[0]) > 0:
        exts = [rbo(x, y, p).ext for x in _breakings(a) for y in _breakings(b)]
        assert got.ext == pytest.approx(float(np.mean(exts)), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(tied_rankings(), tied_rankings(), st.sampled_from(["w", "a", "b"]),
       st.sampled_from([0.5, 0.9]))
def test_tie_aware_invariants(a, b, variant, p) -> None:
    got = rbo_ties(a, b, p, ties=variant)
    assert -1e-12 <= got.min <= got.ext + 1e-12
    assert got.ext <= got.max + 1e-9
    assert got.max <= 1 + 1e-9
    swapped = rbo_ties(b, a, p, ties=variant)
    assert (swapped.min, swapped.ext) == pytest.approx((got.min, got.ext))


@given(st.lists(st.integers(0, 20), unique=True, max_size=10),
       st.lists(st.integers(0, 20), unique=True, max_size=10), st.sampled_from(["w", "a", "b"]))
def test_without_ties_every_variant_is_plain_rbo(a, b, variant) -> None:
    assert rbo_ties(a, b, 0.9, ties=variant) == rbo(a, b, 0.9)


def test_rbo_w_by_hand() -> None:
    # S = [(x y)], L = [x, y]: at depth 1 S holds both (w), L holds x: A_1 = 2*1/(2+1);
    # at depth 2 both hold {x, y}: A_2 = 1.  Equal lengths, so ext adds A_2 * p^2.
    p = 0.9
    got = rbo_ties([{"x", "y"}], ["x", "y"], p, ties="w")
    expected = (1 - p) / p * (2 / 3 * p + 1 * p**2) + 1 * p**2
    assert got.ext == pytest.approx(expected)


def test_ranking_with_ties_groups_equal_scores() -> None:
    assert ranking_with_ties({"a": 3.0, "b": 1.0, "c": 3.0, "d": 2.0}) == [{"a", "c"}, "d", "b"]
    with pytest.raises(ValueError, match="ties must be one of"):
        rbo_ties(["a"], ["a"], 0.9, ties="z")
    with pytest.raises(ValueError, match="appears twice"):
        rbo_ties([{"a", "b"}, "a"], ["a"], 0.9)
