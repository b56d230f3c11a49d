"""The measures sxs computes when none are named — declared once, light to import.

``sxs evaluate``, ``sxs compare``, ``sxs demo``, the dashboard and ``sxs report`` all take
their defaults from here.
"""

from __future__ import annotations

EVALUATE_MEASURES: tuple[str, ...] = ("ndcg", "ndcg_f", "ndcg_m", "best_ndcg_m", "p", "judged")
"""What ``sxs evaluate`` and the dashboard's per-run table compute (at k)."""

COMPARE_MEASURES: tuple[str, ...] = ("ndcg", "ndcg_f", "ndcg_m", "rbo")
"""What ``sxs compare``, ``sxs demo`` and the dashboard's A-vs-B table compute (at k)."""

_NDCG_FAMILY = ("ndcg", "ndcg_f", "ndcg_m", "best_ndcg_m")


def default_measures(names: tuple[str, ...] = EVALUATE_MEASURES, k: int = 10,
                     gain: str = "linear", discount: str = "log2") -> list[str]:
    """Measure names at depth ``k``; gain and discount go to the NDCG family only.

    >>> default_measures(COMPARE_MEASURES, 5, discount="reciprocal")
    ["ndcg(discount='reciprocal')@5", "ndcg_f(discount='reciprocal')@5", \
"ndcg_m(discount='reciprocal')@5", 'rbo@5']
    """
    options = []
    if discount != "log2":
        options.append(f"discount='{discount}'")
    if gain != "linear":
        options.append(f"gain='{gain}'")
    args = f"({','.join(options)})" if options else ""
    return [f"{name}{args if name in _NDCG_FAMILY else ''}@{k}" for name in names]
