"""Benchmark (run by hand, not collected): ``decide`` and the judging order at scale.

    python tests/bench/decision_bench.py [--queries 10000] [--labels 100000] [--repeat 3]

Data: Q queries, each with 25 candidate docs of true grade 0-3 (ESCI); runs A and B rank them
by grade plus noise (B a little less noisy) and keep the top 10; ``labels`` judged (query,
doc) pairs drawn at random among all candidates (so some lie outside the pool: they enter
NDCG's ideal only).  Prints wall-clock seconds per call (best of ``--repeat``), from the
DataFrames: building the pool, the model, the figures and the verdict (or the order) all in.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from metrics.decision import decide
from metrics.judging_order import judging_order
from metrics.judging_pool import judging_pool
from metrics.scale import ESCI

CANDIDATES = 25
DEPTH = 10


def generate(queries: int, labels: int, seed: int = 0) -> tuple[pd.DataFrame, ...]:
    rng = np.random.default_rng(seed)
    grade = rng.choice(4, size=(queries, CANDIDATES), p=[0.55, 0.2, 0.15, 0.1])
    docs = np.char.add("d", np.arange(queries * CANDIDATES).astype(str)).reshape(
        queries, CANDIDATES)
    qid = np.char.add("q", np.arange(queries).astype(str))
    runs = []
    for noise in (1.6, 1.4):
        order = np.argsort(-(grade + rng.normal(0, noise, size=grade.shape)), axis=1)[:, :DEPTH]
        runs.append(pd.DataFrame({
            "query_id": np.repeat(qid, DEPTH),
            "doc_id": np.take_along_axis(docs, order, axis=1).ravel(),
            "rank": np.tile(np.arange(1, DEPTH + 1), queries)}))
    picked = rng.choice(queries * CANDIDATES, size=labels, replace=False)
    qrels = pd.DataFrame({"query_id": np.repeat(qid, CANDIDATES)[picked],
                          "doc_id": docs.ravel()[picked],
                          "grade": grade.ravel()[picked].astype(float)})
    return runs[0], runs[1], qrels


def best_of(repeat: int, call) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = call()
        times.append(time.perf_counter() - start)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--labels", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    run_a, run_b, labels = generate(args.queries, args.labels)
    print(f"{args.queries:,} queries x 2 runs x top {DEPTH}, {len(labels):,} labels")
    seconds, pool = best_of(args.repeat, lambda: judging_pool(run_a, run_b, labels, DEPTH, ESCI))
    print(f"pool   (the part of each call below)  {seconds:6.3f} s   {pool.size:,} pairs")
    for measure in ("ndcg_m@10", "ndcg@10", "ndcg_f@10"):
        seconds, found = best_of(args.repeat, lambda m=measure: decide(
            run_a, run_b, labels, m, max_grade=ESCI))
        print(f"decide {measure:<10} {seconds:6.3f} s   {found.verdict.label}, "
              f"{found.judged:,} judged of {found.pool:,} pool pairs")
    for measure in ("ndcg_m@10", "ndcg@10"):
        for order in ("decision", "weight"):
            seconds, found = best_of(args.repeat, lambda m=measure, o=order: judging_order(
                run_a, run_b, labels, m, max_grade=ESCI, order=o))
            print(f"order  {measure:<10} {order:<8} {seconds:6.3f} s   {len(found):,} pairs")


if __name__ == "__main__":
    main()
