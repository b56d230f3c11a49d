"""The measures sxs computes when none are named — declared once, light to import.

``sxs evaluate``, ``sxs compare``, ``sxs demo``, the dashboard and ``sxs report`` all take
their defaults from here.
"""

from __future__ import annotations

EVALUATE_MEASURES: tuple[str, ...] = ("ndcg", "ndcg_f", "ndcg_m", "best_ndcg_m", "p", "judged")
"""What ``sxs evaluate`` and the dashboard's per-run table compute (at k)."""

COMPARE_MEASURES: tuple[str, ...] = ("ndcg", "ndcg_f", "ndcg_m", "rbo")
"""What ``sxs compare``, ``sxs demo`` and the dashboard's A-vs-B table compute (at k)."""

VERSUS_EXPERT_MEASURES: tuple[str, ...] = ("ndcg", "ndcg_f", "ndcg_m")
"""What the dashboard's "metric against the experts" table holds up to the votes (at k): the
per-run measures of :data:`COMPARE_MEASURES`, whose deltas the comparison has."""

HEALTH_MEASURE = "best_ndcg_m"
"""The dashboard's dataset health: per query, the best NDCG-m the labels allow (at k), read
from run A's scores under :data:`EVALUATE_MEASURES`."""

OVERLAP_MEASURES: tuple[str, ...] = ("ndcg", "rbo")
"""What the dashboard computes for RBO before the label gaps are filled (at k): RBO, and NDCG
because a comparison needs one per-run measure (its figures are not shown)."""

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
