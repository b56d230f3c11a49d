"""Classic NDCG, NDCG-f and P against trec_eval itself (pytrec_eval-terrier), to 1e-9.

The expected numbers come from trec_eval 9 via pytrec_eval: ``ndcg_cut.k`` and ``P.k``, and
``ndcg_cut.k`` with ``judged_docs_only_flag=True`` (trec_eval -J) for NDCG-f.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics.layout
from metrics import evaluate, ndcg, ndcg_f, parse_measure, precision, ranking_from_scores
from tests.generated import random_collection

pytrec_eval = pytest.importorskip("pytrec_eval")

CUTOFFS = (1, 5, 10, 20)


def _as_dicts(run: pd.DataFrame, qrels: pd.DataFrame) -> tuple[dict, dict]:
    r: dict[str, dict[str, float]] = {}
    q: dict[str, dict[str, int]] = {}
    for qid, doc, score in run.itertuples(index=False):
        r.setdefault(qid, {})[doc] = score
    for qid, doc, grade in qrels.itertuples(index=False):
        q.setdefault(qid, {})[doc] = grade
    return r, q


def _trec_eval(run: pd.DataFrame, qrels: pd.DataFrame, judged_only: bool) -> dict:
    r, q = _as_dicts(run, qrels)
    cut = ",".join(map(str, CUTOFFS))
    evaluator = pytrec_eval.RelevanceEvaluator(q, {f"ndcg_cut.{cut}", f"P.{cut}"},
                                               judged_docs_only_flag=judged_only)
    return evaluator.evaluate(r)


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_batch_ndcg_and_p_equal_trec_eval(seed: int) -> None:
    run, qrels = random_collection(seed)
    expected = _trec_eval(run, qrels, judged_only=False)
    measures = [f"ndcg@{k}" for k in CUTOFFS] + [f"p@{k}" for k in CUTOFFS]
    got = evaluate(run, qrels, measures, missing_queries="drop").per_query
    assert set(got.index) == set(expected)  # the same queries are evaluated
    compared = 0
    for qid, values in expected.items():
        for k in CUTOFFS:
            assert got.loc[qid, f"ndcg@{k}"] == pytest.approx(values[f"ndcg_cut_{k}"], abs=1e-9)
            assert got.loc[qid, f"p@{k}"] == pytest.approx(values[f"P_{k}"], abs=1e-9)
            compared += 2
    assert compared > 1500


@pytest.mark.parametrize("seed", [3, 11, 29])
def test_batch_ndcg_f_equals_trec_eval_judged_only(seed: int) -> None:
    run, qrels = random_collection(seed)
    expected = _trec_eval(run, qrels, judged_only=True)
    got = evaluate(run, qrels, [f"ndcg_f@{k}" for k in CUTOFFS], missing_queries="drop")
    for qid, values in expected.items():
        for k in CUTOFFS:
            assert got.per_query.loc[qid, f"ndcg_f@{k}"] == pytest.approx(
                values[f"ndcg_cut_{k}"], abs=1e-9)


def test_ndcg_f_differs_from_ndcg_on_these_data() -> None:
    """Guard against a vacuous oracle: the two measures must actually disagree here."""
    run, qrels = random_collection(3)
    got = evaluate(run, qrels, ["ndcg@10", "ndcg_f@10"], missing_queries="drop").per_query
    assert (np.abs(got["ndcg@10"] - got["ndcg_f@10"]) > 1e-3).sum() > 50


def test_per_query_functions_equal_trec_eval() -> None:
    run, qrels = random_collection(7, n_queries=120)
    plain = _trec_eval(run, qrels, judged_only=False)
    judged = _trec_eval(run, qrels, judged_only=True)
    r, q = _as_dicts(run, qrels)
    for qid in plain:
        ranking = ranking_from_scores(r[qid])
        for k in CUTOFFS:
            assert ndcg(ranking, q[qid], k) == pytest.approx(plain[qid][f"ndcg_cut_{k}"],
                                                             abs=1e-9)
            assert precision(ranking, q[qid], k) == pytest.approx(plain[qid][f"P_{k}"], abs=1e-9)
            assert ndcg_f(ranking, q[qid], k) == pytest.approx(judged[qid][f"ndcg_cut_{k}"],
                                                               abs=1e-9)


def test_rank_column_gives_the_same_values_as_scores() -> None:
    run, qrels = random_collection(5)
    ranked = run.copy()
    order = ranked.assign(neg=-ranked["score"]).sort_values(
        ["query_id", "neg", "doc_id"], ascending=[True, True, False])
    order["rank"] = order.groupby("query_id").cumcount() + 1
    by_rank = order.drop(columns=["score", "neg"]).sample(frac=1.0, random_state=1)
    measures = ["ndcg@10", "ndcg_f@10", "p@5", "judged@10"]
    a = evaluate(run, qrels, measures).per_query
    b = evaluate(by_rank, qrels, measures).per_query
    pd.testing.assert_frame_equal(a, b)


def _trec_eval_full(run: pd.DataFrame, qrels: pd.DataFrame, judged_only: bool) -> dict:
    r, q = _as_dicts(run, qrels)
    evaluator = pytrec_eval.RelevanceEvaluator(q, {"ndcg"}, judged_docs_only_flag=judged_only)
    return evaluator.evaluate(r)


@pytest.mark.parametrize("seed", [4, 17])
def test_full_depth_ndcg_and_ndcg_f_equal_trec_eval_ndcg(seed: int) -> None:
    """``ndcg`` with no cutoff is trec_eval's ``ndcg``; ``ndcg_f`` with none is ``-J ndcg``.

    Rankings up to 150 deep and up to 90 labels per query, so that no fixed cutoff used
    elsewhere could stand in for full depth (checked at the end)."""
    run, qrels = random_collection(seed, n_queries=150, n_docs=300, max_ranked=150,
                                   max_judged=90)
    plain = _trec_eval_full(run, qrels, judged_only=False)
    judged = _trec_eval_full(run, qrels, judged_only=True)
    got = evaluate(run, qrels, ["ndcg", "ndcg_f", "ndcg@20"], missing_queries="drop").per_query
    assert set(got.index) == set(plain)
    for qid in plain:
        assert got.loc[qid, "ndcg"] == pytest.approx(plain[qid]["ndcg"], abs=1e-9)
        assert got.loc[qid, "ndcg_f"] == pytest.approx(judged[qid]["ndcg"], abs=1e-9)
    assert (np.abs(got["ndcg"] - got["ndcg@20"]) > 1e-3).sum() > 50
    alone = evaluate(run, qrels, "ndcg_f", missing_queries="drop").per_query["ndcg_f"]
    pd.testing.assert_series_equal(alone, got["ndcg_f"])  # the same without a deeper measure


def test_full_depth_measures_round_trip_and_name_their_columns() -> None:
    for text, canonical in (("ndcg", "ndcg"), ("NDCG_F", "ndcg_f"),
                            ("ndcg(gain='exponential')", "ndcg(gain='exponential')")):
        measure = parse_measure(text)
        assert measure.cutoff is None
        assert repr(measure) == str(measure) == canonical
        assert parse_measure(repr(measure)) == measure
    run, qrels = random_collection(3, n_queries=20)
    assert list(evaluate(run, qrels, "ndcg ndcg_f@5").per_query.columns) == ["ndcg", "ndcg_f@5"]


def _trec_ordered(run: pd.DataFrame) -> pd.DataFrame:
    """The run as a TREC file holds it: grouped by query, ranked 1..n by trec_eval's order."""
    order = run.assign(neg=-run["score"]).sort_values(
        ["query_id", "neg", "doc_id"], ascending=[True, True, False])
    order["rank"] = order.groupby("query_id").cumcount() + 1
    return order.drop(columns="neg").reset_index(drop=True)


@pytest.mark.parametrize("layout", ["ranked", "scored"])
@pytest.mark.parametrize("coded", [["query_id"], ["query_id", "doc_id"]])
def test_ids_read_from_parquet_in_chunks_and_coded_equal_trec_eval(
        tmp_path, monkeypatch: pytest.MonkeyPatch, layout: str, coded: list[str]) -> None:
    """Ids as pandas reads them from Parquet: Arrow strings in many chunks, or dictionary-coded
    (categoricals, categories in file order, not sorted).  Blocks of 50 rows against row groups
    of 37 make every way of taking rows meet chunk edges."""
    monkeypatch.setattr(metrics.layout, "_BLOCK", 50)
    run, qrels = random_collection(13, n_queries=120)
    expected = {flag: _trec_eval(run, qrels, judged_only=flag) for flag in (False, True)}
    frame = _trec_ordered(run).sort_values(  # grouped, queries not in sorted order
        "query_id", kind="stable", key=lambda ids: ids.str[::-1])
    if layout == "scored":
        frame = frame.drop(columns="rank")
    frame.to_parquet(tmp_path / "run.parquet", row_group_size=37, index=False)
    read = pd.read_parquet(tmp_path / "run.parquet", read_dictionary=coded)
    assert all(isinstance(read[c].dtype, pd.CategoricalDtype) for c in coded)
    measures = [f"ndcg@{k}" for k in CUTOFFS] + [f"ndcg_f@{k}" for k in CUTOFFS]
    got = evaluate(read, qrels, measures, missing_queries="drop").per_query
    assert set(got.index) == set(expected[False])
    for qid in expected[False]:
        for k in CUTOFFS:
            assert got.loc[qid, f"ndcg@{k}"] == pytest.approx(
                expected[False][qid][f"ndcg_cut_{k}"], abs=1e-9)
            assert got.loc[qid, f"ndcg_f@{k}"] == pytest.approx(
                expected[True][qid][f"ndcg_cut_{k}"], abs=1e-9)
