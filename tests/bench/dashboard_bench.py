"""Benchmark: the dashboard's recompute on the demo store, cold and warm.

    python tests/bench/dashboard_bench.py [--repeats 5]

What the Dashboard page computes when its cache (keyed by the store's data version) misses:
``services.dashboard.dashboard`` for the demo's two runs at the page's settings (k from the
round, 5,000 permutations).  *Cold* is the first compute in a fresh process (imports and first
reads included, as after ``sxs serve`` starts); *warm* is each recompute after a judge's vote
changed the data version, in the same process, as a served page meets it.  The cached hit is
the data-version read alone.  Also walks every gain x discount once (warm).  Target (issue 11):
warm recompute <= 1 s.  Wall-clock on this machine, as busy as it is.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

START = time.perf_counter()

from judge_app.services import judging  # noqa: E402
from judge_app.services.dashboard import Settings, dashboard  # noqa: E402
from judge_app.services.demo import build_demo_store  # noqa: E402
from judge_app.store import Store  # noqa: E402
from metrics.conventions import DISCOUNTS, GAINS  # noqa: E402

RUN_A, RUN_B, JUDGE = "bm25", "title", "bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.duckdb") as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        store.invite_judge(JUDGE)
        settings = Settings(k=10)
        started = time.perf_counter()
        dashboard(store, dataset, RUN_A, RUN_B, settings, permutations=5000)
        cold = time.perf_counter() - started
        print(f"cold: first recompute in a fresh process {cold:.2f} s "
              f"(imports before it {started - START:.2f} s, not counted)")
        order = judging.query_order(store, dataset, RUN_A, RUN_B, settings.k)
        warm, hits = [], []
        for _ in range(args.repeats):
            plan = judging.plan_from(store, dataset, order, RUN_A, RUN_B, JUDGE)
            if not plan.queue:
                break
            view = judging.side_by_side(store, dataset, RUN_A, RUN_B, plan.queue[0],
                                        settings.k, JUDGE)
            judging.record_vote(store, dataset, view, "left", JUDGE)
            started = time.perf_counter()
            store.data_version(dataset)
            hits.append(time.perf_counter() - started)
            started = time.perf_counter()
            board = dashboard(store, dataset, RUN_A, RUN_B, settings, permutations=5000)
            warm.append(time.perf_counter() - started)
        print(f"warm: recompute after a vote, over {len(warm)} votes: median "
              f"{statistics.median(warm):.2f} s, max {max(warm):.2f} s "
              f"({len(board.health)} queries; cached hit = data version read, median "
              f"{statistics.median(hits) * 1000:.1f} ms)")
        grid = {}
        for gain in GAINS:
            for discount in DISCOUNTS:
                started = time.perf_counter()
                dashboard(store, dataset, RUN_A, RUN_B,
                          Settings(k=10, gain=gain, discount=discount), permutations=5000)
                grid[f"{gain}/{discount}"] = time.perf_counter() - started
        print("warm, every gain x discount: " +
              ", ".join(f"{name} {seconds:.2f} s" for name, seconds in grid.items()))


if __name__ == "__main__":
    main()
