"""Analysis over the store: the label set a figure stands on, and evaluating or comparing
stored runs.  The CLI's evaluate/compare, the dashboard and the check rules all read labels
through :func:`labels_for`, so they agree on what "the labels" are.
"""

from __future__ import annotations

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import LABEL_BASES, LabelPolicy
from judge_app.store import Dataset, Store
from metrics import Comparison, Evaluation, compare, evaluate


def labels_for(store: Store, dataset: Dataset, filled: bool,
               policy: LabelPolicy | str = LabelPolicy.MEDIAN,
               basis: str = LABEL_BASES[0]) -> pd.DataFrame:
    """The dataset's judgments, or the filled label set (the labels of ``basis`` — experts
    alone unless a machine witness is asked for — under ``policy``)."""
    if filled:
        return store.filled_judgments(dataset, policy, basis)[["query_id", "doc_id", "grade"]]
    return store.judgments(dataset)[["query_id", "doc_id", "grade"]]


def evaluate_run(store: Store, dataset: Dataset, run: str, measures: list[str],
                 filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                 basis: str = LABEL_BASES[0]) -> Evaluation:
    qrels = labels_for(store, dataset, filled, policy, basis)
    if qrels.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    return evaluate(store.run(dataset, run), qrels, measures, max_grade=dataset.scale)


def compare_runs(store: Store, dataset: Dataset, run_a: str, run_b: str, measures: list[str],
                 filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                 permutations: int = 10_000, seed: int = 0, basis: str = LABEL_BASES[0]
                 ) -> Comparison:
    qrels = labels_for(store, dataset, filled, policy, basis)
    if qrels.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    return compare(store.run(dataset, run_a), store.run(dataset, run_b), qrels, measures,
                   max_grade=dataset.scale, permutations=permutations, seed=seed)
