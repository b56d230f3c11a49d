"""The decision state of a round's pair, the round's "stop when decided" and the queue that
honours it (issue 22, item 4), on the tiny store of :mod:`tests.services.decided_pair`."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services import decision_state as module
from judge_app.services import judging
from judge_app.services.decision_state import decision_state, pair_done, round_state
from judge_app.services.next_query import next_query
from judge_app.store import Store
from tests.services.decided_pair import DATASET, DECIDING, tiny_store

JUDGE = "eve"


def grade(store: Store, grades) -> None:
    dataset = store.dataset(DATASET)
    for i, (query_id, doc_id, value) in enumerate(grades):
        assert judging.record_grade(store, dataset, f"v{i}", query_id, doc_id, value, JUDGE)


def test_a_round_keeps_stop_when_decided_on_both_backends(store_address) -> None:
    """The setting is stored with the round and read back; rounds default to off."""
    tiny_store(store_address, stop=True)
    with Store(store_address) as store:
        dataset = store.dataset(DATASET)
        assert store.current_round(dataset).stop_when_decided
        started = judging.start_round(store, dataset, "a", "b", 2, 1, False, 5, by="admin")
        assert not started.stop_when_decided
        assert store.current_round(dataset) == started
        again = judging.start_round(store, dataset, "a", "b", 2, 1, False, 5, by="admin",
                                    stop_when_decided=True)
        assert store.current_round(dataset) == again and again.stop_when_decided


def test_the_deciding_grade_stops_the_queue_and_the_state_says_so(tmp_path) -> None:
    with Store(tiny_store(tmp_path / "t.duckdb")) as store:
        dataset = store.dataset(DATASET)
        store.invite_judge(JUDGE)
        round_ = store.current_round(dataset)
        assert pair_done(store, dataset, round_) is None
        first = next_query(store, dataset, round_, JUDGE)
        assert first.view is not None and first.decided is None
        assert first.view.query_id == "q0"  # the most unlabelled weight, then the query id
        grade(store, DECIDING[:1])
        assert not round_state(store, dataset, round_).decided
        assert next_query(store, dataset, round_, JUDGE, shown=first.view).view is not None
        grade(store, DECIDING[1:])
        done = pair_done(store, dataset, round_)
        assert done is not None and done.labels.verdict.value == "b_better"
        after = next_query(store, dataset, round_, JUDGE, shown=first.view)
        assert after.view is None and after.decided == done  # the view on screen is dropped
        assert "This pair is decided: B better" in done.done_line()
        assert "nothing more to judge" in done.done_line()
        # the same pair in a round that does not stop: still served
        store.set_round(dataset, "a", "b", k=2, overlap=1, blind=False, by="test")
        open_round = store.current_round(dataset)
        assert pair_done(store, dataset, open_round) is None
        assert next_query(store, dataset, open_round, JUDGE).view is not None


def test_the_state_is_cached_on_the_data_version(tmp_path, monkeypatch) -> None:
    """A second draw with nothing changed decides nothing; a grade makes it decide again."""
    calls = []
    real = module.decide_runs

    def counting(*args, **kwargs):
        calls.append(args[2:4])
        return real(*args, **kwargs)

    monkeypatch.setattr(module, "decide_runs", counting)
    with Store(tiny_store(tmp_path / "t.duckdb")) as store:
        dataset = store.dataset(DATASET)
        store.invite_judge(JUDGE)
        first = decision_state(store, dataset, "a", "b", "ndcg_m@2")
        assert decision_state(store, dataset, "a", "b", "ndcg_m@2") is first
        assert len(calls) == 1
        grade(store, DECIDING[:1])
        second = decision_state(store, dataset, "a", "b", "ndcg_m@2")
        assert second is not first and len(calls) == 2
        assert second.labels.judged == first.labels.judged + 1


def test_the_state_holds_the_figures_of_sxs_decide_json(tmp_path) -> None:
    db = tiny_store(tmp_path / "t.duckdb")
    with Store(db) as store:
        dataset = store.dataset(DATASET)
        store.invite_judge(JUDGE)
        grade(store, DECIDING)
        state = round_state(store, dataset, store.current_round(dataset))
        ours = json.loads(json.dumps(state.report.to_dict()))
    result = CliRunner().invoke(main, ["decide", "a", "b", "-d", DATASET, "-m", "ndcg_m@2",
                                       "--format", "json", "--db", str(db)])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output) == ours
    assert state.decided and ours["labels"]["decisions"][0]["verdict"] == "b_better"


def test_the_lines_name_the_verdicts_and_what_they_stand_on(tmp_path) -> None:
    with Store(tiny_store(tmp_path / "t.duckdb")) as store:
        dataset = store.dataset(DATASET)
        state = decision_state(store, dataset, "a", "b", "ndcg_m@2")
        line = state.line()
        assert line.startswith("Decision on ndcg_m@2: labels undecided (mean Δ +")
        assert "more labels would decide it" in line and "votes: none for A or B yet" in line
        assert "\n" not in line
        assert "10 of 16 pool pairs judged" in state.labels_line()
        assert state.votes_line().startswith("expert votes: undecided")


def test_an_unknown_run_is_one_clear_error(tmp_path) -> None:
    from judge_app.errors import SxsError

    with Store(tiny_store(tmp_path / "t.duckdb")) as store, \
            pytest.raises(SxsError, match="nope"):
        decision_state(store, store.dataset(DATASET), "a", "nope", "ndcg_m@2")
