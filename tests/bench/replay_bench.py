"""Benchmark: session replay over 1M generated sessions x 2 runs.

    python tests/bench/replay_bench.py [--sessions 1000000] [--queries 20000] [--depth 100]
    python tests/bench/replay_bench.py --engines [--sizes 1000000,10000000] [--spark]
                                      [--with-100m]

``--engines`` measures the out-of-core plan (judge_app/services/click_engines.py): for each
size it writes the log as Parquet partitioned by day, streamed a million sessions at a time
(never held whole), stores the dataset's queries and the two runs, and replays with
``--engine duckdb`` (memory limit 2GB) and, with ``--spark``, ``--engine spark`` (local[*]),
each in its own process: wall time and peak RSS (the JVM's included for Spark), and how each
grows between sizes.  ``--with-100m`` adds 100M sessions (hours and ~10 GB of disk).

Data: Q queries with Zipf-like popularity (a few queries hold many sessions), two runs of
``depth`` string doc ids per query (B swaps some of A's neighbours and replaces a tenth of
its docs), and sessions of 1-3 engaged docs each (clicks, add-to-carts, purchases; a
tenth outside both runs, so censored), drawn mostly from A's top 10.

No other tool replays sessions, so the reference measured in the same run is a *floor*: the
bare pandas work any implementation must do (merge engagements to both runs, weighted MRR
per session, mean per query), with no censoring bookkeeping, outcome counts, coverage or
tests; sxs is measured with and without its paired tests (randomization with 10,000 sign
flips and a BCa bootstrap with 10,000 resamples over the queries), whose cost grows with the
number of queries, not sessions.  Each part runs in its own process so peak memory (VmHWM)
is its own.  Figures are wall-clock seconds on this machine; machines here are noisy, read
the ratio.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path

import numpy as np
import pandas as pd
from memory import reset_peak, status_mb

ROOT = Path(__file__).resolve().parents[2]


def generate(sessions: int, queries: int, depth: int, folder: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    # ids unique within a query: A draws from [0, 5d), B's replacements are [5d, 6d), docs
    # engaged outside both runs [9d, 10d), all offset by query * 10d
    block = 10 * depth
    offsets = (np.arange(queries) * block)[:, None]
    docs_a = np.argsort(rng.random((queries, 5 * depth)), axis=1)[:, :depth] + offsets
    docs_b = docs_a.copy()
    swap = rng.random((queries, depth - 1)) < 0.3
    for col in np.flatnonzero(swap.any(axis=0)):
        rows = swap[:, col]
        docs_b[rows, col], docs_b[rows, col + 1] = docs_b[rows, col + 1], docs_b[rows, col]
    replaced = rng.random((queries, depth)) < 0.1
    fresh = offsets + 5 * depth + np.arange(depth)[None, :]
    docs_b[replaced] = fresh[replaced]

    def run_frame(docs: np.ndarray) -> pd.DataFrame:
        return pd.DataFrame({
            "query_id": np.repeat(np.char.add("q", np.arange(queries).astype(str)), depth),
            "doc_id": np.char.add("d", docs.ravel().astype(str)),
            "rank": np.tile(np.arange(1, depth + 1), queries)})

    run_frame(docs_a).to_parquet(folder / "run_a.parquet")
    run_frame(docs_b).to_parquet(folder / "run_b.parquet")

    popularity = 1.0 / np.arange(1, queries + 1) ** 0.8
    session_query = rng.choice(queries, size=sessions, p=popularity / popularity.sum())
    per_session = rng.integers(1, 4, size=sessions)
    event_session = np.repeat(np.arange(sessions), per_session)
    event_query = session_query[event_session]
    position = np.minimum(rng.geometric(0.3, size=len(event_session)) - 1, depth - 1)
    doc = docs_a[event_query, position]
    outside = rng.random(len(doc)) < 0.1
    doc[outside] = (event_query[outside] * block + 9 * depth
                    + rng.integers(0, depth, size=int(outside.sum())))
    actions = rng.choice(np.array(["click", "add_to_cart", "purchase"]), size=len(doc),
                         p=[0.8, 0.15, 0.05])
    pd.DataFrame({"session_id": np.char.add("s", event_session.astype(str)),
                  "query_id": np.char.add("q", event_query.astype(str)),
                  "doc_id": np.char.add("d", doc.astype(str)), "action": actions}
                 ).to_parquet(folder / "events.parquet")


def measure(tool: str, folder: Path) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    events = pd.read_parquet(folder / "events.parquet")
    run_a = pd.read_parquet(folder / "run_a.parquet")
    run_b = pd.read_parquet(folder / "run_b.parquet")
    from metrics.engagement import DEFAULT_WEIGHTS
    from metrics.replay import replay

    base = reset_peak()
    start = time.perf_counter()
    if tool.startswith("sxs"):
        result = replay(events, run_a, run_b, tests=tool == "sxs")
        value = result.summary.delta
        extra = {"sessions": result.basis.sessions, "queries": result.basis.queries,
                 "engagements": result.basis.engagements,
                 "censored_a": result.basis.censored_a, "censored_b": result.basis.censored_b}
    else:
        events = events.assign(weight=DEFAULT_WEIGHTS.weigh(events["action"]))
        mrr = {}
        for label, run in (("a", run_a), ("b", run_b)):
            joined = events.merge(run, on=["query_id", "doc_id"], how="left")
            joined["rr"] = joined["weight"] / joined["rank"].fillna(101)
            per = joined.groupby(["session_id", "query_id"])[["rr", "weight"]].sum()
            mrr[label] = per["rr"] / per["weight"]
        delta = (mrr["b"] - mrr["a"]).groupby(level="query_id").mean()
        value = float(delta.mean())
        extra = {}
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_mb": status_mb("VmHWM") - base, "delta": value, **extra}


CHUNK = 1_000_000


def generate_files(sessions: int, queries: int, depth: int, folder: Path, seed: int = 0
                   ) -> int:
    """The runs (run_a/run_b.parquet) and the log under ``folder/log`` in the converted
    layout, a million sessions per file over 30 days, queries named by dataset id; returns
    the events written.  Each chunk is drawn, written and dropped."""
    from judge_app.io.clicks import LAYOUT_COLUMNS

    generate(1, queries, depth, folder, seed)  # the runs (and a one-session log, unused)
    docs_a = pd.read_parquet(folder / "run_a.parquet")["doc_id"].to_numpy().reshape(
        queries, depth)
    rng = np.random.default_rng(seed + 1)
    popularity = 1.0 / np.arange(1, queries + 1) ** 0.8
    popularity /= popularity.sum()
    written = 0
    for chunk, start in enumerate(range(0, sessions, CHUNK)):
        n = min(CHUNK, sessions - start)
        session_query = rng.choice(queries, size=n, p=popularity)
        per_session = rng.integers(1, 4, size=n)
        event_session = np.repeat(np.arange(start, start + n), per_session)
        event_query = session_query[event_session - start]
        position = np.minimum(rng.geometric(0.3, size=len(event_session)) - 1, depth - 1)
        doc = docs_a[event_query, position].astype(object)
        outside = rng.random(len(doc)) < 0.1
        doc[outside] = "x" + event_query[outside].astype(str)
        actions = rng.choice(np.array(["click", "add_to_cart", "purchase", "hover"]),
                             size=len(doc), p=[0.7, 0.15, 0.05, 0.1])
        day = f"2026-11-{chunk % 30 + 1:02d}"
        none = pd.Series(pd.NA, index=range(len(doc)), dtype="string")
        frame = pd.DataFrame({
            "action": actions, "session_id": np.char.add("s", event_session.astype(str)),
            "client_id": none, "query_id": np.char.add("q", event_query.astype(str)),
            "query": none, "query_norm": none, "doc_id": doc.astype(str), "position": position,
            "rank": position + 1, "timestamp": pd.Timestamp(day, tz="UTC")})
        part = folder / "log" / f"day={day}"
        part.mkdir(parents=True, exist_ok=True)
        frame[list(LAYOUT_COLUMNS)].to_parquet(part / f"part-{chunk:04d}.parquet",
                                               index=False)
        written += len(frame)
        del frame, doc, actions, event_session, event_query, position
    return written


def prepare_store(queries: int, folder: Path) -> None:
    """A store with the dataset's queries and the two runs (rank order)."""
    sys.path.insert(0, str(ROOT))
    from judge_app.store import Store
    from metrics.scale import ESCI

    with Store(folder / "bench.duckdb") as store:
        dataset = store.create_dataset("bench", ESCI)
        ids = [f"q{k}" for k in range(queries)]
        store.put_queries(dataset, pd.DataFrame({"query_id": ids, "text": ids}))
        for name in ("a", "b"):
            run = pd.read_parquet(folder / f"run_{name}.parquet")
            store.put_run(dataset, name, run.assign(score=float("nan"),
                                                    line=np.arange(1, len(run) + 1)),
                          name, trust_rank=True)


def measure_engine(engine: str, folder: Path) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    from judge_app.services import clicks
    from judge_app.store import Store

    base = reset_peak()
    start = time.perf_counter()
    jvm_peak = 0.0
    with Store(folder / "bench.duckdb") as store:
        dataset = store.dataset("bench")
        result = clicks.replay_runs(store, dataset, "a", "b", engine=engine,
                                    source=folder / "log", spark_master="local[*]")
        if engine == "spark":
            from pyspark.sql import SparkSession

            gateway = SparkSession.getActiveSession().sparkContext._gateway
            status = Path(f"/proc/{gateway.proc.pid}/status").read_text()
            jvm_peak = next(int(line.split()[1]) / 1024 for line in status.splitlines()
                            if line.startswith("VmHWM:"))
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "peak_mb": status_mb("VmHWM") - base + jvm_peak,
            "delta": result.summary.delta, "sessions": result.basis.sessions,
            "engagements": result.basis.engagements}


def engines(sizes: list[int], queries: int, depth: int, spark: bool) -> None:
    rows = []
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="sxs-bench-") as tmp:
            folder = Path(tmp)
            start = time.perf_counter()
            events = generate_files(size, queries, depth, folder)
            prepare_store(queries, folder)
            print(f"{size:,} sessions: wrote {events:,} events as Parquet by day in "
                  f"{time.perf_counter() - start:.1f} s", flush=True)
            for engine in ("duckdb", "spark") if spark else ("duckdb",):
                done = subprocess.run([sys.executable, __file__, "--measure-engine", engine,
                                       "--folder", tmp], capture_output=True, text=True)
                if done.returncode:
                    sys.exit(f"{engine} failed:\n{done.stderr[-3000:]}")
                figures = json.loads(done.stdout.strip().splitlines()[-1])
                rows.append((size, engine, figures))
                print(f"  {engine}: {figures['seconds']:.1f} s, peak RSS "
                      f"{figures['peak_mb']:,.0f} MB; {figures['sessions']:,} sessions "
                      f"replayed, delta {figures['delta']:+.6f}", flush=True)
    for engine in {e for _, e, _ in rows}:
        mine = [(size, f) for size, e, f in rows if e == engine]
        for (s0, f0), (s1, f1) in pairwise(mine):
            print(f"{engine} from {s0:,} to {s1:,} sessions (x{s1 / s0:g}): time "
                  f"x{f1['seconds'] / f0['seconds']:.2f}, peak memory "
                  f"x{f1['peak_mb'] / max(f0['peak_mb'], 1):.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", action="store_true")
    parser.add_argument("--sizes", default="1000000,10000000")
    parser.add_argument("--with-100m", action="store_true")
    parser.add_argument("--spark", action="store_true")
    parser.add_argument("--measure-engine", choices=["duckdb", "spark"])
    parser.add_argument("--sessions", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--measure", choices=["sxs", "sxs-no-tests", "floor"])
    parser.add_argument("--folder")
    args = parser.parse_args()
    if args.measure_engine:
        print(json.dumps(measure_engine(args.measure_engine, Path(args.folder))))
        return
    if args.engines:
        sizes = [int(n) for n in args.sizes.split(",")] + ([100_000_000] if args.with_100m
                                                          else [])
        engines(sizes, args.queries, args.depth, args.spark)
        return
    if args.measure:
        print(json.dumps(measure(args.measure, Path(args.folder))))
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        start = time.perf_counter()
        generate(args.sessions, args.queries, args.depth, folder)
        print(f"generated {args.sessions:,} sessions over {args.queries:,} queries, two runs "
              f"of depth {args.depth} in {time.perf_counter() - start:.1f} s")
        results = {}
        for tool in ("sxs", "sxs-no-tests", "floor"):
            done = subprocess.run([sys.executable, __file__, "--measure", tool, "--folder",
                                   tmp], capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"{tool} failed:\n{done.stderr}")
            results[tool] = json.loads(done.stdout.strip().splitlines()[-1])
    sxs, bare, floor = results["sxs"], results["sxs-no-tests"], results["floor"]
    print(f"basis: {sxs['sessions']:,} sessions, {sxs['queries']:,} queries, "
          f"{sxs['engagements']:,} engagements, censored A {sxs['censored_a']:,} / "
          f"B {sxs['censored_b']:,}")
    print(f"sxs replay (with paired tests, 10,000 resamples): {sxs['seconds']:.1f} s, "
          f"peak +{sxs['peak_mb']:.0f} MB; delta {sxs['delta']:+.5f}")
    print(f"sxs replay without the tests: {bare['seconds']:.1f} s, "
          f"peak +{bare['peak_mb']:.0f} MB")
    print(f"pandas floor (merge + MRR only): {floor['seconds']:.1f} s, "
          f"peak +{floor['peak_mb']:.0f} MB; delta {floor['delta']:+.5f} (must equal sxs's)")
    for name, figures in (("sxs", sxs), ("sxs without tests", bare)):
        print(f"ratio {name} / floor: time {figures['seconds'] / floor['seconds']:.2f}x, "
              f"memory {figures['peak_mb'] / max(floor['peak_mb'], 1):.2f}x")


if __name__ == "__main__":
    main()
