"""The pool a decision reads from the store in one statement (``Store.pool_labels`` and
``metrics.judging_pool.pool_from_rows``, what ``sxs decide`` and ``sxs backfill next`` stand
on) is the pool built from the runs' top k and the filled labels, on both backends: dataset
judgments ("pooled, not judged" -1 included), expert labels filling and overriding them, a
label outside the pool; a run whose stored ranks are not positions 1..m is re-ranked as
before."""

from __future__ import annotations

import numpy as np
import pandas as pd

from judge_app.services import decision
from judge_app.store import Store
from metrics.judging_pool import judging_pool
from metrics.scale import CRANFIELD
from tests.services.decision_stores import runs


def same_pool(got, want) -> None:
    assert got.query_ids.tolist() == want.query_ids.tolist()
    for name in ("query", "doc_id", "rank_a", "rank_b", "levels", "assignable", "outside"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
    assert np.array_equal(got.grade, want.grade, equal_nan=True)


def test_the_pool_read_in_one_statement_is_the_pool_of_the_runs_and_labels(
        store_address) -> None:
    with Store(store_address) as store:
        dataset = store.create_dataset("toy", CRANFIELD)
        run_a, run_b = runs()
        run_b = run_b[run_b["query_id"] != "q3"]  # a query only A answers
        for name, run in (("a", run_a), ("b", run_b)):
            store.put_run(dataset, name, run.assign(score=float("nan"),
                                                    line=range(1, len(run) + 1)),
                          name, trust_rank=True)
        store.put_judgments(dataset, pd.DataFrame({
            "query_id": ["q0", "q0", "q1", "q2", "q9"], "doc_id": ["d0_0", "d0_5", "d1_1",
                                                                   "far", "d9_9"],
            "grade": [1, -1, 3, 4, 2]}), "qrels")
        store.invite_judge("ann")
        store.add_expert_label(dataset, "q0", "d0_0", 3, "ann", "t1")  # overrides
        store.add_expert_label(dataset, "q4", "d4_2", 2, "ann", "t2")  # fills
        for k in (3, 10):
            got, used = decision.read_pool(store, dataset, "a", "b", k)
            top_a, top_b = decision.tops(store, dataset, "a", "b", k)
            labels = decision.labels_so_far(store, dataset)
            same_pool(got, judging_pool(top_a, top_b, labels.frame, k, dataset.scale))
            assert used.description == labels.description
            assert set(zip(used.frame["query_id"], used.frame["doc_id"], strict=True)) <= set(
                zip(labels.frame["query_id"], labels.frame["doc_id"], strict=True))


def test_a_run_whose_ranks_skip_is_re_ranked_as_before(store_address) -> None:
    with Store(store_address) as store:
        dataset = store.create_dataset("toy", CRANFIELD)
        run_a, run_b = runs()
        run_b = run_b.assign(rank=run_b["rank"] * 2)  # ranks 2, 4, ...: trusted as written
        for name, run in (("a", run_a), ("b", run_b)):
            store.put_run(dataset, name, run.assign(score=float("nan"),
                                                    line=range(1, len(run) + 1)),
                          name, trust_rank=True)
        got, _ = decision.read_pool(store, dataset, "a", "b", 10)
        top_a, top_b = decision.tops(store, dataset, "a", "b", 10)
        same_pool(got, judging_pool(top_a, top_b, None, 10, dataset.scale))


def test_decide_runs_answers_as_one_decide_per_measure(tmp_path) -> None:
    """``sxs decide`` with several measures (shared pools and assessments, NDCG-f's pool
    built from the frames it reads anyway) says what ``metrics.decision.decide`` says of
    each measure on the runs' top k and the filled labels."""
    from metrics.decision import decide
    from tests.metrics.test_decision_shared import same
    from tests.services.decision_stores import toy_store

    path = toy_store(tmp_path / "toy.duckdb")
    with Store(path) as store:
        dataset = store.dataset("toy")
        store.put_judgments(dataset, pd.DataFrame({
            "query_id": ["q0", "q0", "q1", "q2"], "doc_id": ["d0_0", "d0_1", "d1_1", "far"],
            "grade": [1, 4, 3, 2]}), "qrels")
        measures = ["ndcg_m@10", "ndcg@10", "ndcg_f@10", "ndcg@5"]
        report = decision.decide_runs(store, dataset, "a", "b", measures)
        top_a, top_b = decision.tops(store, dataset, "a", "b", 10)
        labels = decision.labels_so_far(store, dataset).frame
        for measure, got in zip(measures, report.decisions, strict=True):
            same(got, decide(top_a, top_b, labels, measure, max_grade=dataset.scale))
