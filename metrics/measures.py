"""What each measure *is*: name, parameters, cutoff — declared apart from how it is computed.

Measures are written like ir_measures names and read back to the same object::

    ndcg@10   ndcg_f@10   ndcg_m(gain='exponential')@10   best_ndcg_m@10
    p@10   p(rel=2)@10   p_graded@10   judged@10   rbo(p=0.8)@10   ndcg   ndcg_f

The canonical name is ``str(m)`` and ``repr(m)``, and ``parse_measure(repr(m)) == m``:

* the name in lower case, no blanks;
* parameters at their default value are left out (``ndcg(gain='linear')@10`` is ``ndcg@10``:
  the same measure has one name, so it is one column); the others follow in alphabetical order,
  ``name=value`` separated by ``,``; text values in single quotes; a whole number written
  without ``.0`` (``p(rel=2)@10``), any other number as Python's shortest round-tripping
  ``repr`` (``rbo(p=0.85)@10``);
* ``@k`` last.  ``ndcg`` and ``ndcg_f`` may be written without ``@k``: full depth, the whole
  ranking against every label (trec_eval's ``ndcg``, and with ``-J`` for ``ndcg_f``).  Every
  other measure needs a cutoff.

Every :class:`Measure` is canonical however it was built, so the registry can drive the CLI,
the app's pick lists and the docs from one place.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metrics.dcg import DISCOUNTS, GAINS
from metrics.errors import MeasureError


@dataclass(frozen=True)
class Param:
    """One parameter of a measure: its type (``str`` with choices, or ``float``), default and
    the rule a value must satisfy."""

    type: type
    default: Any
    description: str
    choices: tuple[Any, ...] | None = None
    valid: Callable[[float], bool] | None = None
    rule: str = ""

    def coerce(self, measure: str, name: str, raw: Any) -> Any:
        """Convert ``raw`` (a parsed string or a Python value) to the parameter's type."""
        if raw is None:
            if self.default is None:
                return None
            raise MeasureError(f"{measure}: parameter {name} must be {self.type.__name__}; "
                               "got None")
        if self.choices is not None:
            if raw not in self.choices:
                raise MeasureError(f"{measure}: {name} must be one of "
                                   f"{', '.join(map(str, self.choices))}; got {raw!r}")
            return raw
        try:
            if isinstance(raw, bool):
                raise TypeError
            value = float(raw)
        except (TypeError, ValueError):
            raise MeasureError(f"{measure}: parameter {name} must be float; got {raw!r}"
                               ) from None
        if not math.isfinite(value):
            raise MeasureError(f"{measure}: parameter {name} must be a finite number; "
                               f"got {raw!r}")
        if self.valid is not None and not self.valid(value):
            raise MeasureError(f"{measure}: {name} must be {self.rule}; got {raw!r}")
        return value


@dataclass(frozen=True)
class MeasureDef:
    """A measure's declaration: its parameters and what it needs to be computed."""

    name: str
    description: str
    params: dict[str, Param] = field(default_factory=dict)
    needs_max_grade: bool = False
    pairwise: bool = False
    full_depth: bool = False  # may be written without @k: computed over the whole ranking


_GAIN = Param(str, "linear", "gain of a grade g: linear g or exponential 2^g - 1", GAINS)
_DISCOUNT = Param(str, "log2", "discount at rank r: log2 1/log2(r+1) or reciprocal 1/r",
                  DISCOUNTS)
_MAX = Param(float, None, "the scale's maximum grade (default: the dataset's scale)",
              valid=lambda v: v > 0, rule="a positive number")

REGISTRY: dict[str, MeasureDef] = {
    m.name: m
    for m in (
        MeasureDef("ndcg", "classic NDCG@k: unlabelled = 0, ideal = the query's own labels; "
                   "without @k: full depth (trec_eval ndcg)",
                   {"gain": _GAIN, "discount": _DISCOUNT}, full_depth=True),
        MeasureDef("ndcg_f", "NDCG-f@k: unlabelled docs removed first (trec_eval -J); "
                   "without @k: full depth",
                   {"gain": _GAIN, "discount": _DISCOUNT}, full_depth=True),
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
                   {"p": Param(float, 0.9, "persistence, 0 < p < 1", valid=lambda v: 0.0 < v < 1.0,
                                rule="strictly between 0 and 1")}, pairwise=True),
    )
}


@dataclass(frozen=True)
class Measure:
    """A measure with its parameter values and cutoff, e.g. ``ndcg_m(gain='exponential')@10``.

    Built from any spelling, it is stored canonically (see the module doc): ``cutoff`` is None
    for full depth; ``params`` holds the non-default values, sorted by name.
    """

    name: str
    cutoff: int | None
    params: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        key = str(self.name).lower()
        if key not in REGISTRY:
            raise MeasureError(f"unknown measure {self.name!r}; known: {', '.join(REGISTRY)}")
        definition = REGISTRY[key]
        cutoff = self.cutoff
        if cutoff is None:
            if not definition.full_depth:
                raise MeasureError(f"{key} needs a cutoff: write {key}@10 (only "
                                   f"{', '.join(n for n, d in REGISTRY.items() if d.full_depth)}"
                                   " may go without one)")
        elif isinstance(cutoff, bool) or not isinstance(cutoff, int | np.integer) or cutoff < 1:
            raise MeasureError(f"{key}: cutoff must be a positive integer; got {cutoff!r}")
        values: dict[str, Any] = {}
        for pname, raw in self.params:
            if pname not in definition.params:
                known = ", ".join(definition.params) or "none"
                raise MeasureError(f"{key}: unknown parameter {pname!r} (parameters: {known})")
            if pname in values:
                raise MeasureError(f"{key}: parameter {pname} is given twice")
            values[pname] = definition.params[pname].coerce(key, pname, raw)
        explicit = sorted((k, v) for k, v in values.items()
                          if v != definition.params[k].default)
        object.__setattr__(self, "name", key)
        object.__setattr__(self, "cutoff", None if cutoff is None else int(cutoff))
        object.__setattr__(self, "params", tuple(explicit))

    @property
    def definition(self) -> MeasureDef:
        return REGISTRY[self.name]

    def param(self, name: str) -> Any:
        """The parameter's value, or its declared default."""
        return dict(self.params).get(name, self.definition.params[name].default)

    def describe(self) -> str:
        """What the figure stands on, in words: ``ndcg@10: k=10, gain linear, discount log2``;
        ``ndcg: full depth (every ranked doc and label), ...``; every parameter shown, defaults
        included (``p@10: k=10, rel 1``; ``rbo@10: k=10, p 0.9``)."""
        depth = ("full depth (every ranked doc and label)" if self.cutoff is None
                 else f"k={self.cutoff}")
        values = [f"{name} {_format(self.param(name)).strip(chr(39))}"
                  for name in self.definition.params if self.param(name) is not None]
        if self.definition.needs_max_grade and self.param("max_grade") is None:
            values.append("max_grade from the scale")
        return f"{self}: {', '.join([depth, *values])}"

    def __str__(self) -> str:
        args = ",".join(f"{k}={_format(v)}" for k, v in self.params)
        text = f"{self.name}({args})" if args else self.name
        return text if self.cutoff is None else f"{text}@{self.cutoff}"

    __repr__ = __str__


def _format(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return repr(value)


_PATTERN = re.compile(
    r"^\s*(?P<name>[a-z_]+)\s*(?:\((?P<args>[^)]*)\))?\s*(?:@\s*(?P<k>\S+))?\s*$",
    re.IGNORECASE)


def make_measure(name: str, cutoff: int | None, **params: Any) -> Measure:
    """Build and check a measure from Python values (``cutoff=None``: full depth)."""
    return Measure(name, cutoff, tuple(params.items()))


def parse_measure(text: str | Measure) -> Measure:
    """Parse ``ndcg_m(gain='exponential', max_grade=3)@10`` into a :class:`Measure`."""
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise MeasureError(f"a measure is a name like ndcg@10; got {type(text).__name__}")
    match = _PATTERN.match(text)
    if not match:
        raise MeasureError(f"cannot read measure {text!r}: expected name@k or "
                           "name(param=value)@k")
    cutoff = None
    if match["k"] is not None:
        try:
            cutoff = int(match["k"])
        except ValueError:
            raise MeasureError(f"{text!r}: the cutoff after @ must be a whole number") from None
    params: list[tuple[str, str]] = []
    for part in filter(None, (a.strip() for a in (match["args"] or "").split(","))):
        if "=" not in part:
            raise MeasureError(f"{text!r}: parameter {part!r} must be written name=value")
        pname, raw = (x.strip() for x in part.split("=", 1))
        params.append((pname, raw.strip("'\"")))
    return Measure(match["name"], cutoff, tuple(params))


def parse_measures(texts: str | list[str | Measure] | tuple[str | Measure, ...]) -> list[Measure]:
    """Parse several measures; a single string may list them separated by spaces."""
    if isinstance(texts, str):
        texts = re.findall(r"[^\s(@]+(?:\([^)]*\))?(?:@\S+)?|\S+", texts)
    measures = [parse_measure(t) for t in texts]
    if not measures:
        raise MeasureError("no measure given")
    return measures
