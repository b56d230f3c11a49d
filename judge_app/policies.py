"""The policies a user picks by name: how labels combine, which witnesses count, and what an
import does with a (query, doc) that is judged twice.  Declared once; the CLI's choices, the
pages' selects, the store and the importers all read them from here."""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from enum import StrEnum


class LabelPolicy(StrEnum):
    """How expert labels and dataset judgments combine into the filled label set.

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
