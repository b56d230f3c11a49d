"""The interval narrowing as labels and votes arrived (issue 22, the dashboard's chart)."""

from __future__ import annotations

from itertools import pairwise

import pandas as pd
import pytest

from judge_app.services import judging
from judge_app.services.decision import labels_so_far
from judge_app.services.decision_history import (
    MAX_POINTS,
    cut_times,
    decision_history,
    labels_at,
)
from judge_app.services.decision_state import decision_state
from judge_app.store import Store
from tests.services.decided_pair import DATASET, DECIDING, tiny_store


def test_cut_times_are_evenly_spaced_through_the_arrivals() -> None:
    times = pd.Series(pd.to_datetime(["2026-01-01 00:00:10", "2026-01-01 00:00:00",
                                      "2026-01-01 00:01:40", "2026-01-01 00:00:11",
                                      "2026-01-01 00:00:12"], utc=True))
    assert cut_times(times, 3) == list(pd.to_datetime(
        ["2026-01-01 00:00:00", "2026-01-01 00:00:11", "2026-01-01 00:01:40"], utc=True))
    assert cut_times(times) == sorted(times)  # fewer events than points: every one
    many = pd.Series(pd.date_range("2026-01-01", periods=500, freq="s", tz="UTC"))
    cuts = cut_times(many)
    assert len(cuts) == MAX_POINTS and cuts[0] == many.iloc[0] and cuts[-1] == many.iloc[-1]
    gaps = {int((b - a).total_seconds()) for a, b in pairwise(cuts)}
    assert gaps <= {10, 11}  # evenly spaced ranks, rounded
    assert cut_times(pd.Series([times.iloc[0]] * 3)) == [times.iloc[0]]  # once each
    assert cut_times(pd.Series([], dtype="datetime64[ns, UTC]")) == []
    with pytest.raises(ValueError, match="between 1 and 50"):
        cut_times(times, 51)


def test_labels_at_a_cut_follow_the_filled_label_rule_of_the_store(tmp_path) -> None:
    """Each judge's latest grade, their lower median overriding the dataset's grade: what the
    store's filled labels (policy median, experts) hold once every label is in."""
    with Store(tiny_store(tmp_path / "t.duckdb")) as store:
        dataset = store.dataset(DATASET)
        for judge in ("eve", "bob", "ann"):
            store.invite_judge(judge)
        for i, (judge, query_id, doc_id, value) in enumerate([
                ("eve", "q0", "g0", 4), ("bob", "q0", "g0", 1), ("eve", "q0", "g0", 2),
                ("ann", "q0", "g0", 3), ("eve", "q3", "g3", 0), ("bob", "q1", "x1", 1)]):
            judging.record_grade(store, dataset, f"v{i}", query_id, doc_id, value, judge)
        history = store.expert_label_history(dataset).rename(columns={"created_at": "at"})
        ours = labels_at(store.judgments(dataset), history)
        theirs = labels_so_far(store, dataset).frame
    key = ["query_id", "doc_id"]
    assert ours.sort_values(key).reset_index(drop=True).astype({"grade": int}).equals(
        theirs.sort_values(key).reset_index(drop=True).astype({"grade": int}))
    assert ours.set_index(key).loc[("q0", "g0"), "grade"] == 2  # median of 1, 2, 3


def test_the_history_narrows_to_the_decision_of_now(tmp_path) -> None:
    with Store(tiny_store(tmp_path / "t.duckdb")) as store:
        dataset = store.dataset(DATASET)
        assert decision_history(store, dataset, "a", "b", "ndcg_m@2").empty  # nothing yet
        store.invite_judge("eve")
        for i, (query_id, doc_id, value) in enumerate(DECIDING):
            judging.record_grade(store, dataset, f"v{i}", query_id, doc_id, value, "eve")
        view = judging.side_by_side(store, dataset, "a", "b", "q1", 2, "eve", False)
        judging.record_vote(store, dataset, view, "right", "eve")  # right is b: not blind
        history = decision_history(store, dataset, "a", "b", "ndcg_m@2")
        now = decision_state(store, dataset, "a", "b", "ndcg_m@2")
    assert 2 <= len(history) <= MAX_POINTS
    first, last = history.iloc[0], history.iloc[-1]
    assert (first["labels"], first["votes"]) == (0, 0)
    assert (last["labels"], last["votes"]) == (2, 1)
    assert history["labels"].is_monotonic_increasing and history["at"].is_monotonic_increasing
    # the last point stands on everything: the decision of now
    assert last["expected"] == pytest.approx(now.labels.expected)
    assert (last["lower"], last["upper"]) == pytest.approx((now.labels.lower, now.labels.upper))
    assert last["verdict"] == now.labels.verdict.label == "decided: B better"
    assert (last["votes_low"], last["votes_high"]) == pytest.approx(
        (now.votes.low, now.votes.high))
    # the certain interval only narrows as labels arrive
    assert (history["upper"] - history["lower"]).is_monotonic_decreasing
    assert first["verdict"] == "undecided"
    assert (history["lower"] <= history["expected"]).all()
    assert (history["expected"] <= history["upper"]).all()
