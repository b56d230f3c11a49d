"""Random runs and qrels shaped like real ones: score ties, unlabelled docs, -1 grades."""

from __future__ import annotations

import numpy as np
import pandas as pd


def random_collection(seed: int, n_queries: int = 300, n_docs: int = 200, max_ranked: int = 40,
                      max_judged: int = 30) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run (query_id, doc_id, score with ties) and qrels (grades -1..3) as DataFrames."""
    rng = np.random.default_rng(seed)
    runs, qrels = [], []
    for q in range(n_queries):
        n = int(rng.integers(0, max_ranked))
        docs = rng.choice(n_docs, size=n, replace=False)
        scores = np.round(rng.normal(size=n), 1)  # one decimal: plenty of score ties
        runs += [(f"q{q}", f"d{d}", float(s)) for d, s in zip(docs, scores, strict=True)]
        judged = rng.choice(n_docs, size=int(rng.integers(0, max_judged)), replace=False)
        grades = rng.choice([-1, 0, 1, 2, 3], p=[0.05, 0.35, 0.3, 0.2, 0.1], size=len(judged))
        qrels += [(f"q{q}", f"d{d}", int(g)) for d, g in zip(judged, grades, strict=True)]
    run = pd.DataFrame(runs, columns=["query_id", "doc_id", "score"])
    return run, pd.DataFrame(qrels, columns=["query_id", "doc_id", "grade"])
