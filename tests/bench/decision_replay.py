"""Judging replays, run by hand (not collected; minutes, not seconds).

    python tests/bench/decision_replay.py cranfield [--measure ndcg_m@10] [--seeds 5]
    python tests/bench/decision_replay.py calibration [--pairs 400] [--measure ndcg_m@5]

``cranfield``: the shipped demo, title (A) vs bm25 (B), its qrels as the oracle (a pool doc
they do not grade is grade 0), no label to start from, one judgment between two decisions:
per order, the judgments until decided, the share of the depth-10 pool, the verdict and
whether it is the verdict on the fully judged pool (random: one row per seed).

``calibration``: simulated run pairs with known truth (tests/metrics/simulated_pairs.py),
each judged from nothing in the decision order and stopped at the first decided verdict (a
batch of 1/40 of the pool between two decisions): the share of decided verdicts that name the
wrong run, how many of those the fully judged pool would also get wrong (query sampling,
not labels), and how many decided verdicts differ from the fully judged pool's.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from metrics.judging_simulation import replay, simulate_judging  # noqa: E402
from metrics.scale import CRANFIELD  # noqa: E402
from tests.metrics.simulated_pairs import simulated_pool, wrong  # noqa: E402
from tests.metrics.test_judging_simulation import _qrels, _trec_run  # noqa: E402


def cranfield(measure: str, seeds: int) -> None:
    title, bm25, qrels = _trec_run("title"), _trec_run("bm25"), _qrels()
    print(f"cranfield title (A) vs bm25 (B), {measure}, oracle: the demo's qrels")
    print(f"{'order':<10} {'seed':>4} {'judged':>7} {'share':>6}  verdict / all judged")
    runs = [("decision", 0), ("weight", 0), ("pool", 0)] + [("random", s) for s in range(seeds)]
    for order, seed in runs:
        start = time.perf_counter()
        found = simulate_judging(title, bm25, qrels, measure, max_grade=CRANFIELD, order=order,
                                 seed=seed)
        print(f"{order:<10} {seed:>4} {found.judgments:>7,} {found.share:>6.1%}  "
              f"{found.verdict.value} / {found.reference.verdict.value}"
              f"{'' if found.agrees else '  DISAGREES'}  ({time.perf_counter() - start:.0f} s)")
    print(f"pool: {found.pool:,} pairs")


def calibration(pairs: int, measure: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(pairs):
        n = int(rng.choice([20, 40, 80]))
        delta = float(rng.choice([0.0, 0.0, 0.3, -0.3, 0.8, -0.8]))
        full, truth = simulated_pool(rng, n, delta)
        pool = replace(full, grade=np.full(full.size, np.nan))
        found = replay(pool, truth, measure, batch=max(1, pool.size // 40))
        rows.append((delta, found.verdict.value, found.reference.verdict.value, found.share))
    frame = pd.DataFrame(rows, columns=["delta", "verdict", "reference", "share"])
    decided = frame["verdict"].isin(["b_better", "a_better"])
    errors = np.array([wrong(v, d) for v, d in zip(frame["verdict"], frame["delta"],
                                                   strict=True)])
    reference_errors = np.array([wrong(v, d) for v, d in zip(frame["reference"],
                                                             frame["delta"], strict=True)])
    print(f"{measure}: {pairs} replays, {decided.sum()} decided a difference, "
          f"{errors.sum()} wrong ({errors.sum() / max(decided.sum(), 1):.1%} of the decided); "
          f"of those, {(errors & reference_errors).sum()} also wrong with every pair judged; "
          f"decided verdicts unlike the fully judged pool's: "
          f"{(decided & (frame['verdict'] != frame['reference'])).sum()}")
    print(frame.groupby("delta")["verdict"].value_counts().unstack(fill_value=0))
    print("mean share of the pool judged, by delta:")
    print(frame.groupby("delta")["share"].mean().round(3).to_string())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["cranfield", "calibration"])
    parser.add_argument("--measure", default=None)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--seed", type=int, default=3)
    args = parser.parse_args()
    if args.what == "cranfield":
        cranfield(args.measure or "ndcg_m@10", args.seeds)
    else:
        calibration(args.pairs, args.measure or "ndcg_m@5", args.seed)


if __name__ == "__main__":
    main()
