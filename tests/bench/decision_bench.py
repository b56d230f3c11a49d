"""Benchmark (run by hand, not collected): ``decide`` and the judging order at scale.

    python tests/bench/decision_bench.py [--queries 10000] [--labels 100000] [--repeat 3]
                                         [--cache FOLDER] [--frames-only]

Data: Q queries, each with 25 candidate docs of true grade 0-3 (ESCI); runs A and B rank them
by grade plus noise (B a little less noisy) and keep the top 10; ``labels`` judged (query,
doc) pairs drawn at random among all candidates (so some lie outside the pool: they enter
NDCG's ideal only).

Two parts, each call timed ``--repeat`` times, the best kept, as wall-clock and CPU seconds
(``time.process_time``: on a shared machine the CPU figure is the steadier one):

* **start-up**: a fresh interpreter importing what ``sxs decide`` imports (a command's
  imports count in its time: no scipy.stats, scipy.optimize or Streamlit);
* **store**: what ``sxs decide`` and ``sxs backfill next`` run after start-up —
  :func:`judge_app.services.decision.decide_runs` per measure (and the three at once) and
  :func:`~judge_app.services.decision.backfill_next` per order, on a DuckDB store generated
  once into ``--cache`` (default ``~/.cache/sxs-bench/decision``) and reused;
* **frames**: the same from the DataFrames (pool, model, figures, verdict or order).

Last measured (2026-12-05, the shared 2-core VM, best of 5, CPU / wall seconds; "before" is
main at 906b9d0 (branch speed22), "after" branch speed22b, run back to back at load average
2.2-2.8 — DuckDB's second thread makes CPU exceed wall when the machine is idle):

=================================  ===============  ===============
row                                before           after
=================================  ===============  ===============
start-up: sxs decide's imports     0.81 / 0.76      0.82 / 0.83
sxs decide -m ndcg_m@10            0.18 / 0.16      0.17 / 0.17
sxs decide -m ndcg@10              0.34 / 0.33      0.28 / 0.28
sxs decide -m ndcg_f@10            0.36 / 0.34      0.30 / 0.30
sxs decide, all three              0.42 / 0.40      0.32 / 0.33
sxs backfill next --order decision 0.20 / 0.19      0.17 / 0.17
sxs backfill next --order weight   0.19 / 0.18      0.17 / 0.17
frames: pool                       0.18 / 0.18      0.15 / 0.15
frames: decide ndcg_m@10           0.19 / 0.19      0.17 / 0.18
frames: decide ndcg@10             0.33 / 0.33      0.27 / 0.28
frames: decide ndcg_f@10           0.34 / 0.34      0.28 / 0.29
=================================  ===============  ===============

Four more runs, alternating, at load 0.9-2.3: ``decide -m ndcg@10`` 0.29-0.30 s CPU after
against 0.34-0.37 before, ``-m ndcg_f@10`` 0.31 against 0.37-0.39 (one after run at load
3.4: 0.32 and 0.36).  What changed: the exact bounds' Dinkelbach iteration starts from the
best of m + 1 gradings (24,800 DP rows instead of 32,750 for 2 x 10,000 problems; the same
bounds to the last bit) and shares its IDCG terms between the two extremes; the Monte Carlo
of NDCG's ideal draws about 2 million grades (32 completions here, 47 before: mean Δ moved
by 1.2e-5, within its Monte Carlo sd over seeds, 2.6e-5); the votes' views are not read for
a pair no vote was cast on (~0.01 s); NDCG-f's observed Δ places its judged pairs without a
sort.  Where ``sxs decide -m ndcg@10``'s time goes now: the store read ~0.14 s (the one
statement ~0.085, the pool's arrays ~0.04) and NDCG's figures ~0.10 s (the bounds' DP
~0.06, the Monte Carlo ~0.04).
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

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


def best_of(repeat: int, call) -> tuple[float, float, object]:
    """(best wall seconds, best CPU seconds, the last result) over ``repeat`` calls."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = call()
        cpus.append(time.process_time() - cpu)
        walls.append(time.perf_counter() - wall)
    return min(walls), min(cpus), result


def bench_store(path: Path, queries: int, labels: int) -> Path:
    """The bench's DuckDB store at ``path``, generated unless it is there already."""
    from judge_app.store import Store

    if path.exists():
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    run_a, run_b, qrels = generate(queries, labels)
    scratch = path.with_suffix(".part")
    scratch.unlink(missing_ok=True)
    with Store(scratch, create=True) as store:
        dataset = store.create_dataset("bench", ESCI)
        for name, run in (("a", run_a), ("b", run_b)):
            store.put_run(dataset, name, run.assign(score=float("nan"),
                                                    line=range(1, len(run) + 1)),
                          name, trust_rank=True)
        store.put_judgments(dataset, qrels.assign(grade=qrels["grade"].astype(int)), "bench")
    scratch.rename(path)
    return path


def line(what: str, wall: float, cpu: float, note: str) -> None:
    print(f"{what:<34} wall {wall:6.3f} s  cpu {cpu:6.3f} s   {note}")


STARTUP = ("import judge_app.cli, judge_app.cli.decision, judge_app.services.decision, "
           "judge_app.services.analysis, judge_app.store")
"""What ``sxs decide`` imports before it reads anything (its modules and their libraries)."""


def startup(repeat: int) -> tuple[float, float]:
    """(best wall, best CPU seconds) of a fresh interpreter importing :data:`STARTUP`."""
    root = Path(__file__).resolve().parents[2]
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall = time.perf_counter()
        subprocess.run([sys.executable, "-c", STARTUP], cwd=root, check=True)
        walls.append(time.perf_counter() - wall)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return min(walls), min(cpus)


def store_part(path: Path, repeat: int) -> None:
    from judge_app.services import decision as service
    from judge_app.store import Store

    wall, cpu = startup(repeat)
    line("start-up: sxs decide's imports", wall, cpu, "a fresh interpreter, before any read")
    with Store(path) as store:
        dataset = store.dataset("bench")
        for measures in (["ndcg_m@10"], ["ndcg@10"], ["ndcg_f@10"],
                         ["ndcg_m@10", "ndcg@10", "ndcg_f@10"]):
            wall, cpu, found = best_of(repeat, lambda m=measures: service.decide_runs(
                store, dataset, "a", "b", m))
            first = found.decisions[0]
            line("sxs decide, all three" if len(measures) > 1 else f"sxs decide -m {measures[0]}",
                 wall, cpu,
                 f"{first.verdict.label}, {first.judged:,} judged of {first.pool:,}")
        for order in ("decision", "weight"):
            wall, cpu, found = best_of(repeat, lambda o=order: service.backfill_next(
                store, dataset, "a", "b", 20, o))
            line(f"sxs backfill next --order {order}", wall, cpu, f"{len(found)} pairs")


def frames_part(queries: int, labels: int, repeat: int) -> None:
    run_a, run_b, qrels = generate(queries, labels)
    wall, cpu, pool = best_of(repeat, lambda: judging_pool(run_a, run_b, qrels, DEPTH, ESCI))
    line("pool (part of each call below)", wall, cpu, f"{pool.size:,} pairs")
    for measure in ("ndcg_m@10", "ndcg@10", "ndcg_f@10"):
        wall, cpu, found = best_of(repeat, lambda m=measure: decide(
            run_a, run_b, qrels, m, max_grade=ESCI))
        line(f"decide {measure}", wall, cpu, f"{found.verdict.label}, {found.judged:,} "
             f"judged of {found.pool:,} pool pairs")
    for measure in ("ndcg_m@10", "ndcg@10"):
        for order in ("decision", "weight"):
            wall, cpu, found = best_of(repeat, lambda m=measure, o=order: judging_order(
                run_a, run_b, qrels, m, max_grade=ESCI, order=o))
            line(f"order {measure} {order}", wall, cpu, f"{len(found):,} pairs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--labels", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", type=Path,
                        default=Path.home() / ".cache" / "sxs-bench" / "decision")
    parser.add_argument("--frames-only", action="store_true")
    args = parser.parse_args()
    print(f"{args.queries:,} queries x 2 runs x top {DEPTH}, {args.labels:,} labels, "
          f"best of {args.repeat}")
    if not args.frames_only:
        path = bench_store(args.cache / f"q{args.queries}-l{args.labels}.duckdb",
                           args.queries, args.labels)
        print(f"store: {path}")
        store_part(path, args.repeat)
    print("frames:")
    frames_part(args.queries, args.labels, args.repeat)


if __name__ == "__main__":
    main()
