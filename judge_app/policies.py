"""The policies a user picks by name: how labels combine, and what an import does with a
(query, doc) that is judged twice.  Declared once; the CLI's choices, the pages' selects, the
store and the importers all read them from here."""

from __future__ import annotations

from enum import StrEnum


class LabelPolicy(StrEnum):
    """How expert labels and dataset judgments combine into the filled label set.

    * ``median`` (default): the lower median of each judge's latest grade overrides the
      dataset's grade (lower median: an actual grade on the ordinal scale, never x.5).
    * ``latest``: the most recent expert grade of any judge overrides the dataset's grade.
    * ``dataset_first``: the dataset's grade stands; expert labels (lower median) only fill
      the (query, doc) pairs the dataset did not judge.
    """

    MEDIAN = "median"
    LATEST = "latest"
    DATASET_FIRST = "dataset_first"


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
