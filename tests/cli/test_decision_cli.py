"""``sxs decide``, ``sxs backfill next`` and ``sxs simulate judging`` (issue 22), through the
command line.

Small stores where the answer is known (tests/services/decision_stores.py): 30 queries of 10
docs each, run B is run A with its first two docs swapped; with no label the verdict cannot be
in (exit 3), and once every pool pair is judged with B's first doc the one good doc of each
query, B is better on every query (exit 0).  The demo's Cranfield judgments are the oracle
of the replay.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.cli.decision import UNDECIDED_EXIT
from judge_app.services.demo import build_demo_store, demo_data_dir
from judge_app.store import Store
from metrics.judging_order import JudgingOrder, judging_order
from metrics.scale import CRANFIELD
from tests.services.decision_stores import QUERIES, judge_everything, runs, toy_store


def sxs(db: Path, *args: str) -> click.testing.Result:
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def test_decide_exits_3_while_undecided_and_0_once_decided(tmp_path: Path) -> None:
    db = toy_store(tmp_path / "toy.duckdb")
    fresh = sxs(db, "decide", "a", "b", "-d", "toy")
    print(fresh.output)
    assert fresh.exit_code == UNDECIDED_EXIT == 3, fresh.output
    assert "ndcg_m@10" in fresh.output and "undecided" in fresh.output
    assert "0 of 300" in fresh.output  # the judgments it stands on: none of the pool
    assert "more labels would decide it" in fresh.output
    assert "expert votes: none for B or A yet" in fresh.output

    judge_everything(db)
    decided = sxs(db, "decide", "a", "b", "-d", "toy", "-m", "ndcg_m@10 ndcg@10")
    print(decided.output)
    assert decided.exit_code == 0, decided.output
    assert decided.output.count("decided: B better") >= 2  # the table and the explanation
    assert "300 of 300" in decided.output
    swapped = sxs(db, "decide", "b", "a", "-d", "toy", "--format", "json")
    assert swapped.exit_code == 0
    found = json.loads(swapped.output)
    (first,) = found["labels"]["decisions"]
    assert found["decided"] is True and first["verdict"] == "a_better"
    assert first["judged"] == 300 and first["unjudged"] == 0
    assert first["lower"] == pytest.approx(first["upper"])  # no label uncertainty left
    assert found["votes"]["verdict"] == "undecided" and found["votes"]["wins_b"] == 0
    assert found["votes"]["rate"] is None  # no vote: strict JSON, no NaN


def test_the_first_measure_sets_the_exit_code(tmp_path: Path) -> None:
    """The top two docs of 5 queries judged: NDCG-m@1 is decided (B better: its pool is
    judged where B differs), NDCG-m@10 is not (the other queries' swaps are open); the exit
    code follows the first measure asked for."""
    db = toy_store(tmp_path / "toy.duckdb")
    with Store(db) as store:
        store.put_judgments(store.dataset("toy"), pd.DataFrame(
            [(f"q{i}", f"d{i}_{j}", 4 if j == 1 else 0) for i in range(5) for j in range(2)],
            columns=["query_id", "doc_id", "grade"]), "test")
    first_decided = sxs(db, "decide", "a", "b", "-d", "toy", "-m", "ndcg_m@1", "-m",
                        "ndcg_m@10", "--format", "json")
    found = json.loads(first_decided.output)
    assert [(d["measure"], d["verdict"]) for d in found["labels"]["decisions"]] == [
        ("ndcg_m@1", "b_better"), ("ndcg_m@10", "undecided")]
    assert first_decided.exit_code == 0 and found["decided"] is True
    first_open = sxs(db, "decide", "a", "b", "-d", "toy", "-m", "ndcg_m@10 ndcg_m@1")
    assert first_open.exit_code == 3, first_open.output


def test_backfill_next_serves_the_metrics_order(tmp_path: Path) -> None:
    db = toy_store(tmp_path / "toy.duckdb", guarded_doc=True)
    with Store(db) as store:  # a few labels in: judged pairs are not served again
        store.put_judgments(store.dataset("toy"), pd.DataFrame(
            {"query_id": ["q1", "q1", "q2"], "doc_id": ["d1_0", "d1_1", "d2_0"],
             "grade": [0, 4, 1]}), "test")
        labels = store.judgments(store.dataset("toy"))[["query_id", "doc_id", "grade"]]
    run_a, run_b = runs(guarded_doc=True)
    for order in ("decision", "weight", "pool", "random"):
        result = sxs(db, "backfill", "next", "a", "b", "-d", "toy", "--batch", "7",
                     "--order", order)
        assert result.exit_code == 0, result.output
        served = pd.read_csv(io.StringIO(result.output), sep="\t", dtype=str)
        assert len(served) == 7
        expected = judging_order(run_a, run_b, labels, "ndcg_m@10", max_grade=CRANFIELD,
                                 order=order).head(7)
        assert list(zip(served["query_id"], served["doc_id"], strict=True)) == list(
            zip(expected["query_id"], expected["doc_id"], strict=True)), order
        assert not {("q1", "d1_0"), ("q1", "d1_1"), ("q2", "d2_0")} & set(
            zip(served["query_id"], served["doc_id"], strict=True))
    as_json = sxs(db, "backfill", "next", "a", "b", "-d", "toy", "--batch", "3",
                  "--format", "json")
    records = json.loads(as_json.output)
    assert len(records) == 3
    assert set(records[0]) == {"query_id", "doc_id", "rank_a", "rank_b", "weight", "value"}
    # csv (and tsv) guard a cell a spreadsheet would run: q0's '=cmd' at rank 10 in both
    every = sxs(db, "backfill", "next", "a", "b", "-d", "toy", "--batch", "300",
                "--order", "pool", "--format", "csv")
    assert every.exit_code == 0
    assert "'=cmd" in every.output and ",=cmd" not in every.output
    assert len(pd.read_csv(io.StringIO(every.output))) == 300 - 3


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Cranfield demo store, built once (the tests here only read it)."""
    db = tmp_path_factory.mktemp("decide") / "demo.duckdb"
    with Store(db, create=True) as store:
        build_demo_store(store)
    return db


def test_simulate_judging_on_the_demo_decides_with_a_fifth_of_the_pool(demo_db: Path) -> None:
    """The issue's target through the command line: Cranfield title (A) vs bm25 (B), its
    judgments as the oracle, no label to start from.  (Ten judgments between two decisions
    keep the weight order's replay to seconds; the decision order is read to the batch.)"""
    db = demo_db
    with Store(db) as store:
        before = store.table_counts()
    oracle = str(demo_data_dir() / "qrels.txt")
    result = sxs(db, "simulate", "judging", "title", "bm25", "-d", "cranfield", "--oracle",
                 oracle, "--order", "decision", "--order", "weight", "--batch", "10",
                 "--format", "json")
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    print("\n" + pd.DataFrame(rows)[["order", "judgments", "pool", "share", "verdict",
                                     "reference", "agrees"]].to_string(index=False))
    found = {r["order"]: r for r in rows}
    assert set(found) == {"decision", "weight"}
    decision = found["decision"]
    assert decision["decided"] and decision["share"] <= 0.20
    assert decision["agrees"] and decision["verdict"] == decision["reference"] == "b_better"
    assert found["weight"]["judgments"] > decision["judgments"]
    with Store(db) as store:
        assert store.table_counts() == before  # the replay never writes the store


@pytest.mark.parametrize("args, message", [
    (["decide", "title", "ghost", "-d", "cranfield"], "no run 'ghost'"),
    (["decide", "title", "bm25", "-d", "cranfield", "-m", "mrr@10"], "unknown measure 'mrr'"),
    (["decide", "title", "bm25", "-d", "cranfield", "-m", "p@10"], "a decision is taken on"),
    (["decide", "title", "bm25", "-d", "cranfield", "--confidence", "1.5"], "confidence"),
    (["decide", "title", "bm25", "-d", "cranfield", "--confidence", "0"], "confidence"),
    (["decide", "title", "title", "-d", "cranfield"], "two different runs"),
    (["backfill", "next", "ghost", "bm25", "-d", "cranfield"], "no run 'ghost'"),
    (["backfill", "next", "title", "bm25", "-d", "cranfield", "-m", "ndcg_x@10"],
     "unknown measure"),
    (["backfill", "next", "title", "bm25", "-d", "cranfield", "--order", "best"],
     "judging order must be one of decision, weight, pool, random"),
    (["simulate", "judging", "title", "bm25", "-d", "cranfield", "--oracle", "ORACLE",
      "--order", "decision", "--order", "worst"], "judging order must be one of"),
    (["simulate", "judging", "title", "bm25", "-d", "cranfield", "--oracle", "ORACLE",
      "--start-from", "labels"], "start-from must be one of none, dataset"),
    (["simulate", "judging", "title", "ghost", "-d", "cranfield", "--oracle", "ORACLE"],
     "no run 'ghost'"),
    (["simulate", "judging", "title", "bm25", "-d", "cranfield", "--oracle", "ORACLE",
      "--confidence", "-1"], "confidence"),
    (["simulate", "judging", "title", "bm25", "-d", "cranfield", "--oracle", "ORACLE",
      "-m", "ndcg"], "a decision is taken on"),
    (["simulate", "judging", "title", "bm25", "-d", "cranfield", "--oracle", "MISSING"],
     "MISSING"),
])
def test_bad_input_is_one_line_and_exit_2(demo_db: Path, tmp_path: Path, args: list[str],
                                          message: str) -> None:
    db = demo_db
    oracle = str(demo_data_dir() / "qrels.txt")
    args = [oracle if a == "ORACLE" else str(tmp_path / "missing.qrels") if a == "MISSING"
            else a for a in args]
    message = str(tmp_path / "missing.qrels") if message == "MISSING" else message
    result = sxs(db, *args)
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_simulate_judging_prints_a_row_per_order(tmp_path: Path) -> None:
    """The table: one row per order asked for, each with its judgments, share and verdicts
    (the toy store, its fully judged grades as the oracle, 30 judgments per decision)."""
    db = toy_store(tmp_path / "toy.duckdb")
    oracle = tmp_path / "oracle.qrels"
    oracle.write_text("".join(f"q{i} 0 d{i}_1 4\n" for i in range(QUERIES)))
    result = sxs(db, "simulate", "judging", "a", "b", "-d", "toy", "--oracle", str(oracle),
                 "--order", "pool", "--order", "decision", "--batch", "30")
    print(result.output)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert lines[0].startswith("ndcg_m@10 at confidence 0.95: depth-k pool of 300 pairs")
    assert [line.split()[0] for line in lines[2:]] == ["pool", "decision"]
    assert all("decided: B better" in line and line.endswith("yes") for line in lines[2:])


@pytest.mark.parametrize("command", [["backfill", "next"], ["simulate", "judging"]])
def test_the_help_names_every_judging_order(command: list[str]) -> None:
    """The order names are checked by metrics.judging_order (click does not list them, to keep
    numpy out of the start-up); the help names each of them."""
    shown = CliRunner().invoke(main, [*command, "--help"]).output
    for order in JudgingOrder:
        assert order.value in shown
