"""Grade scales: the ordered, named grades a dataset is judged on.

ESCI is ``0 Irrelevant, 1 Complement, 2 Substitute, 3 Exact``; WANDS ``0 Irrelevant,
1 Partial, 2 Exact``.  The maximum grade (NDCG-m's ideal, graded precision's denominator) is
derived from the scale, never typed separately.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from metrics.errors import GradeError


@dataclass(frozen=True)
class GradeScale:
    """An ordered set of integer grades, each with a name, lowest first."""

    grades: tuple[tuple[int, str], ...]

    def __post_init__(self) -> None:
        if not self.grades:
            raise GradeError("a grade scale needs at least one grade")
        values = [value for value, _ in self.grades]
        names = [name for _, name in self.grades]
        if values != sorted(set(values)):
            raise GradeError(f"grade values must be distinct and ascending; got {values}")
        folded = [name.strip().casefold() for name in names]
        if any(not name for name in folded) or len(set(folded)) != len(folded):
            raise GradeError(f"grade names must be non-empty and distinct; got {names}")

    @classmethod
    def from_mapping(cls, grades: Mapping[int, str] | Iterable[tuple[int, str]]) -> GradeScale:
        """Build a scale from ``{value: name}`` or ``[(value, name), ...]`` in any order."""
        pairs = grades.items() if isinstance(grades, Mapping) else grades
        return cls(tuple(sorted((_whole(value, name), str(name)) for value, name in pairs)))

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(value for value, _ in self.grades)

    @property
    def max_grade(self) -> int:
        return self.grades[-1][0]

    def name_of(self, value: int) -> str:
        """The name of a grade value; :class:`GradeError` if the value is not on the scale."""
        for grade, name in self.grades:
            if grade == value:
                return name
        raise GradeError(f"grade {value!r} is not on the scale {self.describe()}")

    def describe(self) -> str:
        """``0 Irrelevant, 1 Partial, 2 Exact``."""
        return ", ".join(f"{value} {name}" for value, name in self.grades)


def _whole(value: object, name: object) -> int:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        number = float("nan")
    if isinstance(value, bool) or not number.is_integer():
        raise GradeError(f"grade {name!r}: value {value!r} is not a whole number")
    return int(number)


ESCI = GradeScale.from_mapping({0: "Irrelevant", 1: "Complement", 2: "Substitute", 3: "Exact"})
WANDS = GradeScale.from_mapping({0: "Irrelevant", 1: "Partial", 2: "Exact"})
BINARY = GradeScale.from_mapping({0: "Not relevant", 1: "Relevant"})
CRANFIELD = GradeScale.from_mapping({0: "No interest", 1: "Minimum interest", 2: "Useful",
                                     3: "High relevance", 4: "Complete answer"})

NAMED_SCALES: dict[str, GradeScale] = {
    "esci": ESCI, "wands": WANDS, "binary": BINARY, "cranfield": CRANFIELD}
"""The scales known by name: the one list the CLI, the app and the importers use (adding a
scale is one line here)."""


def parse_scale(text: str) -> GradeScale:
    """A scale by name (see :data:`NAMED_SCALES`) or written out as ``0=Bad,1=Fair,2=Good``.

    Raises :class:`~metrics.errors.MetricsError` for anything else.
    """
    named = NAMED_SCALES.get(text.strip().lower())
    if named is not None:
        return named
    try:
        pairs = [part.split("=", 1) for part in text.split(",")]
        return GradeScale.from_mapping({int(v): n.strip() for v, n in pairs})
    except (ValueError, TypeError):
        raise GradeError(f"cannot read scale {text!r}: name one of {', '.join(NAMED_SCALES)} "
                           "or write 0=Bad,1=Good,...") from None
