"""Simulated judges of known behaviour, for the judge-quality and consensus tests.

A round on the ESCI scale (0-3): items of a known true grade (35/30/20/15%), the first
``n_gold`` of them gold; every judge grades every gold item, and each other item is graded by
``per_item`` judges drawn at random.  Each judge also casts ``n_votes`` blind votes, each
timed.  The behaviours:

* ``careful-*``: the true grade 80% of the time, else a neighbouring grade; votes left or
  right 42% each, "about the same" 10%, "both bad" 6%; about 9 s a judgment;
* ``random``: any grade, any vote, uniformly (about 9 s);
* ``always-left``: grades carefully, always votes "left better";
* ``one-high``: the true grade plus one (capped at 3); votes carefully;
* ``too-fast``: grades and votes carefully in about 0.9 s.

Labels carry ``created_at``: each judge's labels one minute apart, in a random order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.votes import Choice

GRADES = 4
CAREFUL = ("careful-1", "careful-2", "careful-3")
JUDGES = ("random", "always-left", "one-high", "too-fast", *CAREFUL)
VOTE_SHARES = {Choice.LEFT: 0.42, Choice.RIGHT: 0.42, Choice.TIE: 0.10, Choice.BOTH_BAD: 0.06}


@dataclass(frozen=True)
class Round:
    truth: pd.Series  # (query_id, doc_id) -> true grade
    labels: pd.DataFrame  # query_id, doc_id, judge, grade, created_at
    gold: pd.DataFrame  # query_id, doc_id, grade
    votes: pd.DataFrame  # judge, choice, blind, ms_spent


def careful_grade(rng: np.random.Generator, truth: int) -> int:
    if rng.random() < 0.8:
        return truth
    return int(np.clip(truth + rng.choice([-1, 1]), 0, GRADES - 1))


def grade(rng: np.random.Generator, judge: str, truth: int) -> int:
    if judge == "random":
        return int(rng.integers(0, GRADES))
    if judge == "one-high":
        return min(truth + 1, GRADES - 1)
    return careful_grade(rng, truth)


def vote(rng: np.random.Generator, judge: str) -> str:
    if judge == "always-left":
        return Choice.LEFT.value
    if judge == "random":
        return str(rng.choice([c.value for c in Choice]))
    return str(rng.choice([c.value for c in VOTE_SHARES], p=list(VOTE_SHARES.values())))


def simulate(seed: int = 23, n_items: int = 240, n_gold: int = 40, per_item: int = 3,
             n_votes: int = 60) -> Round:
    rng = np.random.default_rng(seed)
    keys = pd.MultiIndex.from_tuples([(f"q{i // 8:02d}", f"d{i:03d}") for i in range(n_items)],
                                     names=["query_id", "doc_id"])
    truth = pd.Series(rng.choice(GRADES, size=n_items, p=[0.35, 0.30, 0.20, 0.15]),
                      index=keys, name="grade")
    graders = [list(JUDGES) if i < n_gold else
               list(rng.choice(JUDGES, size=per_item, replace=False)) for i in range(n_items)]
    rows = [(q, d, judge, grade(rng, judge, int(truth.iloc[i])))
            for i, (q, d) in enumerate(keys) for judge in graders[i]]
    labels = pd.DataFrame(rows, columns=["query_id", "doc_id", "judge", "grade"])
    start = pd.Timestamp("2026-01-05 09:00", tz="UTC")
    order = labels.groupby("judge")["grade"].transform(
        lambda g: rng.permutation(len(g))).to_numpy()
    labels["created_at"] = start + pd.to_timedelta(order, unit="min")
    gold = truth.iloc[:n_gold].reset_index()
    votes = pd.DataFrame(
        [(judge, vote(rng, judge), True,
          int(rng.lognormal(np.log(900 if judge == "too-fast" else 9000), 0.4)))
         for judge in JUDGES for _ in range(n_votes)],
        columns=["judge", "choice", "blind", "ms_spent"])
    return Round(truth, labels, gold, votes)
