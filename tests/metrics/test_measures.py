"""Measure names parse to objects whose str() is the canonical name, and read back."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import REGISTRY, make_measure, parse_measure, parse_measures
from metrics.errors import MeasureError
from metrics.measures import Param


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


def _value_strategy(param: Param) -> st.SearchStrategy:
    if param.choices is not None:
        return st.sampled_from(param.choices)
    numbers = st.one_of(st.integers(-10, 10),
                        st.floats(allow_nan=False, allow_infinity=False),
                        st.floats(0.0, 1.0, exclude_min=True, exclude_max=True),
                        st.floats(1e-300, 1e300))
    return numbers.filter(param.valid) if param.valid is not None else numbers


@st.composite
def spelled_measures(draw: st.DrawFn) -> tuple[str, str, int | None, dict[str, object]]:
    """Any measure of the grammar, spelled any accepted way: (text, name, cutoff, values)."""
    name = draw(st.sampled_from(sorted(REGISTRY)))
    definition = REGISTRY[name]
    values = {pname: draw(_value_strategy(param)) for pname, param in definition.params.items()
              if draw(st.booleans())}
    cutoffs = st.integers(1, 10**6)
    cutoff = draw(st.one_of(cutoffs, st.none()) if definition.full_depth else cutoffs)
    blank = st.sampled_from(["", " ", "  "])
    parts = []
    for pname, value in draw(st.permutations(list(values.items()))):
        if isinstance(value, str):
            quote = draw(st.sampled_from(["'", '"', ""]))
            shown = f"{quote}{value}{quote}"
        else:
            shown = draw(st.sampled_from([repr(value), str(value)]))
        parts.append(f"{pname}{draw(blank)}={draw(blank)}{shown}")
    args = f"({f'{draw(blank)},{draw(blank)}'.join(parts)})" if parts or draw(st.booleans()) else ""
    spelled = draw(st.sampled_from([name, name.upper(), name.capitalize()]))
    at = "" if cutoff is None else f"{draw(blank)}@{draw(blank)}{cutoff}"
    return f"{draw(blank)}{spelled}{args}{at}{draw(blank)}", name, cutoff, values


@settings(max_examples=400, deadline=None)
@given(spelled_measures())
def test_repr_is_the_canonical_name_and_parses_back(case) -> None:
    text, name, cutoff, values = case
    measure = parse_measure(text)
    assert (measure.name, measure.cutoff) == (name, cutoff)
    for pname, value in values.items():
        assert measure.param(pname) == value
    assert measure == make_measure(name, cutoff, **values)
    canonical = repr(measure)
    assert canonical == str(measure)
    assert parse_measure(canonical) == measure and parse_measure(str(measure)) == measure
    assert hash(parse_measure(canonical)) == hash(measure)
    assert repr(parse_measure(canonical)) == canonical  # a fixed point
    # canonical form: no blanks, parameters in alphabetical order, none at its default
    assert " " not in canonical and canonical.startswith(name)
    written = re.findall(r"(\w+)=", canonical)
    assert written == sorted(written)
    defaults = {p: param.default for p, param in REGISTRY[name].params.items()}
    assert all(measure.param(p) != defaults[p] for p in written)
    assert set(written) == {p for p, v in values.items() if v != defaults[p]}
    assert canonical.endswith("" if cutoff is None else f"@{cutoff}")


@pytest.mark.parametrize("name, pname", [(name, pname) for name, d in REGISTRY.items()
                                          for pname in d.params])
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_every_parameter_of_every_measure_round_trips(name: str, pname: str, data) -> None:
    """The whole grammar, parameter by parameter (the property above draws them together)."""
    value = data.draw(_value_strategy(REGISTRY[name].params[pname]))
    cutoff = data.draw(st.one_of(st.integers(1, 1000), st.none()) if REGISTRY[name].full_depth
                       else st.integers(1, 1000))
    measure = make_measure(name, cutoff, **{pname: value})
    assert measure.param(pname) == value
    assert parse_measure(repr(measure)) == measure == parse_measure(str(measure))


def test_only_ndcg_and_ndcg_f_go_without_a_cutoff() -> None:
    assert {n for n, d in REGISTRY.items() if d.full_depth} == {"ndcg", "ndcg_f"}
    for name in set(REGISTRY) - {"ndcg", "ndcg_f"}:
        with pytest.raises(MeasureError, match=f"^{name} needs a cutoff: write {name}@10"):
            parse_measure(name)
