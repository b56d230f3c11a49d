"""How much the judges of an item disagree: the order of the re-judge queue.

Input: one row per (item, judge) with the judge's current grade (an item is a (query, doc)).
An item is **disputed** when its judges gave at least two different grades (one judge, or
judges who all agree, is no dispute).  Per item:

* ``judges``: how many judges graded it; ``spread``: highest grade - lowest grade;
* ``grade_entropy``: the entropy in bits of the item's grade distribution,
  H = -sum_g p_g log2 p_g with p_g the share of its judges who gave g (0 when all agree;
  log2(n) at most for n judges all apart);
* ``dispute``: what the queue is ordered by — the item's **Dawid-Skene posterior entropy**
  -sum_c T_ic log2 T_ic (:func:`metrics.consensus.dawid_skene`, each judge weighed by their
  confusion matrix, so two careless judges against a careful one make less of a dispute than
  three careful judges split) when ``method="dawid-skene"`` (the label policy ``dawid-skene``
  is in force); else ``grade_entropy``.

The queue (:func:`disputes`) holds the disputed items, most disputed first: ``dispute``
descending, then ``spread`` descending, then fewer judges first, then the item's key.  Entropy
terms with p = 0 count 0.  No labels, or no disputed item: an empty frame with the columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd

from metrics.consensus import ITEM, dawid_skene
from metrics.errors import ArgumentError
from metrics.layout import require_columns

METHODS = ("grade-entropy", "dawid-skene")
COLUMNS = ("judges", "spread", "grade_entropy", "dispute")


def entropy_bits(shares: np.ndarray) -> np.ndarray:
    """Row-wise -sum p log2 p over a 2-d array of shares (p = 0 counts 0)."""
    p = np.asarray(shares, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=1)


def disputes(labels: pd.DataFrame, *, method: str = "grade-entropy",
             items: Sequence[str] = ITEM, judge: str = "judge", grade: str = "grade",
             grades: Iterable[float] | None = None) -> pd.DataFrame:
    """The disputed items of ``labels``, most disputed first (see the module): the item's key
    columns and COLUMNS.  ``grades`` (the scale) is passed to Dawid-Skene."""
    if method not in METHODS:
        raise ArgumentError(f"a dispute is measured by one of {', '.join(METHODS)}; "
                            f"got {method!r}")
    keys = list(items)
    require_columns(labels, "labels", (*keys, judge, grade))
    if labels.empty:
        return pd.DataFrame(columns=[*keys, *COLUMNS])
    grouped = labels.groupby(keys, sort=True)[grade]
    table = pd.DataFrame({"judges": grouped.size(),
                          "spread": grouped.max() - grouped.min()})
    counts = labels.groupby([*keys, grade]).size().unstack(fill_value=0)
    counts = counts.reindex(table.index)
    shares = counts.to_numpy(dtype=float) / counts.to_numpy().sum(axis=1, keepdims=True)
    table["grade_entropy"] = entropy_bits(shares)
    if method == "dawid-skene":
        found = dawid_skene(labels, items=keys, judge=judge, grade=grade, grades=grades)
        posterior = found.posterior.reindex(table.index)
        table["dispute"] = entropy_bits(posterior.to_numpy(dtype=float))
    else:
        table["dispute"] = table["grade_entropy"]
    disputed = table[table["spread"] > 0].reset_index()
    ordered = disputed.sort_values(["dispute", "spread", "judges", *keys],
                                   ascending=[False, False, True, *([True] * len(keys))],
                                   kind="stable")
    ordered["judges"] = ordered["judges"].astype(int)
    return ordered.reset_index(drop=True)[[*keys, *COLUMNS]]
