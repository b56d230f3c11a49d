"""sxs metrics: NDCG, NDCG-f, NDCG-m, precision, coverage, bounds and rank-biased overlap.

Pure computation over numpy, pandas and scipy; never imports the app or the store.
"""

from metrics.bounds import NdcgBounds, ndcg_bounds
from metrics.compare import Comparison, compare
from metrics.dcg import Discount, Gain
from metrics.evaluate import Evaluation, PreparedQrels, evaluate, prepare_qrels
from metrics.layout import LayoutError
from metrics.measures import REGISTRY, Measure, make_measure, parse_measure, parse_measures
from metrics.ndcg import best_ndcg_m, dcg, ideal_dcg, ndcg, ndcg_f, ndcg_m
from metrics.precision import graded_precision, judged_at_k, precision
from metrics.ranking import DuplicateDocError, ranking_from_scores
from metrics.rbo import RBO, rbo
from metrics.rbo_ties import ranking_with_ties, rbo_ties
from metrics.scale import BINARY, ESCI, WANDS, GradeScale

__all__ = [
    "BINARY",
    "ESCI",
    "RBO",
    "REGISTRY",
    "WANDS",
    "Comparison",
    "Discount",
    "DuplicateDocError",
    "Evaluation",
    "Gain",
    "GradeScale",
    "LayoutError",
    "Measure",
    "NdcgBounds",
    "PreparedQrels",
    "best_ndcg_m",
    "compare",
    "dcg",
    "evaluate",
    "graded_precision",
    "ideal_dcg",
    "judged_at_k",
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
]
