"""Issue 22, item 2: a judging round chooses the order of its backfill page
(``rounds.backfill_policy``, migration 0023; :data:`~judge_app.services.queue.
BACKFILL_POLICIES`), on DuckDB and PostgreSQL.  The store keeps the name with the round through
the compare-and-set save path; a round saved without one reads as ``decision`` (the default of
new rounds); a round stored before the migration reads ``weight``, the only order it was
served in; an unknown name is refused and nothing written."""

from __future__ import annotations

import pytest

from judge_app.errors import SxsError
from judge_app.services import judging
from judge_app.services.backfill_order import policy_in_force
from judge_app.store import Store
from judge_app.store.migrations import MIGRATIONS
from metrics.judging_order import JudgingOrder
from tests.store.test_migrations import connection, migrate, new_address, upgrade
from tests.votes import store_with_runs


@pytest.fixture
def store(store_address):
    with store_with_runs(store_address, "bm25", "title") as opened:
        yield opened


def test_a_round_keeps_its_backfill_policy_through_compare_and_set(store) -> None:
    dataset = store.dataset("d")
    plain = store.set_round(dataset, "bm25", "title", k=10, overlap=1, blind=True, by="cli")
    assert plain.backfill_policy is None and store.current_round(dataset) == plain
    assert policy_in_force(store.current_round(dataset)) is JudgingOrder.DECISION
    chosen = judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                                 expected_round_id=plain.round_id,
                                 backfill_policy=JudgingOrder.WEIGHT)
    assert chosen.backfill_policy == "weight" and store.current_round(dataset) == chosen
    assert policy_in_force(chosen) is JudgingOrder.WEIGHT
    default = judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                                  expected_round_id=chosen.round_id)
    assert store.current_round(dataset).backfill_policy == "decision" == (
        default.backfill_policy)  # a new round from the form's service: decision, by name
    with pytest.raises(SxsError, match="round changed"):  # compare-and-set: nothing written
        judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                            expected_round_id=chosen.round_id, backfill_policy="weight")
    assert store.current_round(dataset) == default


def test_an_unknown_backfill_policy_is_refused_and_nothing_written(store) -> None:
    dataset = store.dataset("d")
    with pytest.raises(SxsError, match="unknown backfill order 'random': one of decision, "
                                       "weight"):
        judging.start_round(store, dataset, "bm25", "title", 10, 1, True, 5, by="admin",
                            expected_round_id=None, backfill_policy="random")
    assert store.current_round(dataset) is None


@pytest.mark.parametrize("backend", ["duckdb", "postgresql"])
def test_a_round_stored_before_the_setting_reads_weight(backend, request, tmp_path,
                                                        monkeypatch) -> None:
    address = new_address(backend, request, tmp_path)
    migrate(address, [m for m in MIGRATIONS if m.name < "0023"], monkeypatch)
    with connection(address) as con:
        con.execute("INSERT INTO datasets (dataset_id, name) VALUES (1, 'd')")
        con.execute("INSERT INTO grade_scale (dataset_id, grade, name) VALUES (1, 0, 'bad')")
        con.execute("INSERT INTO rounds (dataset_id, run_a, run_b, k, overlap, blind, "
                    "lease_seconds, created_by) VALUES (1, 'bm25', 'title', 10, 1, true, 300, "
                    "'admin')")  # PostgreSQL's connection commits each statement
    upgrade(address)
    with Store(address) as opened:
        found = opened.current_round(opened.dataset("d"))
        assert found.backfill_policy == "weight"
        assert policy_in_force(found) is JudgingOrder.WEIGHT
