"""The judging policy in force is recorded with every label and vote (issue 22, migration
0018), on both backends: a vote and the grades given beside it carry the vote queue's policy
(``difference`` or ``moves_decision``), a backfill grade the backfill order it was served in;
imported labels leave it empty; the votes file carries it (and a file without the column
still imports); the labels' provenance export shows it.  Under ``moves_decision`` the queue
serves first the query whose vote moves the decision, named by Rule.MOVES_DECISION.

The small store of tests/services/test_next_query.py (runs a, b at k = 2): its difference
order is qa, qb, qc, qd, qe."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.io.votes import VOTE_COLUMNS
from judge_app.services import exporting, importing, judging
from judge_app.services.decision import vote_values
from judge_app.services.next_query import next_query
from judge_app.services.queue import (
    BACKFILL_POLICIES,
    JUDGING_POLICIES,
    QueuePolicy,
    Rule,
    deciding_rule,
    ranked_queries,
)
from judge_app.store import Store
from metrics.judging_order import JUDGING_ORDERS
from tests.services.test_next_query import TOPS, build, stored_rule


def test_the_policies_are_one_vocabulary_with_no_name_twice() -> None:
    assert len(set(JUDGING_POLICIES)) == len(JUDGING_POLICIES)
    assert set(JUDGING_POLICIES) == {p.value for p in QueuePolicy} | set(JUDGING_ORDERS)
    assert QueuePolicy.DIFFERENCE.value == "difference"
    assert [o.value for o in BACKFILL_POLICIES] == ["decision", "weight"]
    assert set(BACKFILL_POLICIES) <= set(JUDGING_POLICIES)
    assert Rule.MOVES_DECISION.sentence


def policies(store: Store, table: str) -> list[str | None]:
    return [row[0] for row in store.backend.cursor().execute(
        f"SELECT judging_policy FROM {table} ORDER BY 1").fetchall()]


@pytest.mark.parametrize("policy", list(QueuePolicy))
def test_a_vote_and_the_grades_beside_it_carry_the_queue_policy(store_address, tmp_path,
                                                               policy: QueuePolicy) -> None:
    with Store(store_address) as store:
        dataset, round_ = build(store)
        got = next_query(store, dataset, round_, "ann", policy=policy)
        assert got.view.policy is policy
        assert judging.record_vote(store, dataset, got.view, "left", "ann")
        doc = TOPS[got.view.query_id][0][0]
        assert judging.record_grade(store, dataset, got.view.view_id, got.view.query_id, doc,
                                    2, "ann", policy=got.view.policy)
        assert judging.record_grade(store, dataset, "bf1", "qe", "ye2", 1, "ann",
                                    policy="decision")  # the backfill page's order
        votes = store.preferences(dataset, "a", "b")
        mine = votes[votes["judge"] == "ann"]
        assert mine["judging_policy"].tolist() == [policy.value]
        assert votes[votes["judge"] == "bob"]["judging_policy"].isna().all()  # named views
        history = store.expert_label_history(dataset).set_index("doc_id")
        assert history.loc[doc, "judging_policy"] == policy.value
        assert history.loc["ye2", "judging_policy"] == "decision"

        # the votes file carries it; the provenance export shows it for expert labels
        path = tmp_path / "votes.csv"
        exporting.export_votes(store, dataset, path)
        written = pd.read_csv(path, dtype=str)
        assert "judging_policy" in written.columns
        assert written["judging_policy"].fillna("").tolist().count(policy.value) == 1
        labels = exporting.labels_with_provenance(store, dataset)
        experts = labels[labels["source"] == "expert"].set_index("doc_id")
        assert experts.loc[doc, "judging_policy"] == policy.value
        assert experts.loc["ye2", "judging_policy"] == "decision"

    with Store(tmp_path / "other.duckdb") as other:
        dataset, _ = build(other)
        importing.import_votes(other, dataset, path)
        votes = other.preferences(dataset, "a", "b")
        assert votes[votes["judge"] == "ann"]["judging_policy"].tolist() == [policy.value]
        # a votes file from before the column: its votes import with no policy
        old = tmp_path / "old.csv"
        written.drop(columns=["judging_policy"]).assign(
            view_id=lambda f: "old-" + f["view_id"]).to_csv(old, index=False)
        assert list(VOTE_COLUMNS).index("judging_policy") > 0
        importing.import_votes(other, dataset, old)
        imported = other.preferences(dataset, "a", "b", include_retracted=True)
        assert len(imported) == 2 + 2 * len(written)  # bob's two of build(), both files
        assert imported["judging_policy"].eq(policy.value).sum() == 1


def test_imported_labels_have_no_policy(store_address) -> None:
    with Store(store_address) as store:
        dataset, _ = build(store)
        store.append_expert_labels(dataset, pd.DataFrame({
            "query_id": ["qa", "qa"], "doc_id": ["xa1", "ya1"], "grade": [1, 2],
            "judge": ["ext", "ext"]}), "file")
        assert policies(store, "expert_labels") == [None, None]
        assert store.current_expert_labels(dataset)["judging_policy"].isna().all()


def settle_all_but_qe(store: Store, dataset) -> None:
    """Grade every top-2 doc of qa..qd (A's 0, B's 2): their Δ is known and positive; qe
    stays unjudged, its sign in doubt."""
    rows = [(q, doc, 2 if side else 0) for q in ("qa", "qb", "qc", "qd")
            for side in (0, 1) for doc in TOPS[q][side]]
    store.put_judgments(dataset, pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"]),
                        "settled", on_conflict="last")


def test_moves_decision_serves_first_the_query_whose_vote_moves_the_decision(
        store_address) -> None:
    with Store(store_address) as store:
        dataset, round_ = build(store)
        settle_all_but_qe(store, dataset)
        values = vote_values(store, dataset, "a", "b", 2)
        assert values[["qa", "qb", "qc", "qd"]].eq(0.0).all() and values["qe"] > 0
        before = next_query(store, dataset, round_, "ann")
        assert before.view.query_id != "qe"
        store.release_view(before.view.view_id, "ann")
        got = next_query(store, dataset, round_, "ann", policy=QueuePolicy.MOVES_DECISION)
        assert (got.view.query_id, got.reason) == ("qe", Rule.MOVES_DECISION)
        assert stored_rule(store, got.view.view_id) == Rule.MOVES_DECISION.value
        assert got.plan.queue[0] == "qe" and got.plan.ranked["value"].iloc[0] == values["qe"]
        assert judging.record_vote(store, dataset, got.view, "right", "ann")
        votes = store.preferences(dataset, "a", "b")
        assert votes[votes["judge"] == "ann"]["judging_policy"].tolist() == ["moves_decision"]


def test_the_value_key_comes_before_the_others_and_names_its_rule() -> None:
    rbo = pd.Series({"q1": 0.0, "q2": 0.5, "q3": 0.5})
    weight = pd.Series({"q1": 1.0, "q2": 1.0, "q3": 1.0})
    counts = pd.DataFrame({"query_id": [], "judges": [], "mine": []})
    value = pd.Series({"q2": 0.9, "q3": 0.9})  # q1: none, so 0
    ranked = ranked_queries(rbo, weight, counts, value=value)
    assert ranked.index.tolist() == ["q2", "q3", "q1"]
    assert deciding_rule(ranked, "q2", "q3") is Rule.QUERY_ID
    assert deciding_rule(ranked, "q3", "q1") is Rule.MOVES_DECISION
    plain = ranked_queries(rbo, weight, counts)
    assert plain.index.tolist() == ["q1", "q2", "q3"] and "value" not in plain.columns
