"""services/decision: what the decision reads from the store (the filled label set, the
pair's current votes, an oracle file), on the small stores of tests/services/decision_stores.py."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from judge_app.errors import InputError, SxsError
from judge_app.services import decision, judge_standing, judging
from judge_app.store import Store
from metrics.decision import Verdict
from metrics.sequential import sequential_win_rate
from tests.services.decision_stores import QUERIES, toy_store


def _vote(store: Store, judge: str, query_id: str, for_b: bool) -> None:
    dataset = store.dataset("toy")
    view = judging.side_by_side(store, dataset, "a", "b", query_id, 10, judge)
    side = "left" if (view.left_run == "b") == for_b else "right"
    assert judging.record_vote(store, dataset, view, side, judge)


def test_the_votes_of_the_pair_reach_the_sequential_test(tmp_path: Path) -> None:
    """ann prefers B on 12 queries: decided (the mixture test's e-value 2^12 / 13 > 20);
    bob's 12 votes for A do not count once bob is excluded."""
    db = toy_store(tmp_path / "toy.duckdb")
    with Store(db) as store:
        for judge in ("ann", "bob"):
            store.invite_judge(judge)
        for i in range(12):
            _vote(store, "ann", f"q{i}", for_b=True)
            _vote(store, "bob", f"q{i}", for_b=False)
        dataset = store.dataset("toy")
        both = decision.expert_votes(store, dataset, "a", "b", 0.95)
        assert (both.wins_b, both.wins_a) == (12, 12) and both.verdict is Verdict.UNDECIDED
        judge_standing.exclude(store, "bob", dataset)
        report = decision.decide_runs(store, dataset, "a", "b")
        # the order the runs are named in orients the votes
        flipped = decision.expert_votes(store, dataset, "b", "a", 0.95)
    assert (report.votes.wins_b, report.votes.wins_a) == (12, 0)
    assert report.votes.verdict is Verdict.B_BETTER
    assert report.votes == sequential_win_rate([1] * 12, 0.95)
    assert flipped.verdict is Verdict.A_BETTER
    assert report.to_dict()["votes"]["description"] == "decided: experts prefer B"


def test_expert_labels_fill_the_gaps_of_the_labels_witness(tmp_path: Path) -> None:
    db = toy_store(tmp_path / "toy.duckdb")
    with Store(db) as store:
        dataset = store.dataset("toy")
        store.put_judgments(dataset, pd.DataFrame({"query_id": ["q0"], "doc_id": ["d0_0"],
                                                   "grade": [1]}), "test")
        before = decision.decide_runs(store, dataset, "a", "b", ["ndcg_m@10", "ndcg@5"])
        store.invite_judge("ann")
        store.add_expert_label(dataset, "q1", "d1_1", 4, "ann", "t1")
        store.add_expert_label(dataset, "q0", "d0_0", 3, "ann", "t2")  # overrides (median)
        after = decision.decide_runs(store, dataset, "a", "b")
        pairs = decision.backfill_next(store, dataset, "a", "b", batch=1000)
    assert before.decisions[0].judged == 1 and before.decisions[0].pool == QUERIES * 10
    assert before.decisions[1].pool == QUERIES * 5  # each measure at its own depth
    assert after.decisions[0].judged == 2
    assert after.labels.name == "overridden:experts"  # (q0, d0_0): 1 -> 3
    assert set(after.labels.frame["grade"]) == {3, 4}
    assert len(pairs) == QUERIES * 10 - 2
    assert not {("q1", "d1_1"), ("q0", "d0_0")} & set(zip(pairs["query_id"], pairs["doc_id"],
                                                          strict=True))


def test_the_oracle_is_read_and_checked_like_an_import(tmp_path: Path) -> None:
    db = toy_store(tmp_path / "toy.duckdb")
    good, bad = tmp_path / "good.qrels", tmp_path / "bad.qrels"
    good.write_text("q0 0 d0_1 4\nq1 0 d1_1 2\n")
    bad.write_text("q0 0 d0_1 4\nq1 0 d1_1 7\n")
    with Store(db) as store:
        dataset = store.dataset("toy")
        read = decision.read_oracle(store, dataset, good)
        assert list(read["grade"]) == [4, 2]
        with pytest.raises(InputError, match="line 2"):
            decision.read_oracle(store, dataset, bad)
        with pytest.raises(SxsError, match="start-from"):
            decision.simulate(store, dataset, "a", "b", good, start_from="labels")
        replays = decision.simulate(store, dataset, "a", "b", good, ["decision", "pool"],
                                    batch=30)
        assert store.judgments(dataset).empty  # the replay wrote nothing
    assert [r.order.value for r in replays] == ["decision", "pool"]
    assert all(r.pool == QUERIES * 10 for r in replays)


def test_a_pair_without_votes_skips_the_views_with_the_same_answer(store_address,
                                                                     monkeypatch) -> None:
    """No vote on the pair: the test of no vote without reading the votes' views, equal to
    what they give; once a vote is cast the views are read (both backends)."""
    db = toy_store(store_address)
    with Store(db) as store:
        dataset = store.dataset("toy")
        assert not store.has_votes(dataset, "a", "b")
        slow = decision.sequential_votes(store.preferences(dataset, "a", "b"), 0.95)
        read = []
        monkeypatch.setattr(type(store), "preferences",
                            lambda self, *a, **k: read.append(a) or
                            self.votes.preferences(*a, **k))
        fast = decision.expert_votes(store, dataset, "a", "b", 0.95)
        assert repr(fast) == repr(slow) and not read  # (the rate of no vote is NaN)
        store.invite_judge("ann")
        _vote(store, "ann", "q0", for_b=True)
        assert store.has_votes(dataset, "b", "a")
        assert decision.expert_votes(store, dataset, "a", "b", 0.95).wins_b == 1
        assert read
