"""Benchmark: the PostgreSQL store against the DuckDB file, on the same work.

    python tests/bench/postgres_bench.py [--postgres postgresql://…/postgres]
        [--labels 1000000] [--run-rows 1000000] [--repeats 100]

The cluster is ``--postgres`` (a maintenance database address; default
``$SXS_TEST_POSTGRES``), else a throw-away cluster started here (see tests/postgres.py).  On
each backend: the Cranfield demo plus ``--labels`` generated expert labels; per query shown,
the judge page's data (``judging.plan_from`` + ``judging.side_by_side``, k = 20) and a vote
(``judging.record_vote``), median and p95; then a run of ``--run-rows`` rows (1,000 queries)
with 100,000 judgments, stored, read back (``Store.run``: PostgreSQL's COPY … TO STDOUT)
and evaluated (``analysis.evaluate_run``, nDCG@10).  Prints each figure with the ratio
PostgreSQL / DuckDB.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.services import analysis, judging
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from metrics import ESCI
from tests.postgres import ENV, database_address, throwaway_cluster


def _quantiles(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def _analyze(store: Store) -> None:
    """PostgreSQL's planner statistics after a bulk load (autovacuum takes up to a minute)."""
    if store.dialect.name == "postgresql":
        store.backend.cursor().execute("ANALYZE")


def run_backend(address, labels: int, run_rows: int, repeats: int) -> dict[str, float]:
    rng = np.random.default_rng(0)
    out: dict[str, float] = {}
    with Store(address) as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        queries = store.queries(dataset)["query_id"].to_numpy()
        frame = pd.DataFrame({
            "query_id": rng.choice(queries, size=labels),
            "doc_id": rng.integers(1, 1401, size=labels).astype(str),
            "grade": rng.integers(0, 5, size=labels),
            "judge": rng.choice([f"judge{i}" for i in range(40)], size=labels)})
        start = time.perf_counter()
        store.append_expert_labels(dataset, frame, "bench")
        out["write 1M labels (s)"] = time.perf_counter() - start
        _analyze(store)
        store.typed_judge("bench")
        start = time.perf_counter()
        order = judging.query_order(store, dataset, "title", "bm25", 20)
        out["queue order, once (s)"] = time.perf_counter() - start
        page, vote = [], []
        for i in range(repeats):
            start = time.perf_counter()
            plan = judging.plan_from(store, dataset, order, "title", "bm25", "bench")
            view = judging.side_by_side(store, dataset, "title", "bm25", plan.queue[0], 20,
                                        "bench")
            page.append(time.perf_counter() - start)
            start = time.perf_counter()
            judging.record_vote(store, dataset, view, "left" if i % 2 else "tie", "bench")
            vote.append(time.perf_counter() - start)
        out["judge page p50 (ms)"], out["judge page p95 (ms)"] = _quantiles(page)
        out["vote write p50 (ms)"], out["vote write p95 (ms)"] = _quantiles(vote)

        big = store.create_dataset("big", ESCI)
        per_query = run_rows // 1000
        run = pd.DataFrame({
            "query_id": np.repeat([f"q{i}" for i in range(1000)], per_query),
            "doc_id": np.tile([f"d{j}" for j in range(per_query)], 1000),
            "rank": np.tile(np.arange(1, per_query + 1), 1000),
            "score": np.tile(np.arange(per_query, 0, -1, dtype=float), 1000)})
        run["line"] = np.arange(1, len(run) + 1)
        judged = run.sample(100_000, random_state=0)[["query_id", "doc_id"]]
        store.put_judgments(big, judged.assign(grade=rng.integers(0, 3, len(judged))), "q")
        start = time.perf_counter()
        store.put_run(big, "big", run, "big.run")
        out["store 1M run rows (s)"] = time.perf_counter() - start
        _analyze(store)
        start = time.perf_counter()
        rows = store.run(big, "big")
        out["read 1M run rows (s)"] = time.perf_counter() - start
        assert len(rows) == len(run)
        start = time.perf_counter()
        analysis.evaluate_run(store, big, "big", ["ndcg@10"])
        out["evaluate 1M run rows (s)"] = time.perf_counter() - start
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--postgres", default=os.environ.get(ENV))
    parser.add_argument("--labels", type=int, default=1_000_000)
    parser.add_argument("--run-rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=100)
    args = parser.parse_args()
    with contextlib.ExitStack() as stack:
        cluster = args.postgres or stack.enter_context(throwaway_cluster())
        import psycopg

        name = f"sxs_bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(cluster, autocommit=True) as admin:
            admin.execute(f'CREATE DATABASE "{name}"')
        try:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
            figures = {
                "duckdb": run_backend(Path(tmp) / "bench.duckdb", args.labels, args.run_rows,
                                      args.repeats),
                "postgresql": run_backend(database_address(cluster, name), args.labels,
                                          args.run_rows, args.repeats)}
        finally:
            from judge_app.store.postgres import PostgresBackend

            PostgresBackend.close_all()
            with psycopg.connect(cluster, autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    print(f"{'':28} {'DuckDB':>10} {'PostgreSQL':>11} {'ratio':>7}")
    for key, duck in figures["duckdb"].items():
        pg = figures["postgresql"][key]
        print(f"{key:28} {duck:10.2f} {pg:11.2f} {pg / duck:7.2f}")


if __name__ == "__main__":
    main()
