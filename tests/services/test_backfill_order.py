"""The backfill queue in the order the round serves (issue 22, item 2;
:mod:`judge_app.services.backfill_order`), on the small store of
:mod:`tests.services.backfill_store`, where the weight order and the decision order differ
from the first pair on.

Under ``decision`` the judge's queue is ``sxs backfill next a b -m ndcg_m@3``'s whole order
(read through the CLI) restricted to the pairs the judge may grade, then the pairs other
judges graded, by weight; under ``weight``, or over runs other than the round's pair, the
weight order (the latter with a note).  The order is cached on the data version: the same
frame while nothing changed, a new one after a grade."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services import backfill_order, judging
from judge_app.services.backfill_order import FALLBACK_NOTE, backfill_served, policy_in_force
from judge_app.services.queue import backfill_policy_of_round
from judge_app.store import Store
from metrics.judging_order import JudgingOrder
from tests.services.backfill_store import DATASET, K, small_store


def cli_order(db: Path, batch: int = 100) -> list[tuple[str, str]]:
    """``sxs backfill next a b -d small -m ndcg_m@3 --format tsv``'s (query_id, doc_id)."""
    out = CliRunner().invoke(main, ["backfill", "next", "a", "b", "-d", DATASET, "-m",
                                    f"ndcg_m@{K}", "--batch", str(batch), "--format", "tsv",
                                    "--db", str(db)])
    assert out.exit_code == 0, out.output
    frame = pd.read_csv(io.StringIO(out.output), sep="\t", dtype=str)
    return list(zip(frame["query_id"], frame["doc_id"], strict=True))


def served(store: Store, judge: str, runs: tuple[str, ...] = ("a", "b")):
    dataset = store.dataset(DATASET)
    policy = policy_in_force(store.current_round(dataset))
    return backfill_served(store, dataset, list(runs), K, judge, "a", "b", policy)


def pairs(frame: pd.DataFrame) -> list[tuple[str, str]]:
    return list(zip(frame["query_id"], frame["doc_id"], strict=True))


def test_the_decision_order_is_the_clis_restricted_to_what_the_judge_may_grade(
        tmp_path: Path) -> None:
    db = small_store(tmp_path / "small.duckdb", judges=("ann", "bob"))
    expected = cli_order(db)
    assert expected[0][1].startswith(("g", "x")) and expected[-1][1].startswith("s")
    with Store(db) as store:
        dataset = store.dataset(DATASET)
        assert store.current_round(dataset).backfill_policy is None  # saved without one
        first = served(store, "ann")
        assert first.policy is JudgingOrder.DECISION and first.note is None
        assert pairs(first.pairs) == expected
        assert first.pairs["experts"].eq(0).all()
        # ann grades the first pair: it is judged now, so it leaves the CLI's order; bob may
        # still grade it (a second opinion, of no value to the decision): last, by weight
        judging.record_grade(store, dataset, "v1", *expected[0], 2, "ann", policy="decision")
    after = cli_order(db)
    assert expected[0] not in after
    with Store(db) as store:
        assert pairs(served(store, "ann").pairs) == after
        bob = served(store, "bob").pairs
        assert pairs(bob) == [*after, expected[0]]
        assert bob["value"].iloc[-1] == 0.0 and bob["experts"].iloc[-1] == 1


def test_weight_is_served_when_the_round_asks_or_the_runs_are_not_the_pair(
        tmp_path: Path) -> None:
    db = small_store(tmp_path / "small.duckdb", backfill_policy="weight")
    with Store(db) as store:
        dataset = store.dataset(DATASET)
        weighted = judging.backfill(store, dataset, ["a", "b"], K, "ann")
        got = served(store, "ann")
        assert got.policy is JudgingOrder.WEIGHT and got.note is None
        assert pairs(got.pairs) == pairs(weighted)
        assert got.pairs["doc_id"].iloc[0].startswith("s")  # first in both runs
        store.set_round(dataset, "a", "b", k=K, overlap=1, blind=False, by="test",
                        backfill_policy="decision")
        other = served(store, "ann", ("a", "b", "c"))
        assert other.policy is JudgingOrder.WEIGHT and other.note == FALLBACK_NOTE
        assert pairs(other.pairs) == pairs(judging.backfill(store, dataset, ["a", "b", "c"],
                                                            K, "ann"))
        assert served(store, "ann", ("a", "c")).policy is JudgingOrder.WEIGHT


def test_the_order_is_cached_until_the_data_version_moves(tmp_path: Path) -> None:
    db = small_store(tmp_path / "small.duckdb")
    with Store(db) as store:
        dataset = store.dataset(DATASET)
        once = backfill_order.decision_order(store, dataset, "a", "b", K)
        assert backfill_order.decision_order(store, dataset, "a", "b", K) is once
        judging.record_grade(store, dataset, "v1", "q0", "g0", 2, "ann", policy="decision")
        again = backfill_order.decision_order(store, dataset, "a", "b", K)
        assert again is not once and ("q0", "g0") not in pairs(again)


def test_the_policy_of_a_round() -> None:
    assert policy_in_force(None) is JudgingOrder.DECISION
    assert backfill_policy_of_round(None) is JudgingOrder.DECISION
    assert backfill_policy_of_round("weight") is JudgingOrder.WEIGHT
    with pytest.raises(Exception, match="unknown backfill order 'pool': one of decision, "
                                        "weight"):
        backfill_policy_of_round("pool")
