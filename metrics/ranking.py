"""Rankings and judgments of one query: validation, ordering by score, and grade look-up.

A *ranking* is a sequence of doc ids, rank 1 first.  *Judgments* map doc id -> grade; a doc id
absent from the mapping is **unlabelled**.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence

import numpy as np

from metrics.errors import DuplicateDocError, GradeError

DocId = Hashable
Judgments = Mapping[DocId, float]


def check_unique(ranking: Sequence[DocId], query_id: Hashable | None = None) -> None:
    """Raise :class:`DuplicateDocError` naming the first repeated doc id, if any."""
    seen: dict[DocId, int] = {}
    for rank, doc in enumerate(ranking, start=1):
        if doc in seen:
            raise DuplicateDocError(doc, seen[doc], rank, query_id)
        seen[doc] = rank


def ranking_from_scores(scores: Mapping[DocId, float] | Iterable[tuple[DocId, float]]
                        ) -> list[DocId]:
    """Order doc ids by score descending, then doc id descending (trec_eval's rule).

    trec_eval breaks score ties by comparing doc ids as byte strings, larger first; for ``str``
    ids Python's ordering is the same (UTF-8 preserves code point order).
    """
    pairs = list(scores.items()) if isinstance(scores, Mapping) else list(scores)
    check_unique([doc for doc, _ in pairs])
    return [doc for doc, _ in sorted(pairs, key=lambda pair: (pair[1], pair[0]), reverse=True)]


def grades_in_rank_order(ranking: Sequence[DocId], judgments: Judgments) -> np.ndarray:
    """Grades of the ranked docs as floats, NaN where a doc is unlabelled.

    Raises :class:`DuplicateDocError` for a repeated doc id.
    """
    check_unique(ranking)
    grades = np.array([judgments.get(doc, np.nan) for doc in ranking], dtype=float)
    return grades.reshape(1, -1)


def label_grades(judgments: Judgments) -> np.ndarray:
    """All of a query's label grades as a 1-row float array (for its ideal ranking).

    Raises :class:`GradeError` naming the first grade that is not a finite number."""
    try:
        values = np.array(list(judgments.values()), dtype=float)
    except (TypeError, ValueError):
        values = None
    if values is not None and values.shape == (len(judgments),) and np.isfinite(values).all():
        return values.reshape(1, -1)
    return _checked_grades(judgments)  # one by one, to name the grade that is wrong


def _checked_grades(judgments: Judgments) -> np.ndarray:
    values = np.full((1, len(judgments)), np.nan)
    for i, (doc, grade) in enumerate(judgments.items()):
        try:
            values[0, i] = float(grade)
        except (TypeError, ValueError):
            raise GradeError(f"grade of doc {doc!r} is not a number: {grade!r}") from None
        if not np.isfinite(values[0, i]):
            raise GradeError(f"grade of doc {doc!r} is not a finite number: {grade!r}")
    return values
