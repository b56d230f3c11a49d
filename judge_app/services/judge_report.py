"""Per-judge quality over the store (``sxs judges report``): the figures of
:mod:`metrics.judge_quality` computed from a dataset's data, with the flags they raise and the
items each stands on.

The inputs, read from the store:

* **labels**: every judge's current label (withdrawn grades left out; every witness — an LLM
  judge is a judge too), with its time, for agreement with the leave-one-out consensus
  (Dawid-Skene over the other judges), gold accuracy and drift;
* **gold**: the dataset's graded gold items (:mod:`judge_app.services.gold`), matched to the
  judges' labels of the same (query, doc); and its gold pairs, matched to the judges' current
  votes on the same query and pair of runs — ``gold_pairs`` of them decided (left or right),
  ``gold_pair_agree`` the share preferring the expected run, with a Wilson interval;
* **votes**: the current votes of every pair of runs, with the side each was shown on, for
  side bias (blind votes only) and speed (each vote's time spent, when recorded).

Excluded judges are reported like the others (their figures are why they were excluded), with
``excluded`` true.  Thresholds are :class:`metrics.judge_quality.Thresholds` (the speed floor
settable).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from judge_app.store import Dataset, Store
from metrics.judge_quality import Thresholds, flags, judge_quality, wilson_interval
from metrics.votes import Choice

PAIR_COLUMNS = ("gold_pairs", "gold_pair_agree", "gold_pair_agree_low", "gold_pair_agree_high")


def _pair_accuracy(votes: pd.DataFrame, pairs: pd.DataFrame, confidence: float
                   ) -> pd.DataFrame:
    """Per judge with a decided vote on a gold pair: PAIR_COLUMNS."""
    decided = votes[votes["choice"].isin([Choice.LEFT.value, Choice.RIGHT.value])]
    ordered = decided.assign(run_1=np.minimum(decided["run_a"], decided["run_b"]),
                             run_2=np.maximum(decided["run_a"], decided["run_b"]))
    matched = ordered.merge(pairs[["query_id", "run_1", "run_2", "preferred_run"]]
                            .rename(columns={"preferred_run": "expected"}),
                            on=["query_id", "run_1", "run_2"])
    rows = {}
    for judge, group in matched.groupby("judge", sort=True):
        agree = int((group["preferred_run"] == group["expected"]).sum())
        low, high = wilson_interval(agree, len(group), confidence)
        rows[judge] = {"gold_pairs": len(group), "gold_pair_agree": agree / len(group),
                       "gold_pair_agree_low": float(low), "gold_pair_agree_high": float(high)}
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(PAIR_COLUMNS))
    frame.index.name = "judge"
    return frame


def judge_report(store: Store, dataset: Dataset, floor_seconds: float | None = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(figures, flags) for ``dataset``: one row per judge with every figure of
    :func:`metrics.judge_quality.judge_quality`, the gold-pair columns, ``excluded`` and
    ``flags`` (the names of the flags raised, comma-separated); and the flags one row each
    (judge, flag, figure, value, threshold, items)."""
    thresholds = Thresholds() if floor_seconds is None else replace(
        Thresholds(), floor_seconds=floor_seconds)
    labels = store.current_expert_labels(dataset)[["query_id", "doc_id", "judge", "grade",
                                                    "created_at"]]
    gold = store.gold_grades(dataset)[["query_id", "doc_id", "grade"]]
    votes = store.preferences(dataset)
    quality = judge_quality(
        labels, gold=gold if len(gold) else None,
        votes=votes[["judge", "choice", "blind"]] if len(votes) else None,
        timings=votes[["judge", "ms_spent"]] if len(votes) else None, thresholds=thresholds)
    pairs = store.gold_pairs(dataset)
    if len(pairs) and len(votes):
        quality = quality.join(_pair_accuracy(votes, pairs, thresholds.confidence),
                               how="outer")
    raised = flags(quality, thresholds)
    excluded = set(store.excluded_judges(dataset))
    shown = {name: name.removesuffix(" (unverified)") for name in quality.index}
    quality["excluded"] = [shown[name] in excluded for name in quality.index]
    quality["flags"] = [", ".join(raised.loc[raised["judge"] == name, "flag"])
                        for name in quality.index]
    return quality.rename_axis("judge"), raised
