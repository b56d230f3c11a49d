"""The store's views (migration 0003): every reader's label sets, votes and coverage, checked
against the same sets computed by hand in plain Python from the raw rows."""

from __future__ import annotations

import itertools
import statistics

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.errors import SxsError
from judge_app.policies import LabelPolicy, label_basis
from judge_app.store import Store
from metrics import ESCI
from tests.postgres import require
from tests.votes import vote


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def filled_by_hand(judged: dict, labels: list[tuple[str, str, str, int]],
                   policy: LabelPolicy, counted: tuple[str, ...] = ()) -> dict:
    """The filled set from first principles: each counted judge's latest grade per pair
    (labels are in write order; people always count, a machine judge only when its prefix is
    in ``counted``), their lower median or the latest of them, combined with the dataset's."""
    latest: dict[tuple[str, str], dict[str, tuple[int, int]]] = {}
    for order, (query, doc, judge, grade) in enumerate(labels):
        if ":" in judge and judge.split(":")[0] not in counted:
            continue
        latest.setdefault((query, doc), {})[judge] = (order, grade)
    filled = dict(judged)
    for pair, by_judge in latest.items():
        grades = sorted(g for _, g in by_judge.values())
        median = statistics.median_low(grades)
        newest = max(by_judge.values())[1]
        if policy is LabelPolicy.DATASET_FIRST:
            filled.setdefault(pair, median)
        else:
            filled[pair] = newest if policy is LabelPolicy.LATEST else median
    return filled


pairs = st.tuples(st.sampled_from(["q1", "q2"]), st.sampled_from(["a", "b", "c"]))


@settings(max_examples=25, deadline=None)
@given(judged=st.dictionaries(pairs, st.integers(-1, 3), max_size=5),
       labels=st.lists(st.tuples(pairs, st.sampled_from(["ann", "bob", "cy", "llm:m",
                                                         "clicks:coec"]),
                                 st.integers(0, 3)), max_size=12))
@pytest.mark.parametrize("backend", ["duckdb", "postgresql"])
def test_filled_labels_equal_the_hand_computed_sets(backend, request, tmp_path_factory,
                                                    judged: dict, labels: list) -> None:
    flat = [(q, d, judge, grade) for (q, d), judge, grade in labels]
    if backend == "duckdb":
        address = tmp_path_factory.mktemp("v") / "s.duckdb"
        given_back = None
    else:
        cluster = require(request.getfixturevalue("postgres_cluster"))
        address = cluster.fresh()
        given_back = cluster.drop
    try:
        check_filled_labels(address, judged, flat)
    finally:
        if given_back is not None:
            given_back(address)


def check_filled_labels(address, judged: dict, flat: list) -> None:
    with Store(address) as store:
        dataset = store.create_dataset("p", ESCI)
        if judged:
            store.put_judgments(dataset, pd.DataFrame(
                [(q, d, g) for (q, d), g in judged.items()],
                columns=["query_id", "doc_id", "grade"]), "qrels")
        for i, (q, d, judge, grade) in enumerate(flat):
            store.add_expert_label(dataset, q, d, grade, judge, f"t{i}")
        for policy, counted in itertools.product(LabelPolicy, [(), ("llm",), ("clicks",),
                                                               ("clicks", "llm")]):
            got = store.filled_judgments(dataset, policy, label_basis(counted))
            by_hand = filled_by_hand(judged, flat, policy, counted)
            assert dict(zip(zip(got["query_id"], got["doc_id"], strict=True), got["grade"],
                            strict=True)) == by_hand, (policy, counted)
            share = store.expert_share(dataset, policy, label_basis(counted))
            assert (share.filled, share.overridden, share.agreed) == share_by_hand(
                judged, flat, policy, counted, by_hand), (policy, counted)
            assert share.name.startswith("overridden:" if share.overridden else "filled:")


def share_by_hand(judged: dict, flat: list, policy: LabelPolicy, counted: tuple[str, ...],
                  filled: dict) -> tuple[int, int, int]:
    """Gaps filled (no dataset grade, or a negative one the policy replaced), dataset grades
    overridden with a different grade, and replaced with the same one."""
    labelled = {(q, d) for q, d, judge, _ in flat
                if ":" not in judge or judge.split(":")[0] in counted}
    gaps = overridden = agreed = 0
    for pair in labelled:
        own = judged.get(pair)
        if own is None:
            gaps += 1
        elif policy is LabelPolicy.DATASET_FIRST:
            continue  # the dataset's grade stands, -1 too
        elif own < 0:
            gaps += 1
        elif filled[pair] != own:
            overridden += 1
        else:
            agreed += 1
    return gaps, overridden, agreed


def test_current_votes_leave_out_retractions_and_counts_are_per_pair(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    vote(store, dataset, "q1", "A", "B", "A", "left", "ann")
    vote(store, dataset, "q1", "A", "B", "B", "tie", "bob")
    vote(store, dataset, "q2", "A", "B", "A", "right", "ann")
    vote(store, dataset, "q2", "A", "C", "A", "right", "bob")
    assert store.last_vote(dataset, "ann", "A", "B") == (3, "q2")
    store.retract_preference(dataset, 3, "ann", "u1")
    assert store.last_vote(dataset, "ann", "A", "B") == (1, "q1")
    counts = store.vote_counts(dataset, "A", "B", "ann")
    assert counts.to_dict("records") == [{"query_id": "q1", "judges": 2, "mine": True}]
    assert len(store.preferences(dataset)) == 3
    everything = store.preferences(dataset, include_retracted=True)
    assert everything["retracted"].tolist() == [False, False, True, False]


def run_frame(rows: list[tuple[str, str, int]]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])
    return frame.assign(score=-frame["rank"].astype(float), line=range(1, len(frame) + 1))


def test_coverage_and_backfill_count_negative_grades_as_unjudged(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    store.put_run(dataset, "A", run_frame([("q", "x", 1), ("q", "y", 2), ("q", "z", 3)]), "a")
    store.put_run(dataset, "B", run_frame([("q", "y", 1), ("q", "v", 2)]), "b")
    store.put_judgments(dataset, pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["z", "x"],
                                               "grade": [2, -1]}), "qrels")
    store.add_expert_label(dataset, "q", "v", 1, "ann", "t1")
    # A's top 3: x (-1: pooled, not judged), y (none), z (2) -> 1 of 3
    assert store.judged_at_k(dataset, ["A"], 3) == pytest.approx(1 / 3)
    # + B's top 3 slots: y (none), v (expert) -> 2 of 6
    assert store.judged_at_k(dataset, ["A", "B"], 3) == pytest.approx(2 / 6)
    assert store.judged_at_k(dataset, [], 3) == 0.0
    candidates = store.backfill_candidates(dataset, ["A", "B"], 3, "bob")
    assert sorted(zip(candidates["doc_id"], candidates["rank"], candidates["experts"],
                      strict=True)) == [("v", 2, 1), ("x", 1, 0), ("y", 1, 0), ("y", 2, 0)]
    assert "v" not in set(store.backfill_candidates(dataset, ["A", "B"], 3, "ann")["doc_id"])


def test_the_data_version_moves_with_every_kind_of_write(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    seen = {store.data_version(dataset)}
    writes = [
        lambda: store.add_expert_label(dataset, "q", "d", 1, "ann", "t1"),
        lambda: vote(store, dataset, "q", "A", "B", "A", "left", "ann"),
        lambda: store.retract_preference(dataset, 1, "ann", "u1"),
        lambda: store.put_judgments(dataset, pd.DataFrame(
            {"query_id": ["q"], "doc_id": ["d"], "grade": [1]}), "qrels"),
        lambda: store.put_run(dataset, "C", run_frame([("q", "d", 1)]), "c"),
        lambda: store.withdraw_label(dataset, "q", "d", "ann"),
    ]
    for write in writes:
        write()
        version = store.data_version(dataset)
        assert version not in seen
        seen.add(version)


def test_machine_witnesses_count_only_when_asked(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    store.put_run(dataset, "A", run_frame([("q", "x", 1), ("q", "y", 2)]), "a")
    store.add_expert_label(dataset, "q", "x", 3, "llm:m", "t1")
    assert store.judged_at_k(dataset, ["A"], 2) == 0.0
    assert store.judged_at_k(dataset, ["A"], 2, label_basis(["llm"])) == 0.5
    assert store.current_labels(dataset).empty
    assert len(store.backfill_candidates(dataset, ["A"], 2, "ann")) == 2
    labels = store.current_expert_labels(dataset)
    assert labels["witness"].tolist() == ["llm"]
    with pytest.raises(SxsError, match="label basis"):
        store.filled_judgments(dataset, LabelPolicy.MEDIAN, "experts+everyone")


def test_the_data_version_moves_when_a_lower_id_commits_after_a_higher_one(
        postgres_address) -> None:
    """On PostgreSQL ids are taken before commit: a label holding id n may become visible
    after the one holding n + 1.  The version read in between must still move when it lands
    (else a cached decision or backfill order would count that label's pair as unjudged)."""
    import psycopg

    with Store(postgres_address) as store:
        dataset = store.create_dataset("p", ESCI)
        store.add_expert_label(dataset, "q", "d0", 1, "ann", "t0")
    insert = """INSERT INTO expert_labels (dataset_id, query_id, doc_id, grade, judge,
                                           client_token) VALUES (%s, 'q', %s, 2, 'ann', %s)"""
    with psycopg.connect(postgres_address) as first, psycopg.connect(postgres_address) as second:
        first.execute(insert, (dataset.dataset_id, "d1", "t1"))    # takes the lower id
        second.execute(insert, (dataset.dataset_id, "d2", "t2"))
        second.commit()
        with Store(postgres_address) as store:
            between = store.data_version(dataset)
        first.commit()
    with Store(postgres_address) as store:
        assert store.data_version(dataset) != between
