"""The project's exceptions: each names the situation, and its message is one line a user can
act on (the CLI prints it as is, the app shows it with ``st.error``)."""

from __future__ import annotations

from metrics.errors import SxsError  # the root lives in the bottom layer (metrics)

__all__ = ["ConflictError", "InputError", "NotFound", "SchemaTooNew", "StoreLocked", "SxsError"]


class StoreLocked(SxsError):
    """Another process has the store file open for writing."""


class SchemaTooNew(SxsError):
    """The store was written by a newer sxs than this one."""


class NotFound(SxsError):
    """A dataset, run or query that the store does not have."""


class InputError(SxsError):
    """Bad input: the message names the file, line and field at fault."""

    def __init__(self, source: str, reason: str, line: int | None = None,
                 field: str | None = None) -> None:
        self.source = source
        self.line = line
        self.field = field
        self.reason = reason
        where = source
        if line is not None:
            where += f", line {line}"
        if field is not None:
            where += f", field {field}"
        super().__init__(f"{where}: {reason}")


class ConflictError(InputError):
    """The same (query, doc) is judged twice with different grades."""
