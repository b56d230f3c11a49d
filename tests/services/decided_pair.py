"""A tiny store where two grades decide the pair (issue 22's "stop when decided").

Dataset ``tiny`` (Cranfield's 0-4 scale), queries q0 .. q7, runs ``a`` and ``b`` at depth 2:
run A ranks an off-topic doc x_i first and the answer g_i second, run B the other way round.
q3 .. q7 are judged (g_i graded 2-4, x_i 0); q0 .. q2 are not.  On ndcg_m@2 at confidence
0.95 the pair is undecided; a judge grading q0's answer 4 (still undecided) and its off-topic
doc 0 decides it: B better.  The round (a vs b, top 2, one judge per query, not blind) stops
serving the pair once decided when ``stop`` is set.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judge_app.services import judging
from judge_app.store import Dataset, Store
from metrics.scale import CRANFIELD

DATASET = "tiny"
QUERIES = 8
UNJUDGED = 3
ANSWER_GRADES = [4, 3, 4, 2, 3, 4, 3, 4]
DECIDING = [("q0", "g0", 4), ("q0", "x0", 0)]
"""The grades that decide the pair, in order (after the first it is still undecided)."""


def tiny_store(path: Path | str, stop: bool = True, votes: int = 0,
               blind: bool = False) -> Path | str:
    """The store described in the module doc at ``path`` (a DuckDB file or a PostgreSQL
    address); with ``votes``, judge ``early`` voted B better on that many of the judged
    queries (q3, q4, ...) first; ``blind``: the round is blind."""
    a, b, judged, docs, queries = [], [], [], [], []
    for i in range(QUERIES):
        q, good, off = f"q{i}", f"g{i}", f"x{i}"
        a += [(q, off, 1), (q, good, 2)]
        b += [(q, good, 1), (q, off, 2)]
        queries.append((q, f"question {i}"))
        docs += [(good, f"The answer to question {i}"), (off, f"Off-topic page {i}")]
        if i >= UNJUDGED:
            judged += [(q, good, ANSWER_GRADES[i]), (q, off, 0)]
    with Store(path, create=True) as store:
        dataset = fill_store(store, DATASET, queries, docs, {"a": a, "b": b}, judged)
        store.set_round(dataset, "a", "b", k=2, overlap=1, blind=blind, by="test",
                        stop_when_decided=stop)
        if votes:
            store.invite_judge("early")
        for i in range(UNJUDGED, UNJUDGED + votes):
            view = judging.side_by_side(store, dataset, "a", "b", f"q{i}", 2, "early", False)
            choice = "left" if view.left_run == "b" else "right"
            assert judging.record_vote(store, dataset, view, choice, "early")
    return path


def fill_store(store: Store, name: str, queries: list[tuple], docs: list[tuple],
               runs: dict[str, list[tuple]], judged: list[tuple]) -> Dataset:
    """A new Cranfield-scale dataset ``name`` in ``store``: queries (query_id, text), docs
    (doc_id, title), runs by name as (query_id, doc_id, rank) rows taken as ranked, and the
    dataset's judgments (query_id, doc_id, grade)."""
    dataset = store.create_dataset(name, CRANFIELD)
    store.put_queries(dataset, pd.DataFrame(queries, columns=["query_id", "text"]))
    store.put_documents(dataset, pd.DataFrame(docs, columns=["doc_id", "title"]))
    for run_name, rows in runs.items():
        run = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
        store.put_run(dataset, run_name, run.assign(score=float("nan"),
                                                    line=range(1, len(run) + 1)),
                      run_name, trust_rank=True)
    store.put_judgments(dataset, pd.DataFrame(judged, columns=["query_id", "doc_id", "grade"]),
                        "test")
    return dataset
