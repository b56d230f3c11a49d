"""Gold items mixed into a judge's queue (:mod:`judge_app.services.gold_queue`), on DuckDB and
PostgreSQL: one gold item in each block of the round's ``gold_every`` items, at a place that
varies by judge and block, never the same one twice, drawn with an ordinary queue rule; the
judge report scores the answers."""

from __future__ import annotations

import pandas as pd

from judge_app.services import gold_queue, judging
from judge_app.services.judge_report import judge_report
from judge_app.services.next_query import next_query
from judge_app.services.queue import Rule
from judge_app.store import Dataset, Store
from metrics import ESCI

QUERIES = [f"q{i:02d}" for i in range(16)]
GOLD = ["q01", "q05", "q09", "q13"]  # b is preferred on these


def build(store: Store, gold_every: int) -> Dataset:
    dataset = store.create_dataset("small", ESCI)
    store.put_queries(dataset, pd.DataFrame({"query_id": QUERIES,
                                             "text": [f"text of {q}" for q in QUERIES]}))
    for run in ("a", "b"):
        rows = [(q, f"{run}{q}-{r}", r + 1, 10.0 - r, r + 1) for q in QUERIES
                for r in range(2)]
        store.put_run(dataset, run, pd.DataFrame(rows, columns=["query_id", "doc_id", "rank",
                                                                "score", "line"]), "test")
    store.mark_gold_pairs(dataset, pd.DataFrame({
        "query_id": GOLD, "run_a": "a", "run_b": "b", "preferred_run": "b"}), "file")
    for name in ("ann", "bob"):
        store.invite_judge(name)
    store.set_round(dataset, "a", "b", k=2, overlap=1, blind=True, by="admin",
                    gold_every=gold_every)
    return dataset


def test_one_gold_slot_in_each_block_at_a_place_that_varies() -> None:
    for every in (2, 3, 10):
        for judge in ("ann", "bob", "cy"):
            slots = [gold_queue.is_gold_slot(judge, i, every) for i in range(every * 40)]
            blocks = [slots[b * every:(b + 1) * every] for b in range(40)]
            assert all(sum(block) == 1 for block in blocks)
            assert len({block.index(True) for block in blocks}) == every  # not predictable
    assert not any(gold_queue.is_gold_slot("ann", i, 0) for i in range(20))


def test_gold_pairs_come_at_the_rate_never_twice_and_are_scored(store_address) -> None:
    with Store(store_address) as store:
        dataset = build(store, gold_every=3)
        round_ = store.current_round(dataset)
        assert (round_.gold_every, round_.max_overlap) == (3, None)
        served = []
        while (got := next_query(store, dataset, round_, "ann")).view is not None:
            view = got.view
            assert view.rule is not None and view.rule != Rule.SKIPPED  # an ordinary rule
            served.append(view.query_id)
            choice = "right" if view.left_run == "a" else "left"  # always prefers b
            assert judging.record_vote(store, dataset, view, choice, "ann")
        assert sorted(served) == QUERIES  # every query once, gold ones included
        assert len(set(served)) == len(served)
        # while gold pairs are left, each block of 3 holds one, at the judge's gold slot
        gold_at = [i for i, q in enumerate(served) if q in GOLD]
        assert gold_at == [i for i in range(12) if gold_queue.is_gold_slot("ann", i, 3)]
        figures, _ = judge_report(store, dataset)
        assert figures.loc["ann", "gold_pairs"] == 4
        assert figures.loc["ann", "gold_pair_agree"] == 1.0


def test_no_gold_is_mixed_in_with_gold_every_zero(tmp_path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        dataset = build(store, gold_every=0)
        round_ = store.current_round(dataset)
        served = []
        while (got := next_query(store, dataset, round_, "bob")).view is not None:
            served.append(got.view.query_id)
            judging.record_vote(store, dataset, got.view, "tie", "bob")
        assert sorted(served) == QUERIES and got.plan.done == 16


def test_graded_gold_goes_first_on_its_slot_in_the_backfill_queue(tmp_path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        dataset = build(store, gold_every=2)
        store.mark_gold_grades(dataset, pd.DataFrame({
            "query_id": ["q00", "q02"], "doc_id": ["aq00-0", "aq02-0"], "grade": [3, 0]}),
            "file")
        queue = judging.backfill(store, dataset, ["a", "b"], 2, "ann")
        served = []
        for i in range(6):
            mixed = gold_queue.mix_backfill(queue, store, dataset, "ann", 2)
            assert ("q00", "aq00-0") not in served or mixed.iloc[0]["doc_id"] != "aq00-0"
            head = mixed.iloc[0]
            served.append((head["query_id"], head["doc_id"]))
            assert judging.record_grade(store, dataset, f"v{i}", head["query_id"],
                                        head["doc_id"], 1, "ann")
            queue = judging.backfill(store, dataset, ["a", "b"], 2, "ann")
        gold = [i for i, item in enumerate(served) if item in {("q00", "aq00-0"),
                                                               ("q02", "aq02-0")}]
        assert gold == [i for i in range(4) if gold_queue.is_gold_slot("ann", i, 2)]
        assert len(set(served)) == 6
