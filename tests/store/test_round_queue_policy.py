"""Issue 22, item 2: a judging round chooses the order of its vote queue (``queue_policy``,
:class:`~judge_app.services.queue.QueuePolicy`).  The store keeps the name with the round
(compare-and-set save path included); a round saved without one — every round from before the
setting — reads None, which the services take as ``difference``; an unknown name is refused
and nothing written.  Both backends."""

from __future__ import annotations

import pytest

from judge_app.errors import SxsError
from judge_app.services import judging
from judge_app.services.queue import QueuePolicy
from tests.votes import store_with_runs


@pytest.fixture
def store(store_address):
    with store_with_runs(store_address, "bm25", "title") as opened:
        yield opened


def test_a_round_keeps_its_queue_policy_and_none_reads_as_difference(store) -> None:
    dataset = store.dataset("d")
    plain = store.set_round(dataset, "bm25", "title", k=10, overlap=1, blind=True, by="cli")
    assert plain.queue_policy is None and store.current_round(dataset) == plain
    assert QueuePolicy.of_round(store.current_round(dataset).queue_policy) is (
        QueuePolicy.DIFFERENCE)
    chosen = judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                                 expected_round_id=plain.round_id,
                                 queue_policy=QueuePolicy.MOVES_DECISION)
    assert chosen.queue_policy == "moves_decision"
    assert store.current_round(dataset) == chosen
    assert QueuePolicy.of_round(chosen.queue_policy) is QueuePolicy.MOVES_DECISION
    back = judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                               expected_round_id=chosen.round_id, queue_policy="difference")
    assert store.current_round(dataset).queue_policy == "difference" == back.queue_policy


def test_an_unknown_queue_policy_is_refused_and_nothing_written(store) -> None:
    dataset = store.dataset("d")
    with pytest.raises(SxsError, match="unknown queue order 'fastest': one of difference, "
                                       "moves_decision"):
        judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                            expected_round_id=None, queue_policy="fastest")
    assert store.current_round(dataset) is None
