"""Issue 25: two admins saving the judging round at once lose no update.  A round is saved
only while the dataset's current round is the one the admin's form was drawn with
(compare-and-set in one transaction); a stale save is refused and writes nothing.  Both
backends; the race with threads on one store."""

from __future__ import annotations

import threading

import pytest

from judge_app.services import judging
from judge_app.store.votes import ROUND_CHANGED, RoundChanged
from tests.votes import store_with_runs


@pytest.fixture
def store(store_address):
    with store_with_runs(store_address, "bm25", "title", "mini") as opened:
        yield opened


def test_a_save_from_a_form_drawn_before_the_current_round_is_refused(store) -> None:
    dataset = store.dataset("d")
    assert store.current_round(dataset) is None
    first = judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin1",
                                expected_round_id=None)  # no round yet: the form saw none
    assert store.current_round(dataset) == first and first.round_id is not None
    drawn = store.current_round(dataset)  # both admins open Settings on this round
    second = judging.start_round(store, dataset, "bm25", "mini", 5, 1, True, 5, by="admin1",
                                 expected_round_id=drawn.round_id)
    with pytest.raises(RoundChanged, match=ROUND_CHANGED):
        judging.start_round(store, dataset, "bm25", "title", 10, 2, True, 5, by="admin2",
                            expected_round_id=drawn.round_id)
    assert store.current_round(dataset) == second  # admin1's round, whole
    with pytest.raises(RoundChanged):  # "no round yet" once there is one
        judging.start_round(store, dataset, "bm25", "title", 10, 2, True, 5, by="admin2",
                            expected_round_id=None)
    third = judging.start_round(store, dataset, "bm25", "title", 10, 2, True, 5, by="admin2",
                                expected_round_id=second.round_id)  # after a reload
    assert (third.run_b, third.k, third.overlap) == ("title", 10, 2)
    assert store.current_round(dataset) == third
    # the CLI and the demo set a round without a form: nothing to compare
    store.set_round(dataset, "title", "mini", k=3, overlap=1, blind=False, by="cli")
    assert store.current_round(dataset).run_b == "mini"


def test_of_two_admins_saving_at_once_exactly_one_is_stored(store) -> None:
    dataset = store.dataset("d")
    drawn = store.set_round(dataset, "bm25", "title", k=10, overlap=1, blind=True, by="demo")
    outcomes: dict[str, object] = {}
    start = threading.Barrier(2)

    def save(admin: str, run_b: str, k: int) -> None:
        start.wait()
        try:
            outcomes[admin] = judging.start_round(store, dataset, "bm25", run_b, k, 2, True, 5,
                                                  by=admin, expected_round_id=drawn.round_id)
        except RoundChanged as error:
            outcomes[admin] = error

    threads = [threading.Thread(target=save, args=args)
               for args in (("admin1", "mini", 5), ("admin2", "title", 7))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    saved = [r for r in outcomes.values() if not isinstance(r, RoundChanged)]
    assert len(saved) == 1, outcomes
    assert store.current_round(dataset) == saved[0]
