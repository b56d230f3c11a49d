"""How the decision narrowed as labels and votes arrived: the dashboard's chart (issue 22).

:func:`decision_history` replays the dataset's expert label history and the pair's vote
history at evenly spaced cut times and decides at each cut, as
:func:`judge_app.services.decision_state.decision_state` decides now:

* the first point stands on the dataset's judgments alone (no expert label, no vote yet),
  drawn at the first event's time;
* then up to ``points - 1`` cut times (``points`` between 2 and :data:`MAX_POINTS`) evenly
  spaced through the arrivals: the times of the 1st, ..., N-th label or vote at evenly spaced
  ranks (:func:`cut_times`), so a burst of judging gets as many points as its share of the
  judgments; the last cut is the latest event, so the last point stands on everything the
  store holds; a cut that adds no label reuses the decision before it, one that adds no
  vote the vote test before it;
* labels at a cut: the dataset's judgments (imported before judging, so present at every
  cut) with the experts' labels written up to the cut filling the gaps under policy
  ``median``: per (query, doc), each counted judge's latest grade by then (the expert witness,
  judges excluded now left out), their lower median overriding the dataset's grade — the
  ``filled_labels`` view's rule.  A withdrawn label is left out of every cut (the store keeps
  no time for a withdrawal), and judge weights are taken as 1;
* votes at a cut: the pair's counted votes (not retracted, not stale, no excluded judge's)
  cast up to the cut, in the order cast (:func:`metrics.sequential.sequential_votes`).

Each point: when (``at``), labels and votes so far, the labels' expected mean Δ with its
certain bounds (``lower``, ``upper``), the probable band (expected ± z·label_sd at the
confidence), P(B better), the verdict, and the votes' always-valid interval for
P(B preferred) (``votes_low``, ``votes_high``) with their verdict.  An empty frame when there
is no label and no vote.  Reads the store; writes nothing.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import special

from judge_app.policies import Witness, witness_of
from judge_app.services.decision import tops
from judge_app.store import Dataset, Store
from metrics.decision import Decision, decide, measure_spec
from metrics.sequential import SequentialWinRate, sequential_votes

MAX_POINTS = 50
DEFAULT_POINTS = 24
COLUMNS = ["at", "labels", "votes", "expected", "lower", "upper", "probable_low",
           "probable_high", "p_b_better", "verdict", "votes_low", "votes_high", "votes_rate",
           "votes_verdict"]


def cut_times(times: pd.Series, points: int = MAX_POINTS) -> list[pd.Timestamp]:
    """The times of the events at ``min(points, len(times))`` evenly spaced arrival ranks,
    from the first event to the last (rank i: the i-th event in time order), once each."""
    if not 1 <= points <= MAX_POINTS:
        raise ValueError(f"points must be between 1 and {MAX_POINTS}; got {points!r}")
    ordered = pd.Series(pd.to_datetime(times, utc=True)).sort_values().reset_index(drop=True)
    if ordered.empty:
        return []
    ranks = np.unique(np.rint(np.linspace(0, len(ordered) - 1, min(points, len(ordered))))
                      .astype(int))
    return list(dict.fromkeys(ordered.iloc[ranks]))


def _expert_history(store: Store, dataset: Dataset) -> pd.DataFrame:
    """The counted experts' labels, oldest first: query_id, doc_id, judge, grade, at.  The
    history names an unverified judge "NAME (unverified)"; an excluded judge is left out
    under either name."""
    history = store.expert_label_history(dataset)
    excluded = set(store.excluded_judges(dataset))
    shown_excluded = excluded | {f"{name} (unverified)" for name in excluded}
    keep = (~history["withdrawn"].astype(bool)
            & history["judge"].map(lambda j: witness_of(str(j)) is Witness.EXPERT).astype(bool)
            & ~history["judge"].isin(shown_excluded))
    out = history.loc[keep, ["query_id", "doc_id", "judge", "grade", "created_at"]]
    return out.rename(columns={"created_at": "at"}).assign(
        at=lambda f: pd.to_datetime(f["at"], utc=True)).reset_index(drop=True)


def labels_at(judgments: pd.DataFrame, experts: pd.DataFrame) -> pd.DataFrame:
    """The filled labels (query_id, doc_id, grade) from the dataset's ``judgments`` and the
    ``experts``' labels (query_id, doc_id, judge, grade, oldest first): each judge's latest
    grade per (query, doc), their lower median overriding the dataset's grade."""
    base = judgments[["query_id", "doc_id", "grade"]]
    if experts.empty:
        return base.reset_index(drop=True)
    key = ["query_id", "doc_id"]
    latest = (experts.drop_duplicates([*key, "judge"], keep="last")
              .sort_values([*key, "grade"], kind="stable"))
    groups = latest.groupby(key, sort=False)["grade"]
    lower = latest[groups.cumcount().to_numpy() == (groups.transform("size").to_numpy() - 1) // 2]
    return (pd.concat([lower[[*key, "grade"]], base], ignore_index=True)
            .drop_duplicates(key, keep="first").reset_index(drop=True))


def decision_history(store: Store, dataset: Dataset, run_a: str, run_b: str, measure: str,
                     confidence: float = 0.95, points: int = DEFAULT_POINTS
                     ) -> pd.DataFrame:
    """The decision at evenly spaced cuts through the label and vote history (module doc)."""
    if not 2 <= points <= MAX_POINTS:
        raise ValueError(f"points must be between 2 and {MAX_POINTS}; got {points!r}")
    spec = measure_spec(measure, dataset.scale)
    top_a, top_b = tops(store, dataset, run_a, run_b, spec.k)
    experts = _expert_history(store, dataset)
    votes = store.preferences(dataset, run_a, run_b)
    votes = votes[~votes["stale"].astype(bool) & ~votes["excluded"].astype(bool)]
    if "retracted" in votes:
        votes = votes[~votes["retracted"].astype(bool)]
    votes = votes.assign(at=pd.to_datetime(votes["created_at"], utc=True)).reset_index(drop=True)
    cuts = cut_times(pd.concat([experts["at"], votes["at"]], ignore_index=True), points - 1)
    if not cuts:
        return pd.DataFrame(columns=COLUMNS)
    judgments = store.judgments(dataset)
    z = float(special.ndtri(0.5 + confidence / 2.0))
    rows: list[dict[str, object]] = []
    decisions: dict[int, Decision] = {}  # labels so far -> the decision on them
    tests: dict[int, SequentialWinRate] = {}  # votes so far -> their test
    start = pd.Timestamp.min.tz_localize("UTC")  # before the first label or vote
    for at in [start, *cuts]:
        known, cast = experts[experts["at"] <= at], votes[votes["at"] <= at]
        if len(known) not in decisions:
            decisions[len(known)] = decide(top_a, top_b, labels_at(judgments, known),
                                           measure, max_grade=dataset.scale,
                                           confidence=confidence)
        if len(cast) not in tests:
            tests[len(cast)] = sequential_votes(cast.reset_index(drop=True), confidence)
        d, v = decisions[len(known)], tests[len(cast)]
        rows.append({"at": cuts[0] if at is start else at, "labels": len(known),
                     "votes": len(cast), "expected": d.expected, "lower": d.lower,
                     "upper": d.upper, "probable_low": d.expected - z * d.label_sd,
                     "probable_high": d.expected + z * d.label_sd,
                     "p_b_better": d.p_b_better, "verdict": d.verdict.label,
                     "votes_low": v.low, "votes_high": v.high,
                     "votes_rate": v.rate if np.isfinite(v.rate) else None,
                     "votes_verdict": v.description})
    return pd.DataFrame(rows, columns=COLUMNS)

