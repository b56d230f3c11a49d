"""sxs metrics: NDCG, NDCG-f, NDCG-m, precision, coverage, bounds, rank-biased overlap, and the
decision between two runs (judging pool, judging orders, replay, sequential vote test).

Pure computation over numpy, pandas and scipy; never imports the app or the store.

The names below load their module on first use (PEP 562), so ``import metrics.scale`` or
``metrics.errors`` stays cheap for the command line's start-up.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

_HOMES = {
    "BINARY": "metrics.scale",
    "Comparison": "metrics.compare",
    "Decision": "metrics.decision",
    "Discount": "metrics.dcg",
    "DuplicateDocError": "metrics.ranking",
    "ESCI": "metrics.scale",
    "Evaluation": "metrics.evaluate",
    "Gain": "metrics.dcg",
    "GradeScale": "metrics.scale",
    "JudgingOrder": "metrics.judging_order",
    "JudgingPool": "metrics.judging_pool",
    "JudgingReplay": "metrics.judging_simulation",
    "LayoutError": "metrics.layout",
    "Measure": "metrics.measures",
    "NdcgBounds": "metrics.bounds",
    "PreparedQrels": "metrics.evaluate",
    "RBO": "metrics.rbo",
    "REGISTRY": "metrics.measures",
    "SequentialWinRate": "metrics.sequential",
    "Verdict": "metrics.decision",
    "WANDS": "metrics.scale",
    "best_ndcg_m": "metrics.ndcg",
    "compare": "metrics.compare",
    "dcg": "metrics.ndcg",
    "decide": "metrics.decision",
    "evaluate": "metrics.evaluate",
    "graded_precision": "metrics.precision",
    "ideal_dcg": "metrics.ndcg",
    "judged_at_k": "metrics.precision",
    "judging_order": "metrics.judging_order",
    "judging_pool": "metrics.judging_pool",
    "make_measure": "metrics.measures",
    "ndcg": "metrics.ndcg",
    "ndcg_bounds": "metrics.bounds",
    "ndcg_f": "metrics.ndcg",
    "ndcg_m": "metrics.ndcg",
    "parse_measure": "metrics.measures",
    "parse_measures": "metrics.measures",
    "precision": "metrics.precision",
    "prepare_qrels": "metrics.evaluate",
    "ranking_from_scores": "metrics.ranking",
    "ranking_with_ties": "metrics.rbo_ties",
    "rbo": "metrics.rbo",
    "rbo_ties": "metrics.rbo_ties",
    "sequential_win_rate": "metrics.sequential",
    "simulate_judging": "metrics.judging_simulation",
}

__all__ = [
    "BINARY",
    "ESCI",
    "RBO",
    "REGISTRY",
    "WANDS",
    "Comparison",
    "Decision",
    "Discount",
    "DuplicateDocError",
    "Evaluation",
    "Gain",
    "GradeScale",
    "JudgingOrder",
    "JudgingPool",
    "JudgingReplay",
    "LayoutError",
    "Measure",
    "NdcgBounds",
    "PreparedQrels",
    "SequentialWinRate",
    "Verdict",
    "best_ndcg_m",
    "compare",
    "dcg",
    "decide",
    "evaluate",
    "graded_precision",
    "ideal_dcg",
    "judged_at_k",
    "judging_order",
    "judging_pool",
    "make_measure",
    "ndcg",
    "ndcg_bounds",
    "ndcg_f",
    "ndcg_m",
    "parse_measure",
    "parse_measures",
    "precision",
    "prepare_qrels",
    "ranking_from_scores",
    "ranking_with_ties",
    "rbo",
    "rbo_ties",
    "sequential_win_rate",
    "simulate_judging",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'metrics' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_HOMES))


class _Package(types.ModuleType):
    """Importing a submodule binds it on the package (``metrics.dcg`` the module); where the
    package exports something of that name (``metrics.dcg`` the function, from
    ``metrics.ndcg``), the exported name wins, as it did when this package imported eagerly."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and name in _HOMES:
            self.__dict__.pop(name, None)  # resolved by __getattr__ to the exported name
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


if TYPE_CHECKING:
    from metrics.bounds import NdcgBounds, ndcg_bounds
    from metrics.compare import Comparison, compare
    from metrics.dcg import Discount, Gain
    from metrics.decision import Decision, Verdict, decide
    from metrics.evaluate import Evaluation, PreparedQrels, evaluate, prepare_qrels
    from metrics.judging_order import JudgingOrder, judging_order
    from metrics.judging_pool import JudgingPool, judging_pool
    from metrics.judging_simulation import JudgingReplay, simulate_judging
    from metrics.layout import LayoutError
    from metrics.measures import REGISTRY, Measure, make_measure, parse_measure, parse_measures
    from metrics.ndcg import best_ndcg_m, dcg, ideal_dcg, ndcg, ndcg_f, ndcg_m
    from metrics.precision import graded_precision, judged_at_k, precision
    from metrics.ranking import DuplicateDocError, ranking_from_scores
    from metrics.rbo import RBO, rbo
    from metrics.rbo_ties import ranking_with_ties, rbo_ties
    from metrics.scale import BINARY, ESCI, WANDS, GradeScale
    from metrics.sequential import SequentialWinRate, sequential_win_rate
