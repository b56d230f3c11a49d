"""Test helper: cast a vote the way the app does (a registered judge, a view, then the vote);
a store with a dataset and small runs to vote on."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pandas as pd

from judge_app.store import Dataset, Store
from metrics import ESCI


def ensure_runs(store: Store, dataset: Dataset, *names: str, queries=("q1", "q2")) -> None:
    """Give the dataset small runs of these names if it lacks them (views need real runs)."""
    have = set(store.run_names(dataset))
    for n, name in enumerate(names):
        if name in have:
            continue
        rows = [(q, f"{name}-d{r}" if r % 2 else f"d{r}", r) for q in queries
                for r in range(1, 4)]
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
        store.put_run(dataset, name, frame.assign(score=-frame["rank"] - n,
                                                  line=range(1, len(frame) + 1)), name)


def vote(store: Store, dataset: Dataset, query_id: str, run_a: str, run_b: str, left: str,
         choice: str, judge: str, k: int = 10, blind: bool = True, reason: str | None = None,
         overlap: int | None = None) -> bool:
    """Register ``judge`` (typed, unverified) if needed, draw a view, vote on it."""
    if judge not in set(store.judges()["name"]):
        store.typed_judge(judge)
    ensure_runs(store, dataset, run_a, run_b)
    issued = store.issue_view(dataset, query_id, run_a, run_b, left, k, judge, blind, overlap)
    assert issued is not None, f"{query_id} was not issued to {judge}"
    return store.cast_vote(dataset, issued.view_id, choice, judge, reason)


@contextmanager
def store_with_runs(address, *names: str) -> Iterator[Store]:
    """The store at ``address`` with an ESCI dataset ``d`` holding small runs ``names``."""
    with Store(address) as opened:
        ensure_runs(opened, opened.create_dataset("d", ESCI), *names)
        yield opened
