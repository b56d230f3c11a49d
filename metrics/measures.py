"""What each measure *is*: name, parameters, cutoff — declared apart from how it is computed.

Measures are written like ir_measures names and read back to the same object::

    ndcg@10   ndcg_f@10   ndcg_m(gain='exponential')@10   best_ndcg_m@10
    p@10   p(rel=2)@10   p_graded@10   judged@10   rbo(p=0.8)@10

``str(parse_measure(name))`` is the canonical spelling (defaults left out), so the registry can
drive the CLI, the app's pick lists and the docs from one place.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from metrics.dcg import DISCOUNTS, GAINS


@dataclass(frozen=True)
class Param:
    """One parameter of a measure."""

    type: type
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None

    def coerce(self, measure: str, name: str, raw: Any) -> Any:
        """Convert ``raw`` (a parsed string or a Python value) to the parameter's type."""
        value: Any
        try:
            if self.type is bool and isinstance(raw, str):
                if raw.lower() not in {"true", "false"}:
                    raise ValueError
                value = raw.lower() == "true"
            elif raw is None:
                value = None
            else:
                value = self.type(raw)
        except (TypeError, ValueError):
            raise ValueError(
                f"{measure}: parameter {name} must be {self.type.__name__}; got {raw!r}"
            ) from None
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"{measure}: {name} must be one of {', '.join(map(str, self.choices))}"
                             f"; got {raw!r}")
        return value


@dataclass(frozen=True)
class MeasureDef:
    """A measure's declaration: its parameters and what it needs to be computed."""

    name: str
    description: str
    params: dict[str, Param] = field(default_factory=dict)
    needs_max_grade: bool = False
    pairwise: bool = False


_GAIN = Param(str, "linear", "gain of a grade g: linear g or exponential 2^g - 1", GAINS)
_DISCOUNT = Param(str, "log2", "discount at rank r: log2 1/log2(r+1) or reciprocal 1/r",
                  DISCOUNTS)
_MAX = Param(float, None, "the scale's maximum grade (default: the dataset's scale)")

REGISTRY: dict[str, MeasureDef] = {
    m.name: m
    for m in (
        MeasureDef("ndcg", "classic NDCG@k: unlabelled = 0, ideal = the query's own labels",
                   {"gain": _GAIN, "discount": _DISCOUNT}),
        MeasureDef("ndcg_f", "NDCG-f@k: unlabelled docs removed first (trec_eval -J)",
                   {"gain": _GAIN, "discount": _DISCOUNT}),
        MeasureDef("ndcg_m", "NDCG-m@k: ideal = k results at the scale's maximum grade",
                   {"gain": _GAIN, "discount": _DISCOUNT, "max_grade": _MAX},
                   needs_max_grade=True),
        MeasureDef("best_ndcg_m", "the query's NDCG-m@k ceiling (dataset health)",
                   {"gain": _GAIN, "discount": _DISCOUNT, "max_grade": _MAX},
                   needs_max_grade=True),
        MeasureDef("p", "P@k: share of the top k with grade >= rel (trec_eval P)",
                   {"rel": Param(float, 1.0, "lowest grade that counts as relevant")}),
        MeasureDef("p_graded", "graded P@k: sum of top-k grades / (k * max grade)",
                   {"max_grade": _MAX}, needs_max_grade=True),
        MeasureDef("judged", "judged@k: share of the top k that has a label", {}),
        MeasureDef("rbo", "rank-biased overlap between two runs, extrapolated, at depth k",
                   {"p": Param(float, 0.9, "persistence, 0 < p < 1")}, pairwise=True),
    )
}


@dataclass(frozen=True)
class Measure:
    """A measure with its parameter values and cutoff, e.g. ``ndcg_m(gain='exponential')@10``."""

    name: str
    cutoff: int
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def definition(self) -> MeasureDef:
        return REGISTRY[self.name]

    def param(self, name: str) -> Any:
        """The parameter's value, or its declared default."""
        return dict(self.params).get(name, self.definition.params[name].default)

    def __str__(self) -> str:
        args = ",".join(f"{k}={_format(v)}" for k, v in self.params)
        return f"{self.name}({args})@{self.cutoff}" if args else f"{self.name}@{self.cutoff}"


def _format(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


_PATTERN = re.compile(r"^\s*(?P<name>[a-z_]+)\s*(?:\((?P<args>[^)]*)\))?\s*@\s*(?P<k>\S+)\s*$",
                      re.IGNORECASE)


def make_measure(name: str, cutoff: int, **params: Any) -> Measure:
    """Build and check a measure from Python values."""
    key = name.lower()
    if key not in REGISTRY:
        raise ValueError(f"unknown measure {name!r}; known: {', '.join(REGISTRY)}")
    definition = REGISTRY[key]
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
        raise ValueError(f"{name}: cutoff must be a positive integer; got {cutoff!r}")
    values = {}
    for pname, raw in params.items():
        if pname not in definition.params:
            known = ", ".join(definition.params) or "none"
            raise ValueError(f"{name}: unknown parameter {pname!r} (parameters: {known})")
        values[pname] = definition.params[pname].coerce(key, pname, raw)
    if key == "rbo":
        p = values.get("p", 0.9)
        if not 0.0 < p < 1.0:
            raise ValueError(f"rbo: p must be strictly between 0 and 1; got {p!r}")
    explicit = {k: v for k, v in values.items() if v != definition.params[k].default}
    return Measure(key, cutoff, tuple(sorted(explicit.items())))


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``ndcg_m(gain='exponential', max_grade=3)@10`` into a :class:`Measure`."""
    if isinstance(text, Measure):
        return text
    match = _PATTERN.match(text)
    if not match:
        raise ValueError(f"cannot read measure {text!r}: expected name@k or name(param=value)@k")
    try:
        cutoff = int(match["k"])
    except ValueError:
        raise ValueError(f"{text!r}: the cutoff after @ must be a whole number") from None
    params: dict[str, str] = {}
    for part in filter(None, (a.strip() for a in (match["args"] or "").split(","))):
        if "=" not in part:
            raise ValueError(f"{text!r}: parameter {part!r} must be written name=value")
        pname, raw = (x.strip() for x in part.split("=", 1))
        params[pname] = raw.strip("'\"")
    return make_measure(match["name"], cutoff, **params)


def parse_measures(texts: str | list[str | Measure] | tuple[str | Measure, ...]) -> list[Measure]:
    """Parse several measures; a single string may list them separated by spaces."""
    if isinstance(texts, str):
        texts = re.findall(r"[^\s(]+(?:\([^)]*\))?@\S+|\S+", texts)
    measures = [parse_measure(t) for t in texts]
    if not measures:
        raise ValueError("no measure given")
    return measures
