"""Measure names parse to objects whose str() is the canonical name, and read back."""

from __future__ import annotations

import pytest

from metrics import REGISTRY, make_measure, parse_measure, parse_measures


@pytest.mark.parametrize("text, canonical", [
    ("ndcg@10", "ndcg@10"),
    ("NDCG@10", "ndcg@10"),
    ("ndcg(gain='exponential')@10", "ndcg(gain='exponential')@10"),
    ("ndcg(gain=exponential, discount=log2)@5", "ndcg(gain='exponential')@5"),
    ("ndcg_f(discount='reciprocal')@20", "ndcg_f(discount='reciprocal')@20"),
    ("ndcg_m(max_grade=3)@10", "ndcg_m(max_grade=3)@10"),
    ("best_ndcg_m@10", "best_ndcg_m@10"),
    ("p(rel=2)@10", "p(rel=2)@10"),
    ("p(rel=1)@10", "p@10"),
    ("rbo(p=0.8)@10", "rbo(p=0.8)@10"),
    ("judged @ 10", "judged@10"),
    ("ndcg", "ndcg"),
    ("NDCG_F(gain='exponential')", "ndcg_f(gain='exponential')"),
    ("rbo(p=0.85)@10", "rbo(p=0.85)@10"),
    ("ndcg(gain='exponential',discount='reciprocal')@3",
     "ndcg(discount='reciprocal',gain='exponential')@3"),
])
def test_round_trip(text: str, canonical: str) -> None:
    measure = parse_measure(text)
    assert str(measure) == repr(measure) == canonical
    assert parse_measure(str(measure)) == measure


@pytest.mark.parametrize("text, message", [
    ("ndcg@", "expected name@k"),
    ("p", "p needs a cutoff: write p@10"),
    ("rbo(p=0.8)", "rbo needs a cutoff"),
    ("p(rel=nan)@10", "rel must be a finite number"),
    ("ndcg_m(max_grade=0)@10", "max_grade must be a positive number"),
    ("ndcg(gain=linear,gain=exponential)@10", "gain is given twice"),
    ("ndcg@ten", "cutoff after @ must be a whole number"),
    ("ndcg@0", "cutoff must be a positive integer"),
    ("mrr@10", "unknown measure 'mrr'"),
    ("ndcg(gain='cubic')@10", "gain must be one of linear, exponential"),
    ("ndcg(p=0.9)@10", "unknown parameter 'p'"),
    ("rbo(p=1.5)@10", "strictly between 0 and 1"),
    ("p(rel=high)@10", "rel must be float"),
    ("ndcg(exponential)@10", "must be written name=value"),
])
def test_bad_names_say_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_measure(text)


def test_a_string_of_several_measures() -> None:
    got = parse_measures("ndcg@10 ndcg_f(gain='exponential')@10 p@5")
    assert [str(m) for m in got] == ["ndcg@10", "ndcg_f(gain='exponential')@10", "p@5"]


def test_every_registered_measure_has_a_description_and_defaults() -> None:
    for name, definition in REGISTRY.items():
        assert definition.description
        measure = make_measure(name, 10)
        for pname in definition.params:
            assert measure.param(pname) == definition.params[pname].default
