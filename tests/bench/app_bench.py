"""Benchmark: server-side time of the judge page with a store holding 1M expert labels.

    python tests/bench/app_bench.py [--labels 1000000] [--repeats 200]

The Cranfield demo runs (k = 20) plus generated expert labels spread over its queries.  Timed,
per query shown: building the page data (``judging.side_by_side``) and the judge's queue from
the cached order (``judging.plan_from``); recording a vote and a grade.  The queue order itself
(RBO and unlabelled weights over every query) is cached by the app and timed once.  Prints
median and p95 in milliseconds.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.services import judging
from judge_app.services.demo import build_demo_store
from judge_app.store import Store


def _ms(samples: list[float]) -> str:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return f"median {statistics.median(ordered) * 1000:7.1f} ms   p95 {p95 * 1000:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--labels", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.duckdb") as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        queries = store.queries(dataset)["query_id"].to_numpy()
        labels = pd.DataFrame({
            "query_id": rng.choice(queries, size=args.labels),
            "doc_id": rng.integers(1, 1401, size=args.labels).astype(str),
            "grade": rng.integers(0, 5, size=args.labels),
            "judge": rng.choice([f"judge{i}" for i in range(40)], size=args.labels)})
        start = time.perf_counter()
        store.append_expert_labels(dataset, labels, "bench")
        print(f"store: {args.labels:,} expert labels written in "
              f"{time.perf_counter() - start:.1f} s")
        start = time.perf_counter()
        order = judging.query_order(store, dataset, "title", "bm25", 20)
        print(f"queue order over {len(order.rbo)} queries (cached by the app): "
              f"{(time.perf_counter() - start) * 1000:.0f} ms")
        page, vote, grade = [], [], []
        for i in range(args.repeats):
            start = time.perf_counter()
            plan = judging.plan_from(store, dataset, order, "title", "bm25", "bench")
            view = judging.side_by_side(store, dataset, "title", "bm25", plan.queue[0], 20,
                                        "bench")
            page.append(time.perf_counter() - start)
            doc = view.left[0].doc_id
            start = time.perf_counter()
            judging.record_grade(store, dataset, view.view_id, view.query_id, doc, 2, "bench")
            grade.append(time.perf_counter() - start)
            start = time.perf_counter()
            judging.record_vote(store, dataset, view, "left" if i % 2 else "tie", "bench")
            vote.append(time.perf_counter() - start)
            if not plan.queue[1:]:
                break
        print(f"judge page data (k=20, two runs): {_ms(page)}  over {len(page)} queries")
        print(f"record a vote:                    {_ms(vote)}")
        print(f"record a grade:                   {_ms(grade)}")


if __name__ == "__main__":
    main()
