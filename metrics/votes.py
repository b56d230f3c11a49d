"""The side-by-side vote vocabulary: what a judge (human or LLM) can answer for a query.

A vote is cast on screen positions — the left or the right list — and read back as a
preference between two runs with the side assignment stored beside it: which run a choice
favours is said once, by :func:`preferred_run` (the store writes its answer in the
``preferred_run`` column; the agreement statistics, the LLM judge and its agreement tables read
it from there or from this function).  Adding a choice is one line here plus a migration for
the store's check; the pages' buttons, the agreement statistics and the LLM judge all import
this.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable
from enum import StrEnum

import pandas as pd

from metrics.errors import MetricsError


class Choice(StrEnum):
    """A judge's answer about the two lists shown (``value`` is what is stored)."""

    LEFT = "left"
    RIGHT = "right"
    TIE = "tie"
    BOTH_BAD = "both_bad"

    @property
    def label(self) -> str:
        """The button text a judge sees."""
        return _LABELS[self]


_LABELS = {Choice.LEFT: "Left better", Choice.RIGHT: "Right better",
           Choice.TIE: "About the same", Choice.BOTH_BAD: "Both bad"}

CHOICES: tuple[str, ...] = tuple(choice.value for choice in Choice)


def preferred_run(choice: str, left_run: str, right_run: str) -> str | None:
    """The run a vote favours: ``left_run`` for *left*, ``right_run`` for *right*, None for
    *tie* (about the same) and *both bad* — they favour neither run.

    ``choice`` is relative to the sides shown (``left_run`` on the left).  Raises
    :class:`MetricsError` for a choice not in :data:`CHOICES`."""
    if choice not in CHOICES:
        raise MetricsError(f"choice must be one of {', '.join(CHOICES)}; got {choice!r}")
    return {Choice.LEFT: left_run, Choice.RIGHT: right_run}.get(Choice(choice))


def preferred_runs(choices: Iterable[str], left_runs: Iterable[str],
                   right_runs: Iterable[str], index: pd.Index | None = None) -> pd.Series:
    """:func:`preferred_run` row by row (object dtype, None where a vote favours neither run;
    ``index`` for the result, default 0..n-1).  The three columns must have one length."""
    favoured = [preferred_run(choice, left, right)
                for choice, left, right in zip(choices, left_runs, right_runs, strict=True)]
    return pd.Series(favoured, index=index, dtype=object, name="preferred_run")


def left_run_for(judge: str, query_id: str, run_a: str, run_b: str, blind: bool = True) -> str:
    """Which run goes on the left: run A when not blind, else a coin flip seeded by
    (judge, query, run A, run B) — a reload shows the same sides, different judges see
    different sides, and the human and LLM judges draw the same way."""
    if not blind:
        return run_a
    seed = hashlib.sha256(f"{judge}\x1f{query_id}\x1f{run_a}\x1f{run_b}".encode()).digest()
    return run_a if random.Random(seed).random() < 0.5 else run_b
