"""Invariants of the NDCG family (hypothesis), the exact bounds against brute force, and the
documented edge cases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from metrics import (
    DuplicateDocError,
    best_ndcg_m,
    dcg,
    judged_at_k,
    ndcg,
    ndcg_bounds,
    ndcg_f,
    ndcg_m,
    precision,
)

MAX = 3
docs = st.integers(0, 20).map(lambda i: f"d{i}")
rankings = st.lists(docs, unique=True, max_size=15)
judgments = st.dictionaries(docs, st.integers(-1, MAX), max_size=15)
cutoffs = st.integers(1, 12)
conventions = st.tuples(st.sampled_from(["linear", "exponential"]),
                        st.sampled_from(["log2", "reciprocal"]))


@given(rankings, judgments, cutoffs, conventions)
def test_all_in_unit_interval(ranking, labels, k, conv) -> None:
    gain, discount = conv
    for value in (ndcg(ranking, labels, k, gain=gain, discount=discount),
                  ndcg_f(ranking, labels, k, gain=gain, discount=discount),
                  ndcg_m(ranking, labels, k, max_grade=MAX, gain=gain, discount=discount),
                  best_ndcg_m(labels, k, MAX, gain=gain, discount=discount),
                  precision(ranking, labels, k), judged_at_k(ranking, labels, k)):
        assert 0.0 <= value <= 1.0 + 1e-12


@given(rankings, st.data(), cutoffs, conventions)
def test_ndcg_f_equals_ndcg_when_every_doc_is_judged(ranking, data, k, conv) -> None:
    gain, discount = conv
    labels = {doc: data.draw(st.integers(0, MAX)) for doc in ranking}
    assert ndcg_f(ranking, labels, k, gain=gain, discount=discount) == pytest.approx(
        ndcg(ranking, labels, k, gain=gain, discount=discount))


@given(rankings, judgments, cutoffs, conventions)
def test_ndcg_m_never_exceeds_the_querys_ceiling(ranking, labels, k, conv) -> None:
    gain, discount = conv
    assert ndcg_m(ranking, labels, k, max_grade=MAX, gain=gain, discount=discount) <= (
        best_ndcg_m(labels, k, MAX, gain=gain, discount=discount) + 1e-12)


@settings(max_examples=150, deadline=None)
@given(st.lists(docs, unique=True, max_size=8), judgments, st.integers(1, 6), conventions,
       st.data())
def test_bounds_contain_every_completion(ranking, labels, k, conv, data) -> None:
    gain, discount = conv
    bounds = ndcg_bounds(ranking, labels, k, MAX, gain=gain, discount=discount)
    classic = ndcg(ranking, labels, k, gain=gain, discount=discount)
    assert bounds.lower - 1e-12 <= classic <= bounds.upper + 1e-12
    gaps = [d for d in ranking[:k] if labels.get(d, -1) < 0]
    filled = dict(labels)
    filled.update({d: data.draw(st.integers(0, MAX)) for d in gaps})
    value = ndcg(ranking, filled, k, gain=gain, discount=discount)
    assert bounds.lower - 1e-12 <= value <= bounds.upper + 1e-12


@settings(max_examples=120, deadline=None)
@given(st.lists(docs, unique=True, max_size=7), judgments, st.integers(1, 6), conventions)
def test_bounds_equal_brute_force_over_all_completions(ranking, labels, k, conv) -> None:
    gain, discount = conv
    gaps = [d for d in ranking[:k] if labels.get(d, -1) < 0]
    assume(len(gaps) <= 5)
    values = []
    for grades in itertools.product(range(MAX + 1), repeat=len(gaps)):
        filled = dict(labels)
        filled.update(zip(gaps, grades, strict=True))
        values.append(ndcg(ranking, filled, k, gain=gain, discount=discount))
    bounds = ndcg_bounds(ranking, labels, k, MAX, gain=gain, discount=discount)
    assert bounds.lower == pytest.approx(min(values), abs=1e-12)
    assert bounds.upper == pytest.approx(max(values), abs=1e-12)


def test_filling_with_the_maximum_can_lower_ndcg() -> None:
    ranking = ["a"] + [f"u{i}" for i in range(2, 11)]
    labels = {"a": 3} | {f"u{i}": 0 for i in range(2, 10)}  # only u10 unlabelled
    assert ndcg(ranking, labels, 10) == pytest.approx(1.0)
    assert ndcg(ranking, labels | {"u10": 3}, 10) < 0.8
    bounds = ndcg_bounds(ranking, labels, 10, 3)
    assert bounds.lower < 0.8 and bounds.upper == pytest.approx(1.0)


def test_edge_cases_are_documented_values() -> None:
    assert ndcg([], {"a": 2}, 10) == 0.0  # empty ranking
    assert ndcg(["a", "b"], {}, 10) == 0.0  # no labels: ideal of 0
    assert ndcg(["a"], {"a": 0, "b": -1}, 10) == 0.0  # no positive label
    assert ndcg_f(["x", "y"], {"a": 3}, 10) == 0.0  # nothing judged retrieved
    assert best_ndcg_m({}, 10, 3) == 0.0
    assert best_ndcg_m({f"d{i}": 3 for i in range(10)}, 10, 3) == pytest.approx(1.0)
    assert dcg(["a", "b"], {"a": -1, "b": 2}, 2) == pytest.approx(2 / np.log2(3))
    assert judged_at_k(["a", "b"], {"a": 1, "b": -1}, 4) == 0.25  # over k; -1 = unjudged
    assert ndcg_bounds(["a"], {"a": 2}, 5, 3).width == 0.0


def test_bad_arguments_raise_clear_errors() -> None:
    with pytest.raises(DuplicateDocError, match=r"doc 'a' appears twice.*ranks 1 and 3"):
        ndcg(["a", "b", "a"], {}, 10)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        ndcg(["a"], {}, 0)
    with pytest.raises(ValueError, match="gain must be one of"):
        ndcg(["a"], {}, 5, gain="cubic")
    with pytest.raises(ValueError, match="max_grade is required"):
        ndcg_m(["a"], {}, 5, max_grade=None)
    with pytest.raises(ValueError, match="above max_grade 2"):
        ndcg_m(["a"], {"a": 3}, 5, max_grade=2)
    with pytest.raises(ValueError, match="not a finite number"):
        ndcg(["a"], {"a": float("nan")}, 5)
