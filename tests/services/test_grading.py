"""Grades sent by the judge page's results grid (judge_app/services/grading.py), written to a
real store: what is accepted, what is written, and that nothing is written twice or lost.

The grid sends its whole state; these tests send the states a browser would, and the ones a
forger could."""

from __future__ import annotations

import itertools

import pytest

from judge_app.errors import SxsError
from judge_app.services import grading, judging
from judge_app.services.demo import build_demo_store
from judge_app.store import Store


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    address = tmp_path_factory.mktemp("grading") / "demo.duckdb"
    with Store(address) as opened:
        build_demo_store(opened)
        opened.invite_judge("ann")
        yield opened


QUERIES = itertools.count(1)  # each test grades a query of its own (Cranfield's 1, 2, …)


@pytest.fixture
def session(demo):
    """A judge's session with one view issued: (store, dataset, views, view)."""
    dataset = demo.dataset("cranfield")
    view = judging.side_by_side(demo, dataset, "title", "bm25", str(next(QUERIES)), 10, "ann",
                                overlap=10)
    views: dict[str, grading.ViewGrades] = {}
    grading.remember_view(views, view)
    return demo, dataset, views, view


def labels(store: Store, dataset, view) -> list[tuple[str, int, bool]]:
    history = store.expert_label_history(dataset)
    mine = history[history["query_id"] == view.query_id]
    return list(zip(mine["doc_id"], mine["grade"], mine["withdrawn"], strict=True))


def state(view, seq: int, *grades) -> dict:
    return {"view": view.view_id, "seq": seq, "grades": [list(g) for g in grades]}


def test_a_state_stores_what_changed_in_the_order_it_was_set(session) -> None:
    store, dataset, views, view = session
    a, b, c = (row.doc_id for row in view.left[:3])
    scale = dataset.scale
    apply = lambda sent: grading.apply_grades(store, dataset, "ann", sent, views, scale)  # noqa: E731
    assert apply(state(view, 1, (a, 2))) == 1
    assert apply(state(view, 1, (a, 2))) == 0  # the same state again: nothing new
    assert apply(state(view, 2, (a, 2))) == 0  # the same grades, sent again later
    # three clicks the browser sent before the server answered: only the last state arrives
    assert apply(state(view, 4, (a, 2), (c, 0), (b, 3))) == 2
    assert apply(state(view, 5, (a, 2), (c, 0), (b, 1))) == 1  # b changed its grade
    assert apply(state(view, 6, (a, 2), (c, 0), (b, None))) == 1  # b withdrawn
    assert apply(state(view, 7, (a, 2), (c, 0), (b, None))) == 0
    assert apply(state(view, 8, (a, 2), (c, 0), (b, 1))) == 1  # and graded again
    assert labels(store, dataset, view) == [(a, 2, False), (c, 0, False), (b, 3, False),
                                            (b, 1, True), (b, 1, False)]
    assert views[view.view_id].seq == 8
    assert views[view.view_id].chosen == {a: 2, c: 0, b: 1}


def test_a_state_delayed_behind_a_newer_one_changes_nothing(session) -> None:
    store, dataset, views, view = session
    doc = view.left[0].doc_id
    apply = lambda sent: grading.apply_grades(store, dataset, "ann", sent, views,  # noqa: E731
                                              dataset.scale)
    assert apply(state(view, 3, (doc, 3))) == 1
    assert apply(state(view, 2, (doc, 2))) == 0  # older: it would undo the grade 3
    assert views[view.view_id].chosen == {doc: 3} and views[view.view_id].seq == 3
    assert labels(store, dataset, view) == [(doc, 3, False)]


class FailingStore:
    """The store, failing its ``fail_at``-th expert label (as a revoked judge or a lost
    connection would)."""

    def __init__(self, store: Store, fail_at: int) -> None:
        self.store, self.fail_at, self.calls = store, fail_at, 0

    def add_expert_label(self, *args, **kwargs) -> bool:
        self.calls += 1
        if self.calls == self.fail_at:
            raise SxsError("the store went away")
        return self.store.add_expert_label(*args, **kwargs)

    def __getattr__(self, name: str):
        return getattr(self.store, name)


def test_a_store_error_part_way_keeps_what_was_stored_and_the_rest_is_sent_again(
        session) -> None:
    store, dataset, views, view = session
    a, b, c = (row.doc_id for row in view.left[:3])
    sent = state(view, 1, (a, 1), (b, 2), (c, 3))
    with pytest.raises(SxsError, match="went away"):
        grading.apply_grades(FailingStore(store, 2), dataset, "ann", sent, views,
                             dataset.scale)
    kept = views[view.view_id]
    assert kept.chosen == {a: 1} and kept.seq == 1  # the grid is told what was stored
    assert labels(store, dataset, view) == [(a, 1, False)]
    # the judge clicks again: the grid sends its whole state, and the rest is stored once
    again = state(view, 2, (a, 1), (b, 2), (c, 3))
    assert grading.apply_grades(store, dataset, "ann", again, views, dataset.scale) == 2
    assert labels(store, dataset, view) == [(a, 1, False), (b, 2, False), (c, 3, False)]


def test_a_state_for_an_earlier_view_of_the_session_still_counts(session) -> None:
    """A click sent while the next query was being drawn names the query it was made on."""
    store, dataset, views, view = session
    later = judging.side_by_side(store, dataset, "title", "bm25", "200", 10, "ann", overlap=10)
    grading.remember_view(views, later)
    doc = view.right[0].doc_id
    assert grading.apply_grades(store, dataset, "ann", state(view, 1, (doc, 1)), views,
                                dataset.scale) == 1
    assert labels(store, dataset, view) == [(doc, 1, False)]


def test_only_the_latest_views_are_kept() -> None:
    views: dict[str, grading.ViewGrades] = {}
    made = [judging.SideBySide(str(n), "", "a", "b", "a", [], [], f"v{n}") for n in range(6)]
    for view in made:
        grading.remember_view(views, view)
    assert list(views) == [f"v{n}" for n in range(6 - grading.RECENT_VIEWS, 6)]


@pytest.mark.parametrize("forge", [
    lambda view, doc: {**state(view, 1, (doc, 2)), "view": "a-view-never-issued"},
    lambda view, doc: {"seq": 1, "grades": [[doc, 2]]},
    lambda view, doc: state(view, 1, ("a-doc-the-view-does-not-show", 2)),
    lambda view, doc: state(view, 1, (doc, 99)),  # off the scale
    lambda view, doc: state(view, 1, (doc, -1)),
    lambda view, doc: state(view, 1, (doc, True)),
    lambda view, doc: state(view, 1, (doc, 2.0)),
    lambda view, doc: state(view, 1, (doc, "2")),
    lambda view, doc: state(view, 1, (doc, 2), (doc, 3)),  # one doc twice
    lambda view, doc: state(view, 1, (doc, 2, "extra")),
    lambda view, doc: {**state(view, 1, (doc, 2)), "grades": {doc: 2}},
    lambda view, doc: {**state(view, 1, (doc, 2)), "seq": True},
    lambda view, doc: {**state(view, 1, (doc, 2)), "seq": "1"},
    lambda view, doc: [view.view_id, 1, [[doc, 2]]],
    lambda view, doc: None,
])
def test_a_forged_state_stores_nothing_at_all(session, forge) -> None:
    store, dataset, views, view = session
    doc, other = view.left[0].doc_id, view.left[1].doc_id
    sent = forge(view, doc)
    if isinstance(sent, dict) and isinstance(sent.get("grades"), list):
        sent["grades"].insert(0, [other, 1])  # a valid grade does not carry a forged one in
    assert grading.apply_grades(store, dataset, "ann", sent, views, dataset.scale) == 0
    assert labels(store, dataset, view) == []
    assert views[view.view_id].seq == 0
