"""Small stores for the decision's tests where the answer is known (issue 22)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judge_app.store import Store
from metrics.scale import CRANFIELD

QUERIES = 30


def runs(guarded_doc: bool = False) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Run A: q_i's docs d_i_0 .. d_i_9 in order; run B: the same with the first two swapped.
    ``guarded_doc``: q0's last doc id starts with '=' (a spreadsheet formula)."""
    a, b = [], []
    for i in range(QUERIES):
        docs = [f"d{i}_{j}" for j in range(10)]
        if guarded_doc and i == 0:
            docs[-1] = "=cmd"
        a += [(f"q{i}", doc, rank) for rank, doc in enumerate(docs, 1)]
        b += [(f"q{i}", doc, rank) for rank, doc in enumerate([docs[1], docs[0], *docs[2:]], 1)]
    return tuple(pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"]) for rows in (a, b))


def toy_store(path: Path, guarded_doc: bool = False) -> Path:
    """A store with dataset 'toy' (Cranfield's 0-4 scale) and runs 'a' and 'b', no label."""
    with Store(path, create=True) as store:
        dataset = store.create_dataset("toy", CRANFIELD)
        for name, run in zip(("a", "b"), runs(guarded_doc), strict=True):
            store.put_run(dataset, name, run.assign(score=float("nan"),
                                                    line=range(1, len(run) + 1)),
                          name, trust_rank=True)
    return path


def judge_everything(path: Path) -> None:
    """Grade every pool pair: B's first doc (d_i_1) is 4, every other doc 0."""
    rows = [(f"q{i}", f"d{i}_{j}", 4 if j == 1 else 0) for i in range(QUERIES)
            for j in range(10)]
    with Store(path) as store:
        store.put_judgments(store.dataset("toy"),
                            pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"]), "test")
