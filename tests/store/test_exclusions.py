"""Judge exclusions and weights (migration 0016) on DuckDB and PostgreSQL: excluded judges'
labels leave the filled set and their votes the counted votes; decisions are events, the
newest counts, on one dataset or every one; the weighted lower median equals a hand-made one
(each judge's grade repeated by weight) and, with every weight 1, the plain lower median
(:func:`metrics.consensus.lower_median`)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judge_app.errors import SxsError
from judge_app.services import judge_standing
from judge_app.services.importing import create_dataset
from judge_app.store import Store
from metrics.consensus import lower_median
from tests.votes import vote


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def labelled(store: Store, name: str = "d", rows=None):
    dataset = create_dataset(store, name, "esci")
    rows = rows or [("q1", "a", "ann", 0), ("q1", "a", "bob", 2), ("q1", "a", "cat", 3),
                    ("q1", "b", "ann", 1), ("q2", "c", "bob", 3)]
    store.append_expert_labels(dataset, pd.DataFrame(
        rows, columns=["query_id", "doc_id", "judge", "grade"]), f"seed:{name}")
    return dataset


def filled(store: Store, dataset) -> dict:
    frame = store.filled_judgments(dataset)
    return {(q, d): (g, n) for q, d, g, n in
            frame[["query_id", "doc_id", "grade", "judges"]].itertuples(index=False)}


def test_an_excluded_judge_leaves_the_filled_set_until_restored(store: Store) -> None:
    dataset, other = labelled(store), labelled(store, "e")
    before = filled(store, dataset)
    assert before == {("q1", "a"): (2, 3), ("q1", "b"): (1, 1), ("q2", "c"): (3, 1)}
    judge_standing.exclude(store, "ann", dataset, by="root", reason="random clicks")
    assert filled(store, dataset) == {("q1", "a"): (2, 2), ("q2", "c"): (3, 1)}
    assert filled(store, other) == before  # one dataset only
    assert store.excluded_judges(dataset) == ["ann"] and store.excluded_judges(other) == []
    assert judge_standing.left_out_line(store, dataset) == "left out: judges ann (excluded)"
    judge_standing.exclude(store, "bob")  # every dataset
    assert store.excluded_judges(dataset) == ["ann", "bob"]
    assert store.excluded_judges(other) == ["bob"]
    judge_standing.restore(store, "ann", dataset)
    judge_standing.restore(store, "bob")
    assert filled(store, dataset) == before and store.excluded_judges(dataset) == []
    events = store.standing_events("ann")
    assert events["action"].tolist() == ["exclude", "restore"]
    assert events.iloc[0][["dataset", "decided_by", "reason"]].tolist() == [
        "d", "root", "random clicks"]
    # a judge's own labels stay theirs: only the figures leave them out
    judge_standing.exclude(store, "ann")
    assert "ann" in set(store.current_expert_labels(dataset)["judge"])
    with pytest.raises(SxsError, match="no judge 'nobody'"):
        judge_standing.exclude(store, "nobody")


def test_weights_move_the_median_as_repeated_grades_would(store: Store) -> None:
    rng = np.random.default_rng(5)
    judges = ["ann", "bob", "cat", "dan"]
    rows = [(f"q{i % 4}", f"d{i}", j, int(rng.integers(0, 4)))
            for i in range(40) for j in judges if rng.random() < 0.7]
    dataset = labelled(store, rows=rows)
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "judge", "grade"])
    expected = lower_median(frame, items=["query_id", "doc_id"]).to_dict()
    assert {k: g for k, (g, _) in filled(store, dataset).items()} == expected
    weights = {"ann": 3.0, "bob": 0.5, "cat": 1.0, "dan": 2.0}
    for judge, w in weights.items():
        judge_standing.set_weight(store, judge, w, dataset)
    # the oracle: each grade repeated 2 x weight times, then the plain lower median
    repeated = frame.loc[frame.index.repeat(frame["judge"].map(weights).mul(2).astype(int))]
    repeated = repeated.assign(judge=[f"x{i}" for i in range(len(repeated))])
    weighted = lower_median(repeated, items=["query_id", "doc_id"]).to_dict()
    assert {k: g for k, (g, _) in filled(store, dataset).items()} == weighted
    assert weighted != expected  # the weights changed something
    with pytest.raises(SxsError, match=">= 0"):
        store.record_standing("ann", "weight", dataset, weight=-1)


def test_an_excluded_judges_votes_are_not_counted(store: Store) -> None:
    dataset = create_dataset(store, "v", "esci")
    vote(store, dataset, "q1", "A", "B", "A", "left", "ann")
    vote(store, dataset, "q1", "A", "B", "B", "right", "bob")
    assert store.vote_counts(dataset, "A", "B", "ann")["judges"].tolist() == [2]
    judge_standing.exclude(store, "ann", dataset)
    counts = store.vote_counts(dataset, "A", "B", "ann")
    assert counts["judges"].tolist() == [1] and not counts["mine"].any()
