"""Disputes through the services the CLI and the pages use, on DuckDB and PostgreSQL: the
disputed items most disputed first (excluded judges left out), the re-judge queue raising
overlap for them up to the round's maximum, and an admin's adjudication settling an item in
every filled label set (and as a gold item with ``gold``)."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.errors import SxsError
from judge_app.services import disputes, judge_standing
from judge_app.services.analysis import labels_for
from judge_app.store import Dataset, Store
from metrics import ESCI

# q1/a: split 0 against 3; q2/b: 1, 1, 2; q3/c: all agree; q4/d: one judge
LABELS = [("q1", "a", "ann", 0), ("q1", "a", "bob", 3),
          ("q2", "b", "ann", 1), ("q2", "b", "bob", 1), ("q2", "b", "cy", 2),
          ("q3", "c", "ann", 2), ("q3", "c", "bob", 2), ("q4", "d", "ann", 1)]


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def build(store: Store) -> Dataset:
    dataset = store.create_dataset("d", ESCI)
    store.append_expert_labels(dataset, pd.DataFrame(LABELS, columns=[
        "query_id", "doc_id", "judge", "grade"]), "test")
    for name in ("ann", "bob", "cy", "dee"):
        store.invite_judge(name)
    return dataset


def items(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return list(zip(frame["query_id"], frame["doc_id"], strict=True))


def test_disputed_items_most_disputed_first_without_excluded_judges(store) -> None:
    dataset = build(store)
    table = disputes.dispute_table(store, dataset)
    assert items(table) == [("q1", "a"), ("q2", "b")]
    assert table["grades"].tolist() == ["ann 0, bob 3", "ann 1, bob 1, cy 2"]
    ds = disputes.dispute_table(store, dataset, "dawid-skene")
    assert set(items(ds)) == {("q1", "a"), ("q2", "b")}
    judge_standing.exclude(store, "bob", dataset)
    assert items(disputes.dispute_table(store, dataset)) == [("q2", "b")]


def test_the_rejudge_queue_raises_overlap_up_to_the_maximum(store) -> None:
    dataset = build(store)
    assert disputes.rejudge_queue(store, dataset, "dee", None).empty  # no raising
    assert items(disputes.rejudge_queue(store, dataset, "dee", 3)) == [("q1", "a")]
    assert items(disputes.rejudge_queue(store, dataset, "dee", 4)) == [("q1", "a"),
                                                                      ("q2", "b")]
    assert items(disputes.rejudge_queue(store, dataset, "ann", 4)) == []  # graded both
    queue = pd.DataFrame({"query_id": ["q9", "q2"], "doc_id": ["z", "b"],
                          "weight": [1.5, 0.5], "experts": [0, 3]})
    first = disputes.rejudge_first(queue, disputes.rejudge_queue(store, dataset, "dee", 4))
    assert first.values.tolist() == [["q1", "a", 0.0, 2], ["q2", "b", 0.5, 3],
                                     ["q9", "z", 1.5, 0]]


def test_an_adjudication_settles_the_item_in_every_filled_set(store) -> None:
    dataset = build(store)
    before = store.data_version(dataset)
    said = disputes.adjudicate(store, dataset, "q1", "a", 2, by="admin", gold=True)
    assert said == "settled q1 / a at Substitute, and marked it a gold item"
    assert store.data_version(dataset) != before
    for policy in ("median", "latest", "dataset_first", "dawid-skene"):
        filled = labels_for(store, dataset, True, policy).set_index(["query_id", "doc_id"])
        assert filled.loc[("q1", "a"), "grade"] == 2, policy
        raw = store.filled_judgments(dataset, policy).set_index(["query_id", "doc_id"])
        assert raw.loc[("q1", "a"), "source"] == "adjudicated"
        assert raw.loc[("q2", "b"), "source"] == "expert"
    assert items(disputes.dispute_table(store, dataset)) == [("q2", "b")]
    gold = store.gold_grades(dataset)
    assert gold[["query_id", "doc_id", "grade", "source"]].values.tolist() == [
        ["q1", "a", 2, "adjudication"]]
    disputes.adjudicate(store, dataset, "q1", "a", 0)  # settled again: the newest counts
    assert store.adjudications(dataset)["grade"].tolist() == [0]
    with pytest.raises(SxsError, match="not on the scale"):
        disputes.adjudicate(store, dataset, "q1", "a", 7)
    with pytest.raises(SxsError, match="nothing to settle"):
        disputes.adjudicate(store, dataset, "q1", "zz", 1)


def test_disputed_queries_go_first_to_further_judges_up_to_max_overlap(store) -> None:
    from judge_app.services import judging
    from judge_app.services.next_query import next_query
    from judge_app.services.queue import Rule

    dataset = build(store)
    queries = ["qa", "qb", "qc"]
    store.put_queries(dataset, pd.DataFrame({"query_id": queries, "text": queries}))
    for run in ("a", "b"):
        store.put_run(dataset, run, pd.DataFrame(
            [(q, f"{run}{q}{r}", r, 1.0 / r, r) for q in queries for r in (1, 2)],
            columns=["query_id", "doc_id", "rank", "score", "line"]), "test")
    for judge, query, favoured in (("ann", "qa", "a"), ("bob", "qa", "b"),
                                   ("ann", "qb", "a"), ("bob", "qb", "a")):
        view = judging.side_by_side(store, dataset, "a", "b", query, 2, judge)
        choice = "left" if view.left_run == favoured else "right"
        assert judging.record_vote(store, dataset, view, choice, judge)
    round_ = store.set_round(dataset, "a", "b", k=2, overlap=1, blind=True, by="admin",
                             gold_every=0, max_overlap=3)
    assert disputes.disputed_queries(store, dataset, "a", "b", "cy", 1, 3) == ["qa"]
    assert disputes.disputed_queries(store, dataset, "a", "b", "cy", 1, None) == []
    got = next_query(store, dataset, round_, "cy")
    assert (got.view.query_id, got.reason) == ("qa", Rule.DISPUTED)  # before the queue
    assert judging.record_vote(store, dataset, got.view, "tie", "cy")
    got = next_query(store, dataset, round_, "dee")  # qa has its 3 judges now
    assert (got.view.query_id, got.reason) != ("qa", Rule.DISPUTED)
    assert got.view.query_id == "qc"  # qb agreed: not re-judged; qc the queue's one left
