"""The always-valid test of the experts' win rate: its error under "no preference" when
looked at after every vote (and the plain binomial test's, looked at the same way), its
coverage, its interval against brute force, ties, and the votes frame."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from metrics.decision import Verdict
from metrics.errors import ArgumentError
from metrics.sequential import (
    confidence_sequence,
    log_mixture,
    sequential_votes,
    sequential_win_rate,
)

RUNS, VOTES = 2000, 500


def _null_votes(seed: int) -> np.ndarray:
    """(RUNS, VOTES) outcomes with no preference: B or A with 40% each, a tie 20%."""
    return np.random.default_rng(seed).choice([1, -1, 0], p=[0.4, 0.4, 0.2],
                                              size=(RUNS, VOTES))


def _two_sided_binomial_p(wins_b: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The exact two-sided binomial test at 1/2 (scipy's binomtest for a symmetric null:
    twice the smaller tail, at most 1), elementwise."""
    low = stats.binom.cdf(wins_b, n, 0.5)
    high = stats.binom.sf(wins_b - 1, n, 0.5)
    return np.where(n > 0, np.minimum(1.0, 2.0 * np.minimum(low, high)), 1.0)


def test_binomial_helper_is_scipys_binomtest() -> None:
    for wins, n in [(0, 1), (3, 10), (7, 10), (50, 100), (61, 100), (5, 5)]:
        want = stats.binomtest(wins, n, 0.5).pvalue
        assert _two_sided_binomial_p(np.array(wins), np.array(n)) == pytest.approx(want)


def test_watching_after_every_vote_keeps_the_error_where_the_plain_test_does_not() -> None:
    """Under "no preference", checked after every one of 500 votes (ties mixed in): the
    mixture test ever says "decided" in <= 5% of 2,000 runs (Ville's inequality); the plain
    binomial test at p <= 0.05, checked the same way, says it far more often."""
    outcomes = _null_votes(11)
    wins_b = np.cumsum(outcomes == 1, axis=1)
    wins_a = np.cumsum(outcomes == -1, axis=1)
    ever_sequential = (log_mixture(wins_b, wins_a, 0.5) >= np.log(20)).any(axis=1).mean()
    ever_plain = (_two_sided_binomial_p(wins_b, wins_b + wins_a) <= 0.05).any(axis=1).mean()
    print(f"\nfalse 'decided' when checked after every vote ({RUNS} runs x {VOTES} votes): "
          f"sequential {ever_sequential:.1%}, plain binomial {ever_plain:.1%}")
    assert ever_sequential <= 0.05
    assert ever_plain > 0.15


def test_the_confidence_sequence_covers_the_rate_at_every_vote_at_once() -> None:
    rng = np.random.default_rng(12)
    runs, votes, rate = 300, 300, 0.7
    missed = 0
    for _ in range(runs):
        outcomes = np.where(rng.random(votes) < rate, 1, -1)
        sequence = confidence_sequence(outcomes)
        missed += bool(((sequence["low"] > rate) | (sequence["high"] < rate)).any())
    assert missed / runs <= 0.05


def test_the_interval_is_the_set_where_the_mixture_stays_below_one_over_alpha() -> None:
    """Brute force on a grid: every p inside has log M_n(p) < log 20, every p outside not."""
    found = sequential_win_rate([1] * 23 + [-1] * 9 + [0] * 4)
    grid = np.linspace(0.001, 0.999, 2000)
    inside = log_mixture(23, 9, grid) < np.log(20)
    assert grid[inside].min() == pytest.approx(found.low, abs=1e-3)
    assert grid[inside].max() == pytest.approx(found.high, abs=1e-3)
    assert found.low < 23 / 32 < found.high


def test_decided_when_the_sequence_excludes_one_half() -> None:
    strong = sequential_win_rate([1, 1, 1, -1] * 30)
    assert strong.verdict is Verdict.B_BETTER and strong.low > 0.5
    assert strong.description == "decided: experts prefer B"
    against = sequential_win_rate([-1, -1, -1, 1] * 30)
    assert against.verdict is Verdict.A_BETTER and against.high < 0.5
    few = sequential_win_rate([1, 1, 1, 1, 1])  # 5 of 5: a plain test says p = 0.06, and
    assert few.verdict is Verdict.UNDECIDED  # 5 votes cannot decide this one
    assert few.low < 0.5 < few.high
    assert np.isnan(sequential_win_rate([]).rate)


def test_ties_count_but_do_not_move_the_test() -> None:
    plain = sequential_win_rate([1, -1, 1, 1, -1, 1])
    tied = sequential_win_rate([1, 0, -1, 0, 1, 1, 0, -1, 1, 0])
    assert (tied.low, tied.high, tied.log_e) == (plain.low, plain.high, plain.log_e)
    assert tied.ties == 4 and plain.ties == 0


def test_votes_frame_reads_sides_as_agreement_does() -> None:
    votes = pd.DataFrame({"run_a": ["A"] * 4, "run_b": ["B"] * 4,
                          "left_run": ["B", "A", "B", "A"],
                          "choice": ["left", "right", "right", "tie"]})
    found = sequential_votes(votes)
    assert (found.wins_b, found.wins_a, found.ties) == (2, 1, 1)


def test_bad_input() -> None:
    with pytest.raises(ArgumentError, match="votes must be"):
        sequential_win_rate([1, 2])
    with pytest.raises(ArgumentError, match="confidence"):
        sequential_win_rate([1], confidence=1.0)
    with pytest.raises(ArgumentError, match="prior"):
        sequential_win_rate([1], prior=0)
