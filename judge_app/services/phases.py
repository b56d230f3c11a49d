"""Telling a progress display which phase a long job is in (``reading``, ``storing``).

A job that reads a file and then writes it in one transaction (an import, a click log) takes
an optional :data:`Progress` callback and calls :func:`say` at each phase; the CLI prints the
phase on stderr, a page shows it in a status box.
"""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str], None]
"""Called with the name of the phase that starts."""


def say(progress: Progress | None, phase: str) -> None:
    """Tell ``progress`` (when there is one) that ``phase`` starts."""
    if progress is not None:
        progress(phase)


__all__ = ["Progress", "say"]
