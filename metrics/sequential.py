"""The experts' win rate of B over A, watched after every vote: an always-valid test.

Peeking at an ordinary binomial test after each vote and stopping when p < 0.05 finds a
"winner" far more often than 5% of the time when the two runs are alike (optional stopping).
This module's test stays valid however often it is looked at.

Method: the beta-binomial mixture martingale (Robbins, "Statistical methods related to the law
of the iterated logarithm", Ann. Math. Statist. 41, 1970; the conjugate-mixture confidence
sequences of Howard, Ramdas, McAuliffe & Sekhon, "Time-uniform, nonparametric, nonasymptotic
confidence sequences", Ann. Statist. 49(2), 2021).  With S votes for B and F for A so far
(n = S + F) and a Beta(a, a) mixing prior (``prior`` = a, default 1: uniform),

    M_n(p) = B(a + S, a + F) / B(a, a) / (p^S (1 - p)^F)

is, for the true preference rate p, a non-negative martingale with mean 1, so by Ville's
inequality P(M_n(p) >= 1/alpha for some n) <= alpha.  Hence:

* the **confidence sequence** C_n = {p : M_n(p) < 1/alpha} covers p at every n at once with
  probability >= 1 - alpha (c = 1 - alpha the confidence); it is an interval (log M_n(p) is
  convex in p), found by bisection on each side of S/n;
* **decided: experts prefer B** (or A) when C_n excludes 1/2, i.e. M_n(1/2) >= 1/alpha (the
  e-value against "no preference" ``log_e`` = log M_n(1/2) >= log(1/alpha)), on the side of the
  wins.  Under "no preference" this happens at any time, ever, with probability <= alpha.

Ties: a vote "about the same" or "both bad" says nothing about which run is better; such votes
are counted and left out (n counts the votes for B or A only), as the sign test of
:func:`metrics.agreement.win_rate` does.  The votes are taken in the order given (their
arrival order).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from metrics.agreement import vote_for_b
from metrics.decision import Verdict
from metrics.errors import ArgumentError

_BISECTIONS = 60


@dataclass(frozen=True)
class SequentialWinRate:
    """Where the always-valid test of the experts' preference stands after the last vote."""

    wins_b: int
    wins_a: int
    ties: int  # "about the same" and "both bad": left out of the test
    rate: float  # wins_b / (wins_a + wins_b); NaN with no vote for either
    low: float  # the confidence sequence for P(B preferred | a preference), now
    high: float
    log_e: float  # log M_n(1/2): the evidence against "no preference"
    confidence: float
    verdict: Verdict  # B_BETTER, A_BETTER or UNDECIDED

    @property
    def description(self) -> str:
        if self.verdict is Verdict.B_BETTER:
            return "decided: experts prefer B"
        if self.verdict is Verdict.A_BETTER:
            return "decided: experts prefer A"
        return "undecided"


def _check(confidence: float, prior: float) -> float:
    if isinstance(confidence, bool) or not (
            isinstance(confidence, float | int) and 0.0 < confidence < 1.0):
        raise ArgumentError(f"confidence must be strictly between 0 and 1; got {confidence!r}")
    if isinstance(prior, bool) or not (isinstance(prior, float | int) and np.isfinite(prior)
                                       and prior > 0):
        raise ArgumentError(f"prior must be a positive number; got {prior!r}")
    return float(np.log(1.0 / (1.0 - confidence)))


def _outcomes(outcomes: np.ndarray | pd.Series | list[int]) -> np.ndarray:
    values = np.asarray(outcomes)
    if values.ndim != 1 or not np.isin(values, (-1, 0, 1)).all():
        raise ArgumentError("votes must be a sequence of +1 (B preferred), -1 (A preferred) "
                            "and 0 (tie or both bad)")
    return values.astype(np.int64)


def log_mixture(wins_b: np.ndarray, wins_a: np.ndarray, p: np.ndarray | float,
                prior: float = 1.0) -> np.ndarray:
    """log M_n(p) (module doc), elementwise; p in (0, 1), or 0/1 where no win contradicts it."""
    s, f = np.asarray(wins_b, dtype=float), np.asarray(wins_a, dtype=float)
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        likelihood = special.xlogy(s, p) + special.xlog1py(f, -p)
    return special.betaln(prior + s, prior + f) - special.betaln(prior, prior) - likelihood


def confidence_sequence(outcomes: np.ndarray | pd.Series | list[int],
                        confidence: float = 0.95, prior: float = 1.0) -> pd.DataFrame:
    """The test after every vote: one row per vote with votes (for B or A so far), wins_b,
    wins_a, ties, low, high (the confidence sequence) and log_e (log M_n(1/2)).

    ``outcomes``: +1 (B preferred), -1 (A preferred), 0 (tie or both bad), in arrival order
    (:func:`metrics.agreement.vote_for_b` gives them from a votes frame)."""
    threshold = _check(confidence, prior)
    values = _outcomes(outcomes)
    wins_b = np.cumsum(values == 1)
    wins_a = np.cumsum(values == -1)
    ties = np.cumsum(values == 0)
    log_e = log_mixture(wins_b, wins_a, 0.5, prior)
    low, high = _interval(wins_b, wins_a, threshold, prior)
    return pd.DataFrame({"votes": wins_b + wins_a, "wins_b": wins_b, "wins_a": wins_a,
                         "ties": ties, "low": low, "high": high, "log_e": log_e})


def _interval(wins_b: np.ndarray, wins_a: np.ndarray, threshold: float, prior: float
              ) -> tuple[np.ndarray, np.ndarray]:
    """{p : log M_n(p) < threshold} for each n, by bisection on each side of the rate
    (log M_n is convex in p with its minimum at S/n, where it is <= 0: the mixture's
    likelihood never exceeds the largest likelihood)."""
    n = wins_b + wins_a
    centre = np.where(n > 0, wins_b / np.maximum(n, 1), 0.5)
    bounds = []
    for edge in (0.0, 1.0):
        out, within = np.full(len(n), edge), centre.copy()
        closed = log_mixture(wins_b, wins_a, out, prior) < threshold
        for _ in range(_BISECTIONS):
            middle = (out + within) / 2.0
            keep = log_mixture(wins_b, wins_a, middle, prior) < threshold
            within = np.where(keep, middle, within)
            out = np.where(keep, out, middle)
        bounds.append(np.where(closed, edge, within))
    return bounds[0], bounds[1]


def sequential_win_rate(outcomes: np.ndarray | pd.Series | list[int],
                        confidence: float = 0.95, prior: float = 1.0) -> SequentialWinRate:
    """Where the always-valid test stands after the last of ``outcomes`` (module doc)."""
    threshold = _check(confidence, prior)
    values = _outcomes(outcomes)
    wins_b, wins_a = int((values == 1).sum()), int((values == -1).sum())
    ties = int((values == 0).sum())
    log_e = float(log_mixture(wins_b, wins_a, 0.5, prior))
    low, high = _interval(np.array([wins_b]), np.array([wins_a]), threshold, prior)
    verdict = Verdict.UNDECIDED
    if log_e >= threshold:
        verdict = Verdict.B_BETTER if wins_b > wins_a else Verdict.A_BETTER
    n = wins_b + wins_a
    return SequentialWinRate(wins_b, wins_a, ties, wins_b / n if n else float("nan"),
                             float(low[0]), float(high[0]), log_e, float(confidence), verdict)


def sequential_votes(votes: pd.DataFrame, confidence: float = 0.95, prior: float = 1.0
                     ) -> SequentialWinRate:
    """:func:`sequential_win_rate` of a votes frame (run_b, left_run, choice per row, in the
    order the votes were cast)."""
    return sequential_win_rate(vote_for_b(votes).to_numpy(), confidence, prior)
