"""next_query on a small store made so that each rule decides once: which query a judge sees
next, the rule that chose it, and that rule stored with the view.

Runs a and b at k = 2; ``x*`` docs are a's, ``y*`` b's.  qa..qd share no doc (RBO 0); qe shares
its first doc (RBO > 0); qf's lists are identical (never queued).  qb, qc, qd have a's first
doc labelled, so they weigh less than qa (nothing labelled); bob voted on qc and qd.  The
queue is then qa, qb, qc, qd, qe, and each query is set apart from the next by one key:

    qa | qb: weight        qb | qc: judges        qc | qd: query id
    qd | qe: RBO           qe: the last one left
"""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.services import judging
from judge_app.services.next_query import Focus, next_query, skip
from judge_app.services.queue import Rule
from judge_app.store import Dataset, Store
from judge_app.store.votes import Round
from metrics import ESCI

TOPS = {"qa": (["xa1", "xa2"], ["ya1", "ya2"]), "qb": (["xb1", "xb2"], ["yb1", "yb2"]),
        "qc": (["xc1", "xc2"], ["yc1", "yc2"]), "qd": (["xd1", "xd2"], ["yd1", "yd2"]),
        "qe": (["e1", "xe2"], ["e1", "ye2"]), "qf": (["f1", "f2"], ["f1", "f2"])}
QUEUE = ["qa", "qb", "qc", "qd", "qe"]
RULES = [Rule.MOST_UNLABELLED, Rule.FEWEST_JUDGES, Rule.QUERY_ID, Rule.LARGEST_DIFFERENCE,
         Rule.LAST_LEFT]


def build(store: Store) -> tuple[Dataset, Round]:
    dataset = store.create_dataset("small", ESCI)
    store.put_queries(dataset, pd.DataFrame({"query_id": list(TOPS),
                                             "text": [f"text of {q}" for q in TOPS]}))
    for side, run in enumerate(("a", "b")):
        rows = [(q, docs[side][r], r + 1, 10.0 - r, r + 1)
                for q, docs in TOPS.items() for r in range(2)]
        store.put_run(dataset, run, pd.DataFrame(rows, columns=["query_id", "doc_id", "rank",
                                                                "score", "line"]), "test")
    store.put_judgments(dataset, pd.DataFrame({"query_id": ["qb", "qc", "qd"],
                                               "doc_id": ["xb1", "xc1", "xd1"],
                                               "grade": [1, 1, 1]}), "qrels")
    for name in ("ann", "bob", "cy", "dee"):
        store.invite_judge(name)
    for query_id in ("qc", "qd"):
        view = judging.side_by_side(store, dataset, "a", "b", query_id, 2, "bob")
        assert judging.record_vote(store, dataset, view, "tie", "bob")
    round_ = store.set_round(dataset, "a", "b", k=2, overlap=2, blind=True, by="admin")
    return dataset, round_


@pytest.fixture
def small(tmp_path):
    with Store(tmp_path / "small.duckdb") as store:
        dataset, round_ = build(store)
        yield store, dataset, round_


def stored_rule(store: Store, view_id: str) -> str | None:
    (row,) = store.backend.cursor().execute("SELECT queue_rule FROM views WHERE view_id = ?",
                                     [view_id]).fetchall()
    return row[0]


def test_each_queue_rule_chooses_once_and_is_stored_with_the_view(store_address) -> None:
    """Votes through the queue: each draw names the key that set its query apart from the
    next one, on both backends, and the views row keeps it."""
    with Store(store_address) as store:
        dataset, round_ = build(store)
        drawn = []
        while (got := next_query(store, dataset, round_, "ann")).view is not None:
            view = got.view
            assert view.query_id == got.plan.queue[0]
            assert stored_rule(store, view.view_id) == got.reason.value
            drawn.append((view.query_id, got.reason))
            assert judging.record_vote(store, dataset, view, "left", "ann")
        assert drawn == list(zip(QUEUE, RULES, strict=True))
        assert got.reason is None and got.plan.queue == [] and got.plan.done == 5


def test_the_view_on_screen_stays_while_its_query_is_queued(small) -> None:
    store, dataset, round_ = small
    first = next_query(store, dataset, round_, "ann")
    again = next_query(store, dataset, round_, "ann", plan=first.plan, shown=first.view)
    assert again.view is first.view and again.plan is first.plan
    assert again.reason is Rule.MOST_UNLABELLED
    assert judging.record_vote(store, dataset, first.view, "left", "ann")
    after = next_query(store, dataset, round_, "ann", plan=judging.advance(
        first.plan, "qa"), shown=first.view)
    assert after.view.query_id == "qb" and after.reason is Rule.FEWEST_JUDGES


@pytest.mark.parametrize("rule", [Rule.UNDONE, Rule.REDRAWN])
def test_a_query_brought_back_comes_first_with_its_rule(small, rule: Rule) -> None:
    store, dataset, round_ = small
    first = next_query(store, dataset, round_, "ann")
    assert judging.record_vote(store, dataset, first.view, "left", "ann")
    assert judging.undo_last_vote(store, dataset, "ann", "a", "b", "u1") == "qa"
    got = next_query(store, dataset, round_, "ann", focus=Focus("qd", rule))
    assert (got.view.query_id, got.reason) == ("qd", rule)
    assert stored_rule(store, got.view.view_id) == rule.value
    got = next_query(store, dataset, round_, "ann", focus=Focus("qf", rule))  # not queued
    assert (got.view.query_id, got.reason) == ("qa", Rule.MOST_UNLABELLED)


def test_a_refused_query_brought_back_is_no_runner_up(small) -> None:
    """qd, brought back, has its two judges (bob voted, cy holds it): ann gets qc, the first
    query not skipped, set apart by its RBO from qe — qd, refused, is not what follows it."""
    store, dataset, round_ = small
    assert judging.side_by_side(store, dataset, "a", "b", "qd", 2, "cy", overlap=2)
    got = next_query(store, dataset, round_, "ann", focus=Focus("qd", Rule.REDRAWN),
                     skipped={"qa", "qb"})
    assert (got.view.query_id, got.reason) == ("qc", Rule.LARGEST_DIFFERENCE)


def test_skipped_queries_come_last(small) -> None:
    store, dataset, round_ = small
    first = next_query(store, dataset, round_, "ann")
    skip(store, first.view, "ann")
    got = next_query(store, dataset, round_, "ann", skipped=["qa"])
    assert (got.view.query_id, got.reason) == ("qb", Rule.FEWEST_JUDGES)
    got = next_query(store, dataset, round_, "ann", skipped=QUEUE[::-1])
    assert (got.view.query_id, got.reason) == ("qa", Rule.SKIPPED)  # in queue order
    assert stored_rule(store, got.view.view_id) == "skipped"


def test_a_query_others_hold_is_passed_over_and_the_plan_computed_again(small) -> None:
    """With two judges per query, cy and dee hold leases on qa: ann is refused it, gets qb
    (set apart from qc by its judges), and a plan read again from the store."""
    store, dataset, round_ = small
    plan = judging.plan_from(store, dataset, judging.query_order(store, dataset, "a", "b", 2),
                             "a", "b", "ann", overlap=2)
    for name in ("cy", "dee"):
        assert next_query(store, dataset, round_, name).view.query_id == "qa"
    got = next_query(store, dataset, round_, "ann", plan=plan)
    assert (got.view.query_id, got.reason) == ("qb", Rule.FEWEST_JUDGES)
    assert got.plan is not plan and got.plan.queue == plan.queue  # leases queue nothing out
    same = next_query(store, dataset, round_, "ann", plan=plan, shown=got.view)
    assert same.plan is plan  # nothing refused: the plan given is kept


def test_every_rule_has_a_sentence_and_its_value_round_trips() -> None:
    assert len({rule.sentence for rule in Rule}) == len(Rule)
    assert all(rule.sentence.endswith(".") and Rule(rule.value) is rule for rule in Rule)
