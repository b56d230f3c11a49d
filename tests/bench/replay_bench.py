"""Benchmark: session replay over 1M generated sessions x 2 runs.

    python tests/bench/replay_bench.py [--sessions 1000000] [--queries 20000] [--depth 100]

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--measure", choices=["sxs", "sxs-no-tests", "floor"])
    parser.add_argument("--folder")
    args = parser.parse_args()
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
