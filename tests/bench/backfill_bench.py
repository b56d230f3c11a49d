"""Benchmark: the Backfill page under AppTest on a fresh Cranfield demo store (225 queries).

    PYTHONPATH=$PWD python tests/bench/backfill_bench.py [--grades 20]

Signs a judge in, opens the Backfill page (the first draw: the order computed), then grades
the served pair ``--grades`` times and times each click's rerun (the grade stored, the order
taken anew on the moved data version, the next pair drawn), and a rerun with nothing changed
(the order from the cache).  Prints the order served and median / p90 / max in milliseconds.
Run it with ``PYTHONPATH`` at another checkout to time that one (a checkout from before the
decision order serves ``weight``).  Wall-clock on this machine (2 cores shared with other
work): compare runs taken side by side, not with figures from elsewhere.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.app.signed_pages import page, shown


def summary(times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p90 = ms[min(len(ms) - 1, int(0.9 * len(ms)))]
    return f"median {statistics.median(ms):.0f} ms, p90 {p90:.0f} ms, max {ms[-1]:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grades", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "demo.duckdb"
        with Store(db) as store:
            build_demo_store(store)
        os.environ["SXS_DB"] = str(db)
        os.environ.pop("SXS_OPEN", None)
        start = time.perf_counter()
        at = page(db, "bench", "app_pages/backfill.py")
        first = time.perf_counter() - start
        order = next((shown(c.value) for c in at.caption if "order:" in shown(c.value)),
                     "order: weight (no order line)")
        print(order.split("·")[-1].strip())
        print(f"first draw (sign-in page, then the Backfill page): {first * 1000:.0f} ms")
        clicks, idle = [], []
        for _ in range(args.grades):
            button = next(b for b in at.button if str(b.key).startswith("bf:"))
            start = time.perf_counter()
            button.click().run()
            clicks.append(time.perf_counter() - start)
            assert not at.exception, at.exception
            start = time.perf_counter()
            at.run()
            idle.append(time.perf_counter() - start)
        print(f"grade -> next pair ({args.grades} grades): {summary(clicks)}")
        print(f"rerun, nothing changed: {summary(idle)}")


if __name__ == "__main__":
    main()
