"""Benchmark (run by hand, not collected): the decision on the pages, on the Cranfield demo.

    python tests/bench/decision_pages_bench.py [--labels 300]

Builds the demo in a temporary store, grades ``labels`` unjudged pairs of bm25's top 10 as
one judge, then prints the seconds of :func:`judge_app.services.decision_state.
decision_state` cold (a new data version: what a page pays after a label or a vote) and warm
(cached), and of :func:`judge_app.services.decision_history.decision_history` (the
dashboard's chart, cached on the data version as well).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from judge_app.services import judging
from judge_app.services.decision_history import decision_history
from judge_app.services.decision_state import decision_state
from judge_app.services.demo import build_demo_store
from judge_app.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--labels", type=int, default=300)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, Store(Path(folder) / "b.duckdb") as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        store.invite_judge("bench")
        top = store.run(dataset, "bm25", depth=10)
        known = store.judgments(dataset)
        both = top.merge(known, how="left", on=["query_id", "doc_id"])
        todo = both[both["grade"].isna()].head(args.labels)
        for i, (query_id, doc_id) in enumerate(zip(todo["query_id"], todo["doc_id"],
                                                   strict=True)):
            judging.record_grade(store, dataset, f"b{i}", query_id, doc_id, i % 3, "bench")
        timed = []
        for _ in range(2):
            start = time.perf_counter()
            decision_state(store, dataset, "title", "bm25", "ndcg_m@10")
            timed.append(time.perf_counter() - start)
        start = time.perf_counter()
        history = decision_history(store, dataset, "title", "bm25", "ndcg_m@10")
        took = time.perf_counter() - start
    print(f"{len(todo)} labels: decision state cold {timed[0]:.3f} s, warm {timed[1]:.3f} s; "
          f"history of {len(history)} points {took:.2f} s")


if __name__ == "__main__":
    main()
