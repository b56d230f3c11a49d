"""The side-by-side vote vocabulary: what a judge (human or LLM) can answer for a query.

A vote is cast on screen positions — the left or the right list — and read back as a
preference between two runs with the side assignment stored beside it.  Adding a choice is one
line here; the store's check, the pages' buttons, the agreement statistics and the LLM judge
all import this.
"""

from __future__ import annotations

import hashlib
import random
from enum import StrEnum


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


def left_run_for(judge: str, query_id: str, run_a: str, run_b: str, blind: bool = True) -> str:
    """Which run goes on the left: run A when not blind, else a coin flip seeded by
    (judge, query, run A, run B) — a reload shows the same sides, different judges see
    different sides, and the human and LLM judges draw the same way."""
    if not blind:
        return run_a
    seed = hashlib.sha256(f"{judge}\x1f{query_id}\x1f{run_a}\x1f{run_b}".encode()).digest()
    return run_a if random.Random(seed).random() < 0.5 else run_b
