"""Write crowd-kit's Dawid-Skene output on simulated grades, for tests/metrics/test_consensus.py.

Run with a Python that has crowd-kit (not a dependency of sxs: it pulls in transformers, nltk
and scikit-learn), from this folder; see README.md here for the exact command used.  Each case
writes <case>.labels.csv (task, worker, label), <case>.probas.csv (task, label, p),
<case>.errors.csv (worker, given, true, p), <case>.priors.csv (label, p); cases.json holds each
case's n_iter, tol, crowd-kit's iteration count, and the versions that produced them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from crowdkit import __version__ as crowdkit_version
from crowdkit.aggregation import DawidSkene


def simulate(seed: int, n_items: int, grades: int, judges: list[str], per_item: int
             ) -> pd.DataFrame:
    """Judges of known behaviour grade items of a random true grade.

    careful: right 80%, else a neighbouring grade; high: one grade too high (capped);
    random: any grade; loose: right 55%, else any grade; single: always grade 0."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, grades, n_items)
    rows = []
    for i, z in enumerate(truth):
        for w in rng.choice(len(judges), size=per_item, replace=False):
            kind = judges[w].split("-")[0]
            if kind == "careful":
                g = z if rng.random() < 0.8 else int(np.clip(z + rng.choice([-1, 1]), 0,
                                                               grades - 1))
            elif kind == "high":
                g = min(z + 1, grades - 1)
            elif kind == "random":
                g = rng.integers(0, grades)
            elif kind == "loose":
                g = z if rng.random() < 0.55 else rng.integers(0, grades)
            else:  # single
                g = 0
            rows.append((f"t{i:03d}", judges[w], int(g)))
    return pd.DataFrame(rows, columns=["task", "worker", "label"])


CASES = {
    # name: (seed, items, grades, judges, judges per item, n_iter, tol)
    "esci_full": (1, 60, 4, ["careful-1", "careful-2", "careful-3", "high-1", "random-1"],
                  5, 100, 1e-5),
    "wands_sparse": (2, 150, 3, ["careful-1", "careful-2", "careful-3", "careful-4",
                                 "high-1", "random-1", "loose-1", "loose-2"], 3, 100, 1e-5),
    "binary": (3, 80, 2, ["careful-1", "careful-2", "loose-1", "random-1"], 3, 100, 1e-5),
    "cranfield_pairs": (4, 90, 5, ["careful-1", "careful-2", "careful-3", "high-1",
                                   "loose-1", "single-1"], 2, 100, 1e-5),
    "capped_at_3_steps": (5, 70, 4, ["careful-1", "careful-2", "high-1", "random-1"],
                          3, 3, 1e-5),
    "tight_tol": (6, 50, 4, ["careful-1", "careful-2", "loose-1", "random-1", "high-1"],
                  4, 200, 1e-9),
}


def main(out: Path) -> None:
    meta = {"crowd_kit": crowdkit_version, "pandas": pd.__version__,
            "numpy": np.__version__, "python": sys.version.split()[0], "cases": {}}
    for name, (seed, n_items, grades, judges, per_item, n_iter, tol) in CASES.items():
        data = simulate(seed, n_items, grades, judges, per_item)
        ds = DawidSkene(n_iter=n_iter, tol=tol).fit(data)
        data.to_csv(out / f"{name}.labels.csv", index=False)
        probas = ds.probas_.stack().rename("p").reset_index()
        probas.columns = ["task", "label", "p"]
        probas.sort_values(["task", "label"]).to_csv(out / f"{name}.probas.csv", index=False,
                                                     float_format="%.17g")
        errors = ds.errors_.stack().rename("p").reset_index()
        errors.columns = ["worker", "given", "true", "p"]
        errors.sort_values(["worker", "given", "true"]).to_csv(
            out / f"{name}.errors.csv", index=False, float_format="%.17g")
        priors = ds.priors_.rename("p").reset_index()
        priors.columns = ["label", "p"]
        priors.sort_values("label").to_csv(out / f"{name}.priors.csv", index=False,
                                           float_format="%.17g")
        meta["cases"][name] = {"n_iter": n_iter, "tol": tol,
                               "iterations": len(ds.loss_history_)}
    (out / "cases.json").write_text(json.dumps(meta, indent=1) + "\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent)
