"""Side-by-side views, blind assignment, votes, grades and undo, on the demo store."""

from __future__ import annotations

import pytest

from judge_app.errors import SxsError
from judge_app.services import judging
from judge_app.services.demo import build_demo_store
from judge_app.store import Dataset, Store
from metrics.votes import left_run_for
from tests.postgres import require


def plan_for(store: Store, dataset: Dataset, judge: str, overlap: int = 1) -> judging.Plan:
    """The judge's plan for title (A) vs bm25 (B) at k = 10."""
    order = judging.query_order(store, dataset, "title", "bm25", 10)
    return judging.plan_from(store, dataset, order, "title", "bm25", judge, overlap)



@pytest.fixture(scope="module", params=["duckdb", "postgresql"])
def store(request, tmp_path_factory):
    if request.param == "duckdb":
        address = tmp_path_factory.mktemp("judging") / "demo.duckdb"
        with Store(address) as opened:
            build_demo_store(opened)
    else:
        cluster = require(request.getfixturevalue("postgres_cluster"))
        address = cluster.copy_of("demo", build_demo_store)
        request.addfinalizer(lambda: cluster.drop(address))
    with Store(address) as opened:
        for name in ("ann", "cat", "dan"):
            opened.invite_judge(name)
        yield opened


def test_blind_sides_are_stable_per_judge_and_balanced() -> None:
    first = [left_run_for("ann", str(q), "a", "b") for q in range(400)]
    again = [left_run_for("ann", str(q), "a", "b") for q in range(400)]
    other = [left_run_for("bob", str(q), "a", "b") for q in range(400)]
    assert first == again
    assert first != other
    assert 0.4 < first.count("a") / 400 < 0.6
    assert left_run_for("ann", "1", "a", "b", blind=False) == "a"


def test_a_view_marks_shared_results_and_labels(store: Store) -> None:
    dataset = store.dataset("cranfield")
    view = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann")
    assert {view.left_run, view.right_run} == {"title", "bm25"}
    assert view.query_text.startswith("what similarity laws")
    left = {r.doc_id: r for r in view.left}
    right = {r.doc_id: r for r in view.right}
    for doc in set(left) & set(right):
        assert left[doc].other_rank == right[doc].rank
    judged = store.judgments(dataset)
    labelled = set(judged.loc[judged["query_id"] == "1", "doc_id"])
    for row in view.left + view.right:
        assert (row.grade is not None) == (row.doc_id in labelled)
        if row.grade is not None:
            assert row.label_source == "dataset" and row.grade_name
    with pytest.raises(SxsError, match="two different runs"):
        judging.side_by_side(store, dataset, "bm25", "bm25", "1", 10, "ann")


def test_votes_grades_and_undo(store: Store) -> None:
    dataset = store.dataset("cranfield")
    plan = plan_for(store, dataset, "cat")
    view = judging.side_by_side(store, dataset, "title", "bm25", plan.queue[0], 10, "cat")
    assert judging.record_vote(store, dataset, view, "right", "cat", "clearer", 1200)
    after = plan_for(store, dataset, "cat")
    assert view.query_id not in after.queue and after.done == plan.done + 1
    doc = view.left[0].doc_id
    assert judging.record_grade(store, dataset, view.view_id, view.query_id, doc, 3, "cat")
    assert not judging.record_grade(store, dataset, view.view_id, view.query_id, doc, 3, "cat")
    assert judging.record_grade(store, dataset, view.view_id, view.query_id, doc, 1, "cat",
                                change=1)
    current = store.current_expert_labels(dataset)
    mine = current[(current["judge"] == "cat") & (current["doc_id"] == doc)]
    assert mine["grade"].tolist() == [1]
    with pytest.raises(SxsError, match="only undo their own"):
        last = store.preferences(dataset).iloc[-1]
        store.retract_preference(dataset, int(last["preference_id"]), "dan", "t-dan")
    assert judging.undo_last_vote(store, dataset, "cat", "title", "bm25", "u1") == view.query_id
    assert view.query_id in plan_for(store, dataset, "cat").queue
    assert len(store.preferences(dataset, include_retracted=True)) == \
        len(store.preferences(dataset)) + 1
    with pytest.raises(SxsError, match="choice must be"):
        judging.record_vote(store, dataset, view, "up", "cat")



def test_a_judges_own_vote_advances_the_plan_as_recomputing_it_would(store: Store) -> None:
    dataset = store.dataset("cranfield")
    store.invite_judge("eve")
    before = plan_for(store, dataset, "eve")
    view = next(v for q in before.queue
                if (v := judging.side_by_side(store, dataset, "title", "bm25", q, 10, "eve",
                                              overlap=1)) is not None)
    assert judging.record_vote(store, dataset, view, "left", "eve")
    advanced = judging.advance(before, view.query_id)
    again = plan_for(store, dataset, "eve")
    assert advanced.done == again.done == before.done + 1
    assert advanced.total == before.total
    assert view.query_id not in advanced.queue and view.query_id not in again.queue
    assert judging.advance(advanced, view.query_id) == advanced  # not queued: unchanged


def test_a_round_is_started_through_the_service_with_its_lease_in_minutes(
        tmp_path) -> None:
    with Store(tmp_path / "round.duckdb") as fresh:
        build_demo_store(fresh)
        dataset = fresh.dataset("cranfield")
        started = judging.start_round(fresh, dataset, "bm25", "title", 5, 2, False, 3,
                                      by="admin")
        assert fresh.current_round(dataset) == started
        assert (started.run_a, started.run_b, started.k, started.overlap) == (
            "bm25", "title", 5, 2)
        assert started.lease_seconds == 180 and not started.blind
        with pytest.raises(SxsError, match="two different runs"):
            judging.start_round(fresh, dataset, "bm25", "bm25", 5, 1, True, 3, by="admin")
        with pytest.raises(SxsError, match="at least one minute"):
            judging.start_round(fresh, dataset, "bm25", "title", 5, 1, True, 0, by="admin")
        with pytest.raises(SxsError):
            judging.start_round(fresh, dataset, "bm25", "nope", 5, 1, True, 3, by="admin")
        assert fresh.current_round(dataset) == started  # nothing half-written
