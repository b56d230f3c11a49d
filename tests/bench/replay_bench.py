"""Benchmark: session replay over 1M generated sessions x 2 runs.

    python tests/bench/replay_bench.py [--sessions 1000000] [--queries 20000] [--depth 100]
    python tests/bench/replay_bench.py --engines [--sizes 1000000,10000000] [--spark]
                                      [--with-100m]

``--engines`` measures the out-of-core plan (judge_app/services/click_engines.py): for each
size it generates the log once with DuckDB SQL (:func:`generate_sql`: hash-based columns,
10M sessions a chunk, one plain COPY per day; cached under ``--cache``, /work/benchdata),
stores the dataset's queries and the two runs, and replays with ``--engine duckdb`` (memory
limit 2GB, batches of whole days) and, with ``--spark``, ``--engine spark`` (local[*], up
to 10M), each in its own process: wall and CPU seconds, peak RSS (the JVM's included for
Spark), and how each grows between sizes.  ``--with-100m`` adds 100M sessions (200M
events, 2.5 GB of Parquet).

``--ndjson [--sizes 1000000]`` writes each size's log as one gzipped UBI NDJSON file
(:func:`write_ndjson`, by DuckDB from the Parquet log, under ``--ndjson-dir``) and times
``sxs replay --engine duckdb --from LOG.ndjson.gz`` read in place against the temporary
conversion ``--from`` did before (:func:`judge_app.services.click_engines.convert_log` into
a scratch folder, then the same replay over its Parquet), each in its own process: wall
seconds and peak RSS (the process's VmHWM).  Run it with ``nice -n 10`` on a shared
machine and read CPU.

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
import os
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from itertools import pairwise
from pathlib import Path

import duckdb
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


GENERATED_CHUNK = 10_000_000  # sessions per COPY (resumable: a chunk done is kept)


def generate_sql(sessions: int, queries: int, depth: int, folder: Path, days: int = 30,
                 memory_limit: str = "1GB") -> int:
    """The log under ``folder/log`` in the converted layout, written by DuckDB SQL streamed
    straight to Parquet by day (``COPY … PARTITION_BY``: no session is ever held in Python),
    and the runs run_a/run_b.parquet; returns the events written.

    Every column is a hash of the session number (``hash(s, salt)`` mapped to [0, 1)), so a
    size is the same log on every machine: session s searches query
    ``floor(Q * u^3)`` (a few queries hold many sessions), falls on day ``s mod days``,
    engages 1-3 docs at geometric(0.3) ranks of run A (a tenth outside both runs, so
    censored) with click 70%, add_to_cart 15%, purchase 5%, hover 10% (weighs nothing).
    Run A ranks ``d{q}_{r}`` at rank r; run B swaps about 30% of neighbour pairs and replaces
    a tenth of A's docs."""
    from judge_app.io.clicks import LAYOUT_COLUMNS

    rng = np.random.default_rng(0)
    query = np.repeat(np.arange(queries), depth)
    rank = np.tile(np.arange(1, depth + 1), queries)
    docs_a = np.char.add(np.char.add(np.char.add("d", query.astype(str)), "_"),
                         rank.astype(str)).reshape(queries, depth)
    docs_b = docs_a.copy()
    swap = rng.random((queries, depth - 1)) < 0.3
    for col in range(0, depth - 1, 2):
        rows = swap[:, col]
        docs_b[rows, col], docs_b[rows, col + 1] = docs_b[rows, col + 1], docs_b[rows, col]
    replaced = rng.random((queries, depth)) < 0.1
    docs_b[replaced] = np.char.add("n", docs_a[replaced])
    for name, docs in (("a", docs_a), ("b", docs_b)):
        pd.DataFrame({"query_id": np.char.add("q", query.astype(str)), "doc_id": docs.ravel(),
                      "rank": rank}).to_parquet(folder / f"run_{name}.parquet")
    u = "(hash(s, {salt}) % 1000000007) / 1000000007.0"
    events = f"""
        WITH searches AS (
            SELECT s, CAST(floor({queries} * pow({u.format(salt=1)}, 3)) AS BIGINT) AS q,
                   1 + CAST(hash(s, 2) % 3 AS BIGINT) AS n,
                   DATE '2026-11-01' + CAST(s % {days} AS INTEGER) AS day
            FROM range({{start}}, {{stop}}, {days}) t(s)),
        engaged AS (
            SELECT s, q, day, (hash(s, 10 + j) % 1000000007) / 1000000007.0 AS u_rank,
                   (hash(s, 20 + j) % 1000000007) / 1000000007.0 AS u_out,
                   (hash(s, 30 + j) % 1000000007) / 1000000007.0 AS u_action
            FROM searches, range(3) k(j) WHERE j < n),
        ranked AS (
            SELECT *, LEAST({depth}, 1 + CAST(floor(ln(GREATEST(u_rank, 1e-12)) / ln(0.7))
                                               AS BIGINT)) AS r FROM engaged)
        SELECT CASE WHEN u_action < 0.7 THEN 'click' WHEN u_action < 0.85 THEN 'add_to_cart'
                    WHEN u_action < 0.9 THEN 'purchase' ELSE 'hover' END AS action,
               's' || s AS session_id, CAST(NULL AS VARCHAR) AS client_id, 'q' || q AS query_id,
               CAST(NULL AS VARCHAR) AS query, CAST(NULL AS VARCHAR) AS query_norm,
               CASE WHEN u_out < 0.1 THEN 'x' || q ELSE 'd' || q || '_' || r END AS doc_id,
               r - 1 AS position, r AS rank,
               CAST(day AS TIMESTAMPTZ) AS timestamp, strftime(day, '%Y-%m-%d') AS day
        FROM ranked"""
    columns = ", ".join(LAYOUT_COLUMNS)  # the day is the folder
    con = duckdb.connect(config={"memory_limit": memory_limit,
                                 "preserve_insertion_order": False})
    try:
        con.execute("SET TimeZone = 'UTC'")
        marks = folder / "chunks"
        marks.mkdir(exist_ok=True)
        for chunk, start in enumerate(range(0, sessions, GENERATED_CHUNK)):
            if (marks / f"{chunk}.done").exists():
                continue  # resumed: this chunk's files are complete
            stop = min(sessions, start + GENERATED_CHUNK)
            for day in range(days):  # a day's sessions are s = day mod days: one plain COPY
                target = folder / "log" / f"day={date(2026, 11, 1) + timedelta(day)}"
                target.mkdir(parents=True, exist_ok=True)
                chunk_sql = events.format(start=start + day, stop=stop)
                con.execute(f"COPY (SELECT {columns} FROM ({chunk_sql})) TO "
                            f"'{target / f'part_{chunk}.parquet'}' "
                            "(FORMAT parquet, ROW_GROUP_SIZE 1000000)")
            (marks / f"{chunk}.done").touch()
            print(f"  generated sessions {start:,}..{stop:,}", flush=True)
        return int(con.execute("SELECT COUNT(*) FROM read_parquet($f)",
                               {"f": str(folder / "log" / "**" / "*.parquet")}).fetchone()[0])
    finally:
        con.close()


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


def _jvm(spark: object) -> tuple[float, float]:
    """The Spark driver JVM's CPU seconds so far and its peak RSS (MB)."""
    pid = spark.sparkContext._gateway.proc.pid
    status = Path(f"/proc/{pid}/status").read_text()
    peak = next(int(line.split()[1]) / 1024 for line in status.splitlines()
                if line.startswith("VmHWM:"))
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), peak


def measure_engine(engine: str, folder: Path, batch_rows: int | None = None
                   ) -> dict[str, float]:
    """Wall and CPU seconds (this process's threads, and for Spark the JVM's too) and peak
    RSS (VmHWM: whole process, the JVM's added for Spark) of one replay.  For Spark the
    session is started first and its start (JVM launch and Spark's own start-up) is
    reported apart (``start_seconds``, ``start_cpu``) and left out of ``seconds`` and
    ``cpu``: a long-lived process or a cluster pays it once, not per replay."""
    sys.path.insert(0, str(ROOT))
    from judge_app.services import clicks
    from judge_app.store import Store

    reset_peak()
    start_seconds = start_cpu = jvm_peak = jvm_cpu = 0.0
    if engine == "spark":
        from judge_app.store.click_spark import spark_session

        start, cpu = time.perf_counter(), time.process_time()
        spark = spark_session("local[*]")
        start_jvm_cpu = _jvm(spark)[0]
        start_seconds = time.perf_counter() - start
        start_cpu = time.process_time() - cpu + start_jvm_cpu
    start, cpu = time.perf_counter(), time.process_time()
    with Store(folder / "bench.duckdb") as store:
        dataset = store.dataset("bench")
        options = {"batch_rows": batch_rows} if batch_rows and engine == "duckdb" else {}
        result = clicks.replay_runs(store, dataset, "a", "b", engine=engine,
                                    source=folder / "log", spark_master="local[*]", **options)
        if engine == "spark":
            jvm_cpu, jvm_peak = _jvm(spark)
            jvm_cpu -= start_jvm_cpu
    return {"seconds": time.perf_counter() - start,
            "cpu": time.process_time() - cpu + jvm_cpu,
            "start_seconds": start_seconds, "start_cpu": start_cpu,
            "peak_mb": status_mb("VmHWM") + jvm_peak,
            "delta": result.summary.delta, "sessions": result.basis.sessions,
            "engagements": result.basis.engagements}


BENCH_DATA = Path("/work/benchdata")


def write_ndjson(folder: Path, out: Path) -> Path:
    """The bench log under ``folder/log`` as one gzipped UBI NDJSON file of ubi_events
    documents (action_name, query_id, user_query, session_id, ISO timestamp,
    event_attributes.object.object_id, event_attributes.position.ordinal), and a copy of
    the bench store beside it (so no other process holds it); returns the file."""
    out.mkdir(parents=True, exist_ok=True)
    target = out / "log.ndjson.gz"
    if not target.exists():
        con = duckdb.connect(config={"memory_limit": "1GB",
                                     "preserve_insertion_order": False})
        try:
            con.execute("SET TimeZone = 'UTC'")
            con.execute(f"""COPY (
                SELECT action AS action_name, query_id, query_id AS user_query, session_id,
                       strftime(timestamp, '%Y-%m-%dT%H:%M:%SZ') AS timestamp,
                       {{'object': {{'object_id': doc_id}},
                        'position': {{'ordinal': position}}}} AS event_attributes
                FROM read_parquet('{folder / "log" / "**" / "*.parquet"}'))
                TO '{target}.part' (FORMAT json, COMPRESSION gzip)""")
        finally:
            con.close()
        Path(f"{target}.part").rename(target)
    store = out / "bench.duckdb"
    if not store.exists():
        store.write_bytes((folder / "bench.duckdb").read_bytes())
    return target


def measure_ndjson(how: str, log: Path, memory_limit: str | None = None
                   ) -> dict[str, float]:
    """One replay of ``log`` (``inplace``: the engine reads the NDJSON; ``converted``: the
    former temporary conversion first) in this process: wall seconds and peak RSS."""
    sys.path.insert(0, str(ROOT))
    from judge_app.services import click_engines, clicks
    from judge_app.store import Store

    reset_peak()
    start = time.perf_counter()
    with Store(log.parent / "bench.duckdb") as store, \
            tempfile.TemporaryDirectory(prefix="sxs-ndjson-") as scratch:
        source = log
        if how == "converted":
            source = Path(scratch) / "log"
            click_engines.convert_log(log, source)
        result = clicks.replay_runs(store, store.dataset("bench"), "a", "b", engine="duckdb",
                                    source=source, permutations=1000,
                                    memory_limit=memory_limit)
    return {"seconds": time.perf_counter() - start, "peak_mb": status_mb("VmHWM"),
            "delta": result.summary.delta, "sessions": result.basis.sessions}


def ndjson(sizes: list[int], queries: int, depth: int, cache: Path, out: Path,
           memory_limit: str | None = None) -> None:
    for size in sizes:
        folder = bench_folder(size, queries, depth, cache)
        log = write_ndjson(folder, out / f"sessions-{size}")
        print(f"{size:,} sessions: {log} ({log.stat().st_size / 1e6:,.0f} MB gzipped)",
              flush=True)
        for how in ("inplace", "converted"):
            limit = ["--memory-limit", memory_limit] if memory_limit else []
            done = subprocess.run([sys.executable, __file__, "--measure-ndjson", how,
                                   "--folder", str(log), *limit], capture_output=True,
                                  text=True)
            if done.returncode:
                sys.exit(f"{how} failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"  {how} (memory limit {memory_limit or '2GB'}): wall "
                  f"{figures['seconds']:.1f} s, peak RSS {figures['peak_mb']:,.0f} MB, "
                  f"{figures['sessions']:,} sessions replayed, "
                  f"delta {figures['delta']:+.9f}", flush=True)


def bench_folder(size: int, queries: int, depth: int, cache: Path) -> Path:
    """The log of ``size`` sessions, its runs and a store with the dataset, generated once
    under ``cache`` (``done`` marks a complete folder; an incomplete one is redone)."""
    folder = cache / f"sessions-{size}-q{queries}-d{depth}"
    if (folder / "done").exists():
        return folder
    folder.mkdir(parents=True, exist_ok=True)  # an incomplete folder resumes its chunks
    start, cpu = time.perf_counter(), time.process_time()
    events = generate_sql(size, queries, depth, folder)
    if (folder / "bench.duckdb").exists():
        (folder / "bench.duckdb").unlink()
    prepare_store(queries, folder)
    (folder / "done").write_text(f"{events}\n")
    print(f"{size:,} sessions: wrote {events:,} events as Parquet by day in "
          f"{time.perf_counter() - start:.1f} s (CPU {time.process_time() - cpu:.1f} s of "
          "this process; DuckDB's threads included)", flush=True)
    return folder


def engines(sizes: list[int], queries: int, depth: int, spark: bool, cache: Path,
            engines_run: tuple[str, ...] = ("duckdb",)) -> None:
    rows = []
    for size in sizes:
        folder = bench_folder(size, queries, depth, cache)
        chosen = engines_run + (("spark",) if spark and "spark" not in engines_run else ())
        for engine in chosen:
            if engine == "spark" and size > 10_000_000:
                continue  # Spark local is measured against DuckDB up to 10M
            load = os.getloadavg()[0]
            done = subprocess.run([sys.executable, __file__, "--measure-engine", engine,
                                   "--folder", str(folder)], capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"{engine} failed:\n{done.stderr[-3000:]}")
            figures = json.loads(done.stdout.strip().splitlines()[-1])
            rows.append((size, engine, figures))
            print(f"  {size:,} sessions, {engine}: wall {figures['seconds']:.1f} s, CPU "
                  f"{figures['cpu']:.1f} s, peak RSS {figures['peak_mb']:,.0f} MB; "
                  + (f"(start-up apart: wall {figures['start_seconds']:.1f} s, CPU "
                     f"{figures['start_cpu']:.1f} s) " if figures.get("start_cpu") else "")
                  + f"{figures['sessions']:,} sessions replayed, delta {figures['delta']:+.9f} "
                  f"(load average {load:.1f} at the start)", flush=True)
    for engine in dict.fromkeys(e for _, e, _ in rows):
        mine = [(size, f) for size, e, f in rows if e == engine]
        for (s0, f0), (s1, f1) in pairwise(mine):
            print(f"{engine} from {s0:,} to {s1:,} sessions (x{s1 / s0:g}): wall "
                  f"x{f1['seconds'] / f0['seconds']:.2f}, CPU x{f1['cpu'] / f0['cpu']:.2f}, "
                  f"peak memory x{f1['peak_mb'] / max(f0['peak_mb'], 1):.2f}")
    sizes_both = {s for s, e, _ in rows if e == "spark"}
    for size in sorted(sizes_both):
        duck = next(f for s, e, f in rows if s == size and e == "duckdb")
        sp = next(f for s, e, f in rows if s == size and e == "spark")
        print(f"spark / duckdb at {size:,} sessions: wall x{sp['seconds'] / duck['seconds']:.2f}"
              f", CPU x{sp['cpu'] / duck['cpu']:.2f} (Spark's start-up left out; with it: wall "
              f"x{(sp['seconds'] + sp['start_seconds']) / duck['seconds']:.2f}, CPU "
              f"x{(sp['cpu'] + sp['start_cpu']) / duck['cpu']:.2f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", action="store_true")
    parser.add_argument("--sizes", default="1000000,10000000")
    parser.add_argument("--with-100m", action="store_true")
    parser.add_argument("--spark", action="store_true")
    parser.add_argument("--cache", "--data-dir", default=str(BENCH_DATA),
                        help="where generated logs are kept between runs")
    parser.add_argument("--generate-only", action="store_true")
    parser.add_argument("--batch-rows", type=int, default=None,
                        help="with --measure-engine duckdb: events per batch")
    parser.add_argument("--measure-engine", choices=["duckdb", "spark"])
    parser.add_argument("--ndjson", action="store_true",
                        help="time replay over UBI NDJSON in place vs. converted first")
    parser.add_argument("--ndjson-dir", default="/tmp/sxs-ndjson-bench")
    parser.add_argument("--measure-ndjson", choices=["inplace", "converted"])
    parser.add_argument("--memory-limit", default=None,
                        help="with --ndjson: DuckDB's memory limit (default 2GB)")
    parser.add_argument("--sessions", type=int, default=1_000_000)
    parser.add_argument("--queries", type=int, default=20_000)
    parser.add_argument("--depth", type=int, default=100)
    parser.add_argument("--measure", choices=["sxs", "sxs-no-tests", "floor"])
    parser.add_argument("--folder")
    args = parser.parse_args()
    if args.measure_engine:
        print(json.dumps(measure_engine(args.measure_engine, Path(args.folder),
                                        args.batch_rows)))
        return
    if args.measure_ndjson:
        print(json.dumps(measure_ndjson(args.measure_ndjson, Path(args.folder),
                                        args.memory_limit)))
        return
    if args.ndjson:
        ndjson([int(n) for n in args.sizes.split(",")], args.queries, args.depth,
               Path(args.cache), Path(args.ndjson_dir), args.memory_limit)
        return
    if args.engines:
        sizes = [int(n) for n in args.sizes.split(",")] + ([100_000_000] if args.with_100m
                                                          else [])
        if args.generate_only:
            for size in sizes:
                bench_folder(size, args.queries, args.depth, Path(args.cache))
            return
        engines(sizes, args.queries, args.depth, args.spark, Path(args.cache))
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
