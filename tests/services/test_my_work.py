"""Issue 25, My work: a judge's own history of votes and grades (query, answer, reason, time,
status), newest first; opening a query from it (or an admin's picker) issues a view drawn by
``Rule.OPENED`` and a vote there replaces the judge's earlier one as a new row (the old one
kept, marked replaced); who may open what; the picker's search.  On both backends.

The small store of tests/services/test_next_query.py: runs a and b at k = 2, an ESCI scale,
judges ann, bob (who voted ``tie`` on qc and qd), cy, dee; N = 2 judges per query."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.errors import SxsError
from judge_app.services import judging
from judge_app.services.my_work import COLUMNS, my_work, worked_on
from judge_app.services.next_query import next_query
from judge_app.services.open_query import find_queries, open_query
from judge_app.services.queue import Rule
from judge_app.store import Store
from judge_app.store.judges import Judge
from tests.services.test_next_query import build

ANN = Judge("ann", admin=False, verified=True, via="invite")
ADMIN = Judge("root", admin=True, verified=True, via="invite")


@pytest.fixture
def small(store_address):
    with Store(store_address) as store:
        dataset, round_ = build(store)
        store.invite_judge("root", admin=True)
        yield store, dataset, round_


def vote(store, dataset, round_, query_id, choice, judge="ann", reason=None, rule=None):
    view = judging.side_by_side(store, dataset, round_.run_a, round_.run_b, query_id,
                                round_.k, judge, round_.blind, overlap=round_.overlap,
                                rule=rule)
    return view, judging.record_vote(store, dataset, view, choice, judge, reason)


def test_my_work_lists_votes_and_grades_newest_first(small) -> None:
    store, dataset, round_ = small
    assert list(my_work(store, dataset, "ann").columns) == list(COLUMNS)
    assert my_work(store, dataset, "ann").empty
    view, stored = vote(store, dataset, round_, "qa", "left", reason="a has it")
    assert stored
    judging.record_grade(store, dataset, view.view_id, "qa", "xa1", 3, "ann")
    judging.record_grade(store, dataset, view.view_id, "qa", "xa1", 1, "ann", change=1)
    judging.record_grade(store, dataset, view.view_id, "qa", "ya1", 0, "ann")
    judging.withdraw_grade(store, dataset, "qa", "ya1", "ann")

    work = my_work(store, dataset, "ann")
    assert work["kind"].tolist() == ["grade", "grade", "grade", "vote"]  # newest first
    assert work["at"].is_monotonic_decreasing
    assert set(work["query"]) == {"text of qa"} and set(work["query_id"]) == {"qa"}
    names = dict(dataset.scale.grades)
    assert work["answer"].tolist() == [f"doc ya1: {names[0]} (0)", f"doc xa1: {names[1]} (1)",
                                       f"doc xa1: {names[3]} (3)",
                                       f"Left better ({view.left_run})"]
    assert work["status"].tolist() == ["withdrawn", "current", "replaced", "current"]
    assert work["reason"].tolist()[-1] == "a has it"
    assert my_work(store, dataset, "bob")["answer"].tolist() == ["About the same"] * 2
    assert worked_on(store, dataset, "ann") == {"qa"}


def test_a_revote_on_an_opened_query_is_a_new_row_and_the_old_one_is_kept(small) -> None:
    store, dataset, round_ = small
    first, stored = vote(store, dataset, round_, "qa", "left")
    assert stored
    _again, second_tab = vote(store, dataset, round_, "qa", "right")
    assert not second_tab  # a second tab: nothing stored
    opened = open_query(store, dataset, round_, ANN, "qa")
    assert opened.rule is Rule.OPENED and opened.query_id == "qa"
    assert "opened this query yourself" in opened.rule.sentence
    assert judging.record_vote(store, dataset, opened, "tie", "ann", "changed my mind")
    assert not judging.record_vote(store, dataset, opened, "right", "ann")  # same view twice

    work = my_work(store, dataset, "ann")
    assert work["answer"].tolist() == ["About the same", f"Left better ({first.left_run})"]
    assert work["status"].tolist() == ["current", "replaced"]
    counted = store.preferences(dataset, "a", "b")
    assert counted[counted["judge"] == "ann"]["choice"].tolist() == ["tie"]  # one counted
    every = store.preferences(dataset, "a", "b", include_retracted=True)
    assert every[every["judge"] == "ann"]["choice"].tolist() == ["left", "tie"]
    # undoing the re-vote leaves no counted vote: the earlier one stays replaced
    assert judging.undo_last_vote(store, dataset, "ann", "a", "b", "undo:1") == "qa"
    assert my_work(store, dataset, "ann")["status"].tolist() == ["undone", "replaced"]


def test_a_revote_retracts_the_counted_vote_only_never_a_stale_one(small) -> None:
    store, dataset, round_ = small
    _first, stored = vote(store, dataset, round_, "qa", "left")
    assert stored
    run = store.run(dataset, "b")  # qa's ranking in b changes: the first vote goes stale
    swapped = run.assign(score=run["score"].where(run["query_id"] != "qa", -run["score"]),
                         line=range(1, len(run) + 1))
    store.put_run(dataset, "b", swapped, "b-v2", replace=True)
    _view, again = vote(store, dataset, round_, "qa", "right")
    assert again  # the stale vote does not count: a new counted one
    opened = open_query(store, dataset, round_, ANN, "qa")
    assert judging.record_vote(store, dataset, opened, "tie", "ann")
    kept = store.preferences(dataset, "a", "b")  # stale votes listed, retracted ones not
    ann = kept[kept["judge"] == "ann"]
    assert dict(zip(ann["choice"], ann["stale"], strict=True)) == {"left": True,
                                                                   "tie": False}


def test_an_opened_view_stays_on_screen_across_reruns(small) -> None:
    store, dataset, round_ = small
    vote(store, dataset, round_, "qa", "left")
    opened = open_query(store, dataset, round_, ANN, "qa")  # no longer in ann's queue
    drawn = next_query(store, dataset, round_, "ann", shown=opened)
    assert drawn.view is opened and drawn.reason is Rule.OPENED


def test_who_may_open_what(small) -> None:
    store, dataset, round_ = small
    with pytest.raises(SxsError, match="only the queries you voted on or graded"):
        open_query(store, dataset, round_, ANN, "qb")
    assert open_query(store, dataset, round_, ADMIN, "qb").rule is Rule.OPENED
    with pytest.raises(SxsError, match="has no query 'nope'"):
        open_query(store, dataset, round_, ADMIN, "nope")
    for judge in ("cy", "dee"):  # qa gets its N = 2 judges
        vote(store, dataset, round_, "qa", "left", judge=judge)
    with pytest.raises(SxsError, match="already has its 2 judges"):
        open_query(store, dataset, round_, ADMIN, "qa")
    # a judge of the two re-opens it: the others are one, below N
    assert open_query(store, dataset, round_, Judge("cy", False, True, "invite"),
                      "qa").query_id == "qa"


def test_the_pickers_search(small) -> None:
    store, dataset, _round = small
    assert find_queries(store, dataset, "")["query_id"].tolist() == [
        "qa", "qb", "qc", "qd", "qe", "qf"]
    assert find_queries(store, dataset, "TEXT qc")["query_id"].tolist() == ["qc"]
    assert find_queries(store, dataset, "of q", limit=2)["query_id"].tolist() == ["qa", "qb"]
    assert find_queries(store, dataset, "zzz").empty
    assert find_queries(store, dataset, "text of qd")["query_id"].tolist() == ["qd"]
    store.put_queries(dataset, pd.DataFrame({"query_id": ["1", "10", "21"],
                                             "text": ["one", "ten about 1", "twenty-one"]}))
    assert find_queries(store, dataset, "1")["query_id"].tolist() == ["1", "10", "21"]
    assert find_queries(store, dataset, "10")["query_id"].tolist() == ["10"]
    assert find_queries(store, dataset, "21 ")["query_id"].tolist() == ["21"]
