"""The metrics package's exceptions, and the root of every user-facing sxs failure.

``SxsError`` lives here, not in ``judge_app``, because ``metrics`` is the bottom layer and must
not import the app: ``judge_app.errors`` re-exports it.  Every error the metrics package raises
for bad input is a :class:`MetricsError` (also a ``ValueError``, so callers that catch
``ValueError`` keep working) and carries a one-line message naming what is at fault.
"""

from __future__ import annotations

from collections.abc import Hashable


class SxsError(Exception):
    """A problem the user can fix: bad input, a locked store, an unknown name."""


class MetricsError(SxsError, ValueError):
    """Bad input to the metrics package."""


class MeasureError(MetricsError):
    """A measure that cannot be read or built: unknown name, parameter, value or cutoff."""


class ArgumentError(MetricsError):
    """An argument outside its domain: k, gain, discount, p, a policy, unaligned arrays."""


class GradeError(MetricsError):
    """A grade or grade scale that cannot be used: not a number, above the maximum, unknown."""


class LayoutError(MetricsError):
    """A run or qrels frame that cannot be evaluated (missing column, bad rank or grade)."""


class DuplicateDocError(MetricsError):
    """A doc id appears twice in one ranking."""

    def __init__(self, doc_id: Hashable, first_rank: int, second_rank: int,
                 query_id: Hashable | None = None) -> None:
        self.doc_id = doc_id
        self.query_id = query_id
        where = f" of query {query_id!r}" if query_id is not None else ""
        super().__init__(
            f"doc {doc_id!r} appears twice in the ranking{where} "
            f"(ranks {first_rank} and {second_rank})"
        )
