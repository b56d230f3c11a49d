"""Batch evaluation: agreement with the per-query functions, policies and input errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import metrics.layout
from metrics import (
    DuplicateDocError,
    LayoutError,
    best_ndcg_m,
    evaluate,
    graded_precision,
    judged_at_k,
    ndcg_m,
    parse_measure,
    prepare_qrels,
    ranking_from_scores,
)
from metrics.scale import ESCI
from tests.generated import random_collection


def test_batch_equals_per_query_for_the_measures_trec_eval_lacks() -> None:
    run, qrels = random_collection(13, n_queries=150)
    measures = ["ndcg_m@10", "ndcg_m(gain='exponential',discount='reciprocal')@5",
                "best_ndcg_m@10", "p_graded@10", "judged@10"]
    got = evaluate(run, qrels, measures, max_grade=ESCI).per_query
    for qid, labels in qrels.groupby("query_id"):
        judgments = dict(zip(labels["doc_id"], labels["grade"], strict=True))
        rows = run[run["query_id"] == qid]
        ranking = ranking_from_scores(dict(zip(rows["doc_id"], rows["score"], strict=True)))
        want = {
            "ndcg_m@10": ndcg_m(ranking, judgments, 10, max_grade=3),
            "ndcg_m(gain='exponential',discount='reciprocal')@5": ndcg_m(
                ranking, judgments, 5, max_grade=3, gain="exponential", discount="reciprocal"),
            "best_ndcg_m@10": best_ndcg_m(judgments, 10, 3),
            "p_graded@10": graded_precision(ranking, judgments, 10, 3),
            "judged@10": judged_at_k(ranking, judgments, 10),
        }
        for name, value in want.items():
            column = str(parse_measure(name))
            assert got.loc[qid, column] == pytest.approx(value, abs=1e-12), (qid, name)


def _tiny() -> tuple[pd.DataFrame, pd.DataFrame]:
    run = pd.DataFrame({"query_id": ["q1", "q1", "q3"], "doc_id": ["a", "b", "z"],
                        "rank": [1, 2, 1]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1", "q2"], "doc_id": ["a", "c", "x"],
                          "grade": [2, 1, 3]})
    return run, qrels


def test_missing_queries_policy() -> None:
    run, qrels = _tiny()
    zero = evaluate(run, qrels, ["ndcg@10", "best_ndcg_m@10"], max_grade=3)
    assert list(zero.per_query.index) == ["q1", "q2"]  # q3 has no labels: not evaluated
    assert zero.per_query.loc["q2", "ndcg@10"] == 0.0
    assert zero.per_query.loc["q2", "best_ndcg_m@10"] > 0  # run-independent
    assert zero.settings["queries_without_labels"] == 1
    drop = evaluate(run, qrels, ["ndcg@10"], missing_queries="drop")
    assert list(drop.per_query.index) == ["q1"]
    assert drop.mean["ndcg@10"] > zero.mean["ndcg@10"]


def test_integer_ids_work_and_match_text_ids() -> None:
    run = pd.DataFrame({"query_id": [1, 1, 1], "doc_id": [10, 11, 12], "rank": [1, 2, 3]})
    qrels = pd.DataFrame({"query_id": [1, 1], "doc_id": [12, 10], "grade": [2, 1]})
    as_int = evaluate(run, qrels, ["ndcg@3"]).per_query
    as_text = evaluate(run.astype(str), qrels.astype({"query_id": str, "doc_id": str}),
                       ["ndcg@3"]).per_query
    assert as_int.iloc[0, 0] == pytest.approx(as_text.iloc[0, 0])
    mixed = evaluate(run, qrels.astype({"doc_id": str}), ["ndcg@3"]).per_query
    assert mixed.iloc[0, 0] == pytest.approx(as_text.iloc[0, 0])


def test_ranks_are_an_order_key() -> None:
    run = pd.DataFrame({"query_id": ["q"] * 3, "doc_id": ["a", "b", "c"], "rank": [10, 3, 7]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["b"], "grade": [1]})
    assert evaluate(run, qrels, ["ndcg@1"]).per_query.iloc[0, 0] == 1.0


def test_ndcg_f_scans_past_the_cutoff() -> None:
    docs = [f"u{i}" for i in range(500)] + ["good"]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "rank": np.arange(1, 502)})
    qrels = pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["good", "other"], "grade": [3, 3]})
    got = evaluate(run, qrels, ["ndcg@10", "ndcg_f@10"]).per_query.iloc[0]
    assert got["ndcg@10"] == 0.0
    assert got["ndcg_f@10"] == pytest.approx(3 / (3 + 3 / np.log2(3)))


@pytest.mark.parametrize("run, qrels, error, message", [
    (pd.DataFrame({"query_id": ["q"], "doc_id": ["a"]}), None, LayoutError,
     "needs a rank or a score"),
    (pd.DataFrame({"query_id": ["q"], "rank": [1]}), None, LayoutError,
     r"run is missing column\(s\) doc_id"),
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "rank": [1, 1]}), None,
     LayoutError, "query 'q' has two docs at rank 1"),
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "b"], "rank": [1, 1.5]}), None,
     LayoutError, "run row 2: rank 1.5 is not a whole number"),
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "rank": [1, 2]}), None,
     DuplicateDocError, "doc 'a' appears twice in the ranking of query 'q'"),
    (None, pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "grade": [1, 2]}),
     LayoutError, "qrels rows 1 and 2 both judge query 'q', doc 'a'"),
    (None, pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "grade": ["high"]}),
     LayoutError, "qrels row 1: grade 'high'"),
])
def test_bad_frames_raise_errors_naming_the_row(run, qrels, error, message) -> None:
    run = run if run is not None else pd.DataFrame(
        {"query_id": ["q"], "doc_id": ["a"], "rank": [1]})
    qrels = qrels if qrels is not None else pd.DataFrame(
        {"query_id": ["q"], "doc_id": ["a"], "grade": [1]})
    with pytest.raises(error, match=message):
        evaluate(run, qrels, ["ndcg@10"])


def test_measures_needing_a_scale_say_so() -> None:
    run, qrels = _tiny()
    with pytest.raises(ValueError, match="needs the scale's maximum grade"):
        evaluate(run, qrels, ["ndcg_m@10"])
    with pytest.raises(ValueError, match="grade 3, above the maximum grade 2"):
        evaluate(run, qrels, ["ndcg_m@10"], max_grade=2)
    with pytest.raises(ValueError, match="use compare"):
        evaluate(run, qrels, ["rbo@10"])


def _ranked(run: pd.DataFrame) -> pd.DataFrame:
    order = run.assign(neg=-run["score"]).sort_values(
        ["query_id", "neg", "doc_id"], ascending=[True, True, False])
    order["rank"] = order.groupby("query_id").cumcount() + 1
    return order.drop(columns=["score", "neg"]).reset_index(drop=True)


def test_every_layout_gives_the_same_values() -> None:
    run, qrels = random_collection(17, n_queries=200, max_ranked=120)
    grouped = _ranked(run)  # TREC order: grouped by query, ranks 1..n
    shuffled = grouped.sample(frac=1.0, random_state=2)  # interleaved queries
    gaps = grouped.assign(rank=grouped["rank"] * 3 + 5)  # an order key with gaps
    measures = ["ndcg@10", "ndcg_f@10", "ndcg_f@30", "p@5", "judged@20"]
    want = evaluate(run, qrels, measures).per_query
    for frame in (grouped, shuffled, gaps):
        pd.testing.assert_frame_equal(evaluate(frame, qrels, measures).per_query, want)


@pytest.mark.parametrize("shuffle", [False, True])
def test_a_repeat_deep_in_the_ranking_is_found_when_ndcg_f_reads_it(shuffle: bool) -> None:
    docs = [f"u{i}" for i in range(300)] + ["u7", "good"]
    run = pd.DataFrame({"query_id": "q", "doc_id": docs, "rank": np.arange(1, 303)})
    if shuffle:
        run = run.sample(frac=1.0, random_state=0)
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["good"], "grade": [2]})
    evaluate(run, qrels, ["ndcg@10"])  # only the top 10 is read: no error
    with pytest.raises(DuplicateDocError, match=r"doc 'u7' .* query 'q' \(ranks 8 and 301\)"):
        evaluate(run, qrels, ["ndcg_f@10"])


def test_empty_ids_are_refused_with_the_row() -> None:
    run = pd.DataFrame({"query_id": ["q", None], "doc_id": ["a", "b"], "rank": [1, 2]})
    qrels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "grade": [1]})
    with pytest.raises(LayoutError, match="run row 2: query_id is empty"):
        evaluate(run, qrels, ["ndcg@10"])


def test_hash_collisions_fall_back_to_the_exact_join(monkeypatch: pytest.MonkeyPatch) -> None:
    """Doc ids are matched by a 64-bit hash; if two ever collide, grades must still be right.
    Every id hashing to 0 forces the collision path (the exact join) everywhere."""
    run, qrels = random_collection(8, n_queries=60)
    measures = ["ndcg@10", "ndcg_f@10", "p@5", "judged@10", "ndcg"]
    expected = evaluate(run, qrels, measures).per_query
    monkeypatch.setattr(metrics.layout, "hash_ids",
                        lambda values: np.zeros(len(values), dtype=np.uint64))
    prepared = prepare_qrels(qrels, run)
    assert prepared.index.exact_only
    pd.testing.assert_frame_equal(evaluate(run, prepared, measures).per_query, expected)


@pytest.mark.parametrize("distinct_grades", [4, 200])
def test_the_ideal_ranking_holds_each_querys_best_labels(distinct_grades: int) -> None:
    """Few distinct grades are counted per query, many are sorted: the same ideal either way,
    written out by hand here (query a: its best labels first; b: fewer labels than k)."""
    rng = np.random.default_rng(1)
    levels = np.linspace(0.0, 3.0, distinct_grades)
    grades_a = rng.choice(levels, size=300)
    qrels = pd.DataFrame({"query_id": ["a"] * 300 + ["b"] * 2,
                          "doc_id": [f"d{i}" for i in range(300)] + ["x", "y"],
                          "grade": np.append(grades_a, [1.0, 2.0])})
    run = pd.DataFrame({"query_id": ["a", "b"], "doc_id": ["d0", "y"], "rank": [1, 1]})
    got = evaluate(run, qrels, ["ndcg@5"]).per_query["ndcg@5"]
    best = np.sort(grades_a)[::-1][:5]
    ideal_a = sum(g / np.log2(r + 2) for r, g in enumerate(best))
    assert got["a"] == pytest.approx(grades_a[0] / ideal_a, abs=1e-12)
    assert got["b"] == pytest.approx(2.0 / (2.0 + 1.0 / np.log2(3)), abs=1e-12)
