"""A judge's tab and the dataset's current round (issue 25): the change is seen, and the
notice names the new round without naming a blind round's runs."""

from __future__ import annotations

from judge_app.services.round_change import round_change
from judge_app.store import Store
from metrics import ESCI
from tests.votes import ensure_runs


def test_a_new_round_is_seen_and_named(tmp_path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        dataset = store.create_dataset("d", ESCI)
        ensure_runs(store, dataset, "bm25", "title")
        assert round_change(store, dataset, None) is None  # no round, none seen
        first = store.set_round(dataset, "bm25", "title", k=10, overlap=1, blind=True, by="a")
        change = round_change(store, dataset, None)  # a tab drawn before the first round
        assert change is not None and change.now == first
        assert round_change(store, dataset, first.round_id) is None
        second = store.set_round(dataset, "title", "bm25", k=5, overlap=2, blind=True, by="a")
        change = round_change(store, dataset, first.round_id)
        assert change.now == second
        assert change.notice.startswith("a new round started: top 5, 2 judges per query, blind")
        assert "bm25" not in change.notice  # blind: no run names
        store.set_round(dataset, "title", "bm25", k=3, overlap=1, blind=False, by="a")
        assert "top 3, 1 judge per query, title vs bm25" in round_change(
            store, dataset, second.round_id).notice
