"""Every user-facing failure of the metrics package is a MetricsError under the one SxsError
root, with a one-line message; none escapes as a bare ValueError, KeyError or TypeError."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable

import numpy as np
import pandas as pd
import pytest

import metrics
from metrics import (
    ESCI,
    GradeScale,
    compare,
    evaluate,
    make_measure,
    ndcg,
    ndcg_bounds,
    ndcg_m,
    rbo,
)
from metrics.agreement import krippendorff_alpha, metric_vs_expert, weighted_kappa, win_rate
from metrics.consensus import dawid_skene, lower_median
from metrics.errors import DuplicateDocError, MetricsError, SxsError
from metrics.judge_quality import Thresholds, side_bias, speed, wilson_interval
from metrics.rbo_ties import rbo_ties
from metrics.significance import bootstrap_ci, paired_tests, t_test

RUN = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "rank": [1, 2]})
QRELS = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "grade": [1]})
LABELS = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "judge": ["j", "j"],
                       "grade": [1, 2]})


def _exception_classes() -> list[type[BaseException]]:
    found = []
    for info in pkgutil.iter_modules(metrics.__path__):
        module = importlib.import_module(f"metrics.{info.name}")
        for _, value in inspect.getmembers(module, inspect.isclass):
            if issubclass(value, BaseException) and value.__module__.startswith("metrics"):
                found.append(value)
    return sorted(set(found), key=lambda c: c.__qualname__)


def test_every_metrics_exception_is_a_metrics_error_under_sxs_error() -> None:
    classes = _exception_classes()
    assert {c.__name__ for c in classes} >= {"SxsError", "MetricsError", "LayoutError",
                                             "DuplicateDocError", "MeasureError"}
    for cls in classes:
        assert cls is SxsError or issubclass(cls, MetricsError), cls
    assert issubclass(MetricsError, SxsError) and issubclass(MetricsError, ValueError)


def test_the_app_re_exports_the_one_root() -> None:
    from judge_app import errors

    assert errors.SxsError is SxsError
    assert issubclass(errors.InputError, SxsError)


BAD_INPUTS: dict[str, Callable[[], object]] = {
    "run without doc_id": lambda: evaluate(RUN.drop(columns="doc_id"), QRELS, "ndcg@10"),
    "run not a frame": lambda: evaluate([("q", "a", 1)], QRELS, "ndcg@10"),
    "unknown measure": lambda: evaluate(RUN, QRELS, "mrr@10"),
    "measure without cutoff": lambda: evaluate(RUN, QRELS, "p"),
    "pairwise in evaluate": lambda: evaluate(RUN, QRELS, "rbo@10"),
    "bad missing_queries": lambda: evaluate(RUN, QRELS, "ndcg@10", missing_queries="keep"),
    "no max grade": lambda: evaluate(RUN, QRELS, "ndcg_m@10"),
    "max grade not a number": lambda: evaluate(RUN, QRELS, "ndcg_m@10", max_grade="three"),
    "compare without per-run measure": lambda: compare(RUN, RUN, QRELS, ["rbo@10"]),
    "compare bad measure": lambda: compare(RUN, RUN, QRELS, ["ndcg@ten"]),
    "measure cutoff 0": lambda: make_measure("ndcg", 0),
    "measure not text": lambda: evaluate(RUN, QRELS, [10]),
    "unaligned paired arrays": lambda: paired_tests(np.ones(3), np.ones(4)),
    "text in paired arrays": lambda: t_test(np.array(["x", "y"]), np.ones(2)),
    "NaN in paired arrays": lambda: t_test(np.array([1.0, np.nan]), np.ones(2)),
    "bad confidence": lambda: bootstrap_ci(np.zeros(5), np.arange(5.0), confidence=95),
    "bad permutations": lambda: paired_tests(np.zeros(5), np.arange(5.0), permutations=0),
    "alpha level": lambda: krippendorff_alpha(pd.DataFrame([[1, 2]]), level="ratio"),
    "alpha grade text": lambda: krippendorff_alpha(pd.DataFrame([[1, "high"]])),
    "kappa grade text": lambda: weighted_kappa(pd.Series([1, "x"]), pd.Series([1, 2])),
    "votes without columns": lambda: win_rate(pd.DataFrame({"choice": ["left"]})),
    "votes without query": lambda: metric_vs_expert(pd.Series(dtype=float), pd.DataFrame(
        {"run_b": ["b"], "left_run": ["a"], "choice": ["left"]})),
    "grade not on scale": lambda: ESCI.name_of(7),
    "empty scale": lambda: GradeScale.from_mapping({}),
    "scale value not whole": lambda: GradeScale.from_mapping({1.5: "half"}),
    "grade text": lambda: ndcg(["a"], {"a": "high"}, 10),
    "grade above max": lambda: ndcg_m(["a"], {"a": 5}, 10, max_grade=ESCI),
    "bound grades above max": lambda: ndcg_bounds(["a"], {}, 10, ESCI, grades=[7]),
    "bad k": lambda: ndcg(["a"], {"a": 1}, 0),
    "bad gain": lambda: ndcg(["a"], {"a": 1}, 10, gain="cubic"),
    "duplicate doc": lambda: ndcg(["a", "a"], {"a": 1}, 10),
    "rbo p": lambda: rbo(["a"], ["b"], p=1),
    "rbo depth": lambda: rbo(["a"], ["b"], depth=0),
    "rbo ties variant": lambda: rbo_ties(["a"], ["b"], ties="z"),
    "rbo ties duplicate": lambda: rbo_ties([{"a", "b"}, "a"], ["a"]),
    "consensus grade twice": lambda: dawid_skene(pd.concat([LABELS, LABELS])),
    "consensus grade text": lambda: lower_median(LABELS.assign(grade=["1", "high"])),
    "consensus grade off scale": lambda: dawid_skene(LABELS, grades=[0, 1]),
    "consensus without judge": lambda: dawid_skene(LABELS.drop(columns="judge")),
    "consensus max_iter": lambda: dawid_skene(LABELS, max_iter=0),
    "vote choice unknown": lambda: side_bias(pd.DataFrame(
        {"judge": ["j"], "choice": ["up"], "blind": [True]})),
    "negative time": lambda: speed(pd.DataFrame({"judge": ["j"], "ms_spent": [-5]})),
    "speed floor": lambda: speed(pd.DataFrame({"judge": ["j"], "ms_spent": [5]}),
                                 floor_seconds=-1),
    "threshold": lambda: Thresholds(min_votes=-3),
    "wilson k above n": lambda: wilson_interval(3, 2),
    "wilson confidence": lambda: wilson_interval(1, 2, confidence=95),
}


@pytest.mark.parametrize("case", BAD_INPUTS)
def test_bad_input_raises_a_one_line_metrics_error(case: str) -> None:
    with pytest.raises(MetricsError) as caught:
        BAD_INPUTS[case]()
    message = str(caught.value)
    assert message and "\n" not in message
    assert type(caught.value) is not MetricsError  # a named subclass says what kind


def test_a_repeated_doc_is_still_a_duplicate_doc_error() -> None:
    with pytest.raises(DuplicateDocError, match=r"doc 'a' appears twice .*ranks 2 and 5"):
        rbo_ties(["b", "a", {"c", "d"}, "a"], ["a"])
