"""The policies a user picks by name: how labels combine, which witnesses count, and what an
import does with a (query, doc) that is judged twice.  Declared once; the CLI's choices, the
pages' selects, the store and the importers all read them from here."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum


class LabelPolicy(StrEnum):
    """How expert labels and dataset judgments combine into the filled label set.  Whatever
    the policy, the set is named by what the experts' labels did (:class:`ExpertShare`):
    ``filled:<basis>`` when they only filled gaps, ``overridden:<basis>`` when any dataset
    grade was replaced by a different one.

    * ``median`` (default): the lower median of each judge's latest grade overrides the
      dataset's grade (lower median: an actual grade on the ordinal scale, never x.5).
    * ``latest``: the most recent expert grade of any judge overrides the dataset's grade.
    * ``dataset_first``: the dataset's grade stands; expert labels (lower median) only fill
      the (query, doc) pairs the dataset did not judge.
    * ``dawid-skene``: the Dawid-Skene consensus of the judges' latest grades (each judge's
      confusion matrix estimated from all their labels, :func:`metrics.consensus.dawid_skene`)
      overrides the dataset's grade; stored with each item's posterior confidence
      (:mod:`judge_app.services.consensus_labels`).
    """

    MEDIAN = "median"
    LATEST = "latest"
    DATASET_FIRST = "dataset_first"
    DAWID_SKENE = "dawid-skene"


class ConflictPolicy(StrEnum):
    """A (query, doc) judged with two different grades, in one file or against the store.

    * ``error`` (default): refuse the import, naming the pair;
    * ``max`` / ``min``: keep the larger / smaller grade;
    * ``last``: keep the incoming (or later) grade.
    """

    ERROR = "error"
    MAX = "max"
    MIN = "min"
    LAST = "last"


def choices(policy: type[StrEnum]) -> list[str]:
    """The values of a policy, for a CLI option or a select box."""
    return [p.value for p in policy]


class Witness(StrEnum):
    """Who said a label is what it is.  Experts are people (in the app, or their labels
    imported); the machine witnesses are stored as judges whose name carries their prefix
    (``clicks:coec``, ``llm:<model>``) and never count as experts unless a figure asks for
    them — and then it says so (its label basis, e.g. ``experts+llm``)."""

    EXPERT = "expert"
    CLICKS = "clicks"
    LLM = "llm"

    @property
    def prefix(self) -> str:
        """The judge-name prefix of a machine witness (``""`` for experts)."""
        return "" if self is Witness.EXPERT else f"{self.value}:"


MACHINE_WITNESSES: tuple[Witness, ...] = (Witness.CLICKS, Witness.LLM)


def witness_of(judge: str) -> Witness:
    """The witness a judge name belongs to (by its prefix)."""
    for witness in MACHINE_WITNESSES:
        if judge.startswith(witness.prefix):
            return witness
    return Witness.EXPERT


def label_basis(machines: Iterable[Witness | str] = ()) -> str:
    """The name of the label set experts plus the given machine witnesses make:
    ``experts``, ``experts+clicks``, ``experts+llm``, ``experts+clicks+llm``."""
    chosen = {Witness(m) for m in machines} - {Witness.EXPERT}
    return "+".join(["experts", *(w.value for w in MACHINE_WITNESSES if w in chosen)])


LABEL_BASES: tuple[str, ...] = tuple(
    label_basis(combo) for n in range(len(MACHINE_WITNESSES) + 1)
    for combo in itertools.combinations(MACHINE_WITNESSES, n))
"""Every label basis, experts alone first."""


FILLED_NAME, OVERRIDDEN_NAME = "filled", "overridden"
"""The two names a label set the experts' labels went into can have (:class:`ExpertShare`)."""


@dataclass(frozen=True)
class ExpertShare:
    """What the labels of a basis did to the dataset's grades in one filled label set (a
    policy, a basis), counted over (query, doc) pairs:

    * ``filled``: pairs the dataset had not judged — no grade, or a negative one (trec_eval's
      "pooled, not judged") — that the basis graded: gaps filled;
    * ``overridden``: pairs whose dataset grade (>= 0) the basis's grade replaced with a
      different grade (policies ``median``, ``latest`` and ``dawid-skene``; never
      ``dataset_first``);
    * ``agreed``: pairs whose dataset grade the policy let the basis replace with the same
      grade (the figure is as if the dataset's grade stood).

    The set's :attr:`name` is ``overridden:<basis>`` as soon as one dataset grade was
    overridden, else ``filled:<basis>``, so an override is never read as a gap fill; and
    :meth:`describe` always gives the counts."""

    basis: str
    policy: str
    filled: int
    overridden: int
    agreed: int = 0

    @property
    def name(self) -> str:
        """``filled:<basis>`` or ``overridden:<basis>`` (class doc)."""
        kind = OVERRIDDEN_NAME if self.overridden else FILLED_NAME
        return f"{kind}:{self.basis}"

    @property
    def added(self) -> int:
        """Every label of the set that is the basis's rather than the dataset's."""
        return self.filled + self.overridden + self.agreed

    def describe(self) -> str:
        """``grades of experts filled 120 gaps; overrode 4,511 dataset grades (policy
        median)``, and ``; agreed with 12 more`` when the policy let them replace dataset
        grades with the same grade."""
        line = (f"grades of {self.basis} filled {_count(self.filled, 'gap')}; overrode "
                f"{_count(self.overridden, 'dataset grade')}")
        if self.agreed:
            line += f"; agreed with {self.agreed:,} more"
        return f"{line} (policy {LabelPolicy(self.policy).value})"


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


MISSING = "\N{EN DASH}"
"""How a missing value is shown on the dashboard, in the report and by ``sxs decide``."""
