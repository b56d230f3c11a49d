"""Benchmark: importing a generated 1M-line TREC qrels and a 10M-line TREC run into a store.

    python tests/bench/import_bench.py [--qrels 1000000] [--run 10000000]

Prints seconds and rows per second for each import (read + checks + one transaction), and the
store's size on disk.  Figures are wall-clock on this machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np

from judge_app.services import importing
from judge_app.store import Store
from metrics import ESCI


def write_qrels(path: Path, lines: int, rng: np.random.Generator) -> None:
    queries = max(1, lines // 100)
    qid = np.repeat(np.arange(queries), lines // queries + 1)[:lines]
    within = np.arange(lines) - np.searchsorted(qid, qid)
    grades = rng.integers(0, 4, size=lines)
    rows = np.char.add(np.char.add(np.char.add("q", qid.astype(str)), " 0 d"),
                       np.char.add(np.char.add((qid * 1000 + within).astype(str), " "),
                                   grades.astype(str)))
    path.write_text("\n".join(rows.tolist()) + "\n")


def write_run(path: Path, lines: int, depth: int = 1000) -> None:
    with path.open("w") as out:
        block = 1_000_000
        for start in range(0, lines, block):
            index = np.arange(start, min(lines, start + block))
            qid, rank = index // depth, index % depth + 1
            score = (depth - rank + 1) / depth
            text = [f"q{q} Q0 d{q * 7919 + r} {r} {s:.6f} bench"
                    for q, r, s in zip(qid.tolist(), rank.tolist(), score.tolist(), strict=True)]
            out.write("\n".join(text) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qrels", type=int, default=1_000_000)
    parser.add_argument("--run", type=int, default=10_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write_qrels(folder / "bench.qrels", args.qrels, rng)
        write_run(folder / "bench.run", args.run)
        with Store(folder / "bench.duckdb") as store:
            dataset = store.create_dataset("bench", ESCI)
            for label, action, rows in (
                    ("qrels", lambda: importing.import_qrels(store, dataset,
                                                            folder / "bench.qrels"), args.qrels),
                    ("run", lambda: importing.import_run(store, dataset, folder / "bench.run"),
                     args.run)):
                start = time.perf_counter()
                report = action()
                seconds = time.perf_counter() - start
                assert report.rows == rows, report
                print(f"{label:5} {rows:>11,} lines  {seconds:6.2f} s  {rows / seconds:12,.0f} "
                      "rows/s")
        size = (folder / "bench.duckdb").stat().st_size / 2**20
        print(f"store on disk: {size:,.0f} MB")


if __name__ == "__main__":
    main()
