"""Benchmark: sxs metrics against pytrec_eval and ranx, measured in the same run.

    pip install -e '.[bench]' && python tests/bench/metrics_bench.py [--queries 10000]
    python tests/bench/metrics_bench.py --only-sxs --data /tmp/bench   # sxs alone, data kept

Data: Q queries x 1,000 ranked docs in each of two runs (B re-ranks A's docs), 100 judged docs
per query: 60 pooled from the two runs' top 100 and 40 drawn from the rest of the collection
(grades 0-3, string ids).  Each tool runs in its own process from the same Parquet files, so
peak memory is its own; figures are wall-clock seconds on this machine, and the ratios are what
to read (machines here are noisy).

* sxs: ndcg@10, ndcg_f@10, ndcg_m@10 for both runs plus RBO@10 between them, end to end from
  DataFrames (qrels indexed once).  It reads the run columns it uses (query_id, doc_id, rank;
  no score) with the query ids dictionary-coded (a categorical, as Parquet stores them).
* pytrec_eval: ndcg_cut.10 plain and judged-only (-J) for both runs, its dict building included.
* ranx (if installed): ndcg@10 for both runs, warm (numba compiled first); its input building
  is reported apart.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from memory import reset_peak, status_mb

DEPTH = 1000
JUDGED = 100


def _peak_mb() -> float:
    return status_mb("VmHWM")


def generate(queries: int, folder: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    collection = 2_000_000
    docs = np.stack([rng.choice(collection, size=DEPTH, replace=False) for _ in range(queries)])
    score_a = np.sort(rng.uniform(size=(queries, DEPTH)), axis=1)[:, ::-1]
    order_b = np.argsort(-(score_a + rng.normal(0, 0.15, size=score_a.shape)), axis=1)
    docs_b = np.take_along_axis(docs, order_b, axis=1)
    qid = np.repeat([f"q{i}" for i in range(queries)], DEPTH)
    ranks = np.tile(np.arange(1, DEPTH + 1), queries)
    scores = np.tile(np.linspace(1000.0, 1.0, DEPTH), queries)
    for name, d in (("a", docs), ("b", docs_b)):
        pd.DataFrame({"query_id": qid, "doc_id": np.char.add("d", d.ravel().astype(str)),
                      "rank": ranks, "score": scores}).to_parquet(folder / f"run_{name}.parquet")
    rows = []
    for q in range(queries):
        pool = np.union1d(docs[q, :100], docs_b[q, :100])
        pooled = rng.choice(pool, size=60, replace=False)
        rest = rng.choice(collection, size=40, replace=False)
        judged = np.unique(np.concatenate((pooled, rest)))[:JUDGED]
        rows.append(pd.DataFrame({"query_id": f"q{q}", "doc_id": judged,
                                  "grade": rng.choice(4, size=len(judged), p=[.4, .3, .2, .1])}))
    qrels = pd.concat(rows, ignore_index=True)
    qrels["doc_id"] = "d" + qrels["doc_id"].astype(str)
    qrels.to_parquet(folder / "qrels.parquet")


def _load(folder: Path, run_columns: list[str] | None = None, dictionary: list[str] | None = None
          ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """The two runs (only ``run_columns``; ``dictionary`` columns read as categoricals, the
    way Parquet stores them) and the qrels."""
    kwargs = {"read_dictionary": dictionary} if dictionary else {}
    runs = [pd.read_parquet(folder / f"run_{name}.parquet", columns=run_columns, **kwargs)
            for name in ("a", "b")]
    return runs[0], runs[1], pd.read_parquet(folder / "qrels.parquet")


def worker_sxs(folder: Path) -> dict:
    from metrics import compare

    run_a, run_b, qrels = _load(folder, run_columns=["query_id", "doc_id", "rank"],
                                dictionary=["query_id"])
    measures = ["ndcg@10", "ndcg_f@10", "ndcg_m@10", "rbo(p=0.9)@10"]
    base = reset_peak()
    start = time.perf_counter()
    result = compare(run_a, run_b, qrels, measures, max_grade=3, tests=False)
    seconds = time.perf_counter() - start
    peak = _peak_mb()
    start = time.perf_counter()
    compare(run_a, run_b, qrels, measures, max_grade=3)
    with_tests = time.perf_counter() - start
    means = {run: result.summary[f"mean_{run}"].to_dict() for run in ("a", "b")}
    return {"seconds": seconds, "with_tests_seconds": with_tests, "peak_mb": peak,
            "data_mb": base,
            "means": means, "rbo_ext": float(result.rbo["ext"].mean())}


def worker_pytrec(folder: Path) -> dict:
    import pytrec_eval

    run_a, run_b, qrels = _load(folder)
    base = reset_peak()
    start = time.perf_counter()
    q: dict[str, dict[str, int]] = {}
    for qid, doc, grade in zip(qrels["query_id"].tolist(), qrels["doc_id"].tolist(),
                               qrels["grade"].tolist(), strict=True):
        q.setdefault(qid, {})[doc] = int(grade)
    runs = {}
    for name, run in (("a", run_a), ("b", run_b)):
        r: dict[str, dict[str, float]] = {}
        for qid, doc, score in zip(run["query_id"].tolist(), run["doc_id"].tolist(),
                                   run["score"].tolist(), strict=True):
            r.setdefault(qid, {})[doc] = score
        runs[name] = r
    built = time.perf_counter() - start
    means = {}
    for name, r in runs.items():
        plain = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"}).evaluate(r)
        judged = pytrec_eval.RelevanceEvaluator(q, {"ndcg_cut.10"},
                                                judged_docs_only_flag=True).evaluate(r)
        means[name] = {"ndcg@10": float(np.mean([v["ndcg_cut_10"] for v in plain.values()])),
                       "ndcg_f@10": float(np.mean([v["ndcg_cut_10"] for v in judged.values()]))}
    seconds = time.perf_counter() - start
    return {"seconds": seconds, "build_seconds": built, "peak_mb": _peak_mb(), "data_mb": base,
            "means": means}


def worker_ranx(folder: Path) -> dict:
    from ranx import Qrels, Run, evaluate

    run_a, run_b, qrels = (f.astype({"query_id": object, "doc_id": object}) for f in _load(folder))
    warm_q = Qrels.from_dict({"w": {"a": 1}})
    evaluate(warm_q, Run.from_dict({"w": {"a": 1.0}}), "ndcg@10")  # compile numba first
    start = time.perf_counter()
    rq = Qrels.from_df(qrels.astype({"grade": int}), q_id_col="query_id", doc_id_col="doc_id",
                       score_col="grade")
    runs = {name: Run.from_df(run, q_id_col="query_id", doc_id_col="doc_id", score_col="score")
            for name, run in (("a", run_a), ("b", run_b))}
    built = time.perf_counter() - start
    start = time.perf_counter()
    means = {name: {"ndcg@10": float(evaluate(rq, r, "ndcg@10"))} for name, r in runs.items()}
    return {"seconds": time.perf_counter() - start, "build_seconds": built, "means": means}


WORKERS = {"sxs": worker_sxs, "pytrec_eval": worker_pytrec, "ranx": worker_ranx}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--worker", choices=sorted(WORKERS))
    parser.add_argument("--dir", type=Path)
    parser.add_argument("--only-sxs", action="store_true",
                        help="run the sxs worker alone (quick, while iterating)")
    parser.add_argument("--data", type=Path,
                        help="keep the generated data in this folder and reuse it next time")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(WORKERS[args.worker](args.dir)))
        return
    with contextlib.ExitStack() as stack:
        if args.data is None:
            tmp = stack.enter_context(tempfile.TemporaryDirectory())
        else:
            args.data.mkdir(parents=True, exist_ok=True)
            tmp = str(args.data)
        folder = Path(tmp)
        start = time.perf_counter()
        if not (folder / "qrels.parquet").exists():
            generate(args.queries, folder)
        print(f"data: {args.queries} queries x {DEPTH} docs x 2 runs, {JUDGED} judged/query "
              f"(ready in {time.perf_counter() - start:.0f} s)")
        results = {}
        for name in ["sxs"] if args.only_sxs else WORKERS:
            done = subprocess.run([sys.executable, __file__, "--worker", name, "--dir", tmp],
                                  capture_output=True, text=True)
            if done.returncode:
                print(f"{name}: not run ({done.stderr.strip().splitlines()[-1]})")
                continue
            results[name] = json.loads(done.stdout)
    ours = results["sxs"]
    print(f"sxs          {ours['seconds']:6.2f} s end to end (3 measures x 2 runs + RBO), "
          f"peak RSS {ours['peak_mb']:.0f} MB ({ours['data_mb']:.0f} MB of it the loaded data); "
          f"with the paired tests (10,000 permutations, BCa bootstrap) "
          f"{ours['with_tests_seconds']:.2f} s")
    if "pytrec_eval" in results:
        ref = results["pytrec_eval"]
        print(f"pytrec_eval  {ref['seconds']:6.2f} s (dicts {ref['build_seconds']:.2f} s; "
              f"ndcg_cut.10 plain + -J, 2 runs), peak RSS {ref['peak_mb']:.0f} MB "
              f"({ref['data_mb']:.0f} MB of it the loaded data)")
        print(f"  ratio pytrec_eval / sxs: {ref['seconds'] / ours['seconds']:.1f}x")
        for run in ("a", "b"):
            for m in ("ndcg@10", "ndcg_f@10"):
                gap = abs(ref["means"][run][m] - ours["means"][run][m])
                assert gap < 1e-9, f"sxs and trec_eval disagree on {m} of run {run}: {gap}"
        print("  mean ndcg@10 and ndcg_f@10 agree with trec_eval to 1e-9")
    if "ranx" in results:
        ref = results["ranx"]
        print(f"ranx (warm)  {ref['seconds']:6.2f} s compute ndcg@10 x 2 runs "
              f"(+ {ref['build_seconds']:.1f} s building its input)")
        print(f"  ratio ranx compute / sxs end to end: {ref['seconds'] / ours['seconds']:.1f}x")


if __name__ == "__main__":
    main()
