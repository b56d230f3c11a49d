"""evaluate and compare say what their figures stand on: the label set (and its basis), how
many queries were averaged and dropped and why, and each measure's k, gain and discount."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import click
import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.store import Store


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    assert CliRunner().invoke(main, ["demo", "--no-serve", "--db", str(db)]).exit_code == 0
    return db


@pytest.fixture()
def db(demo_db: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "copy.duckdb"
    shutil.copy(demo_db, copy)
    return copy


def sxs(db: Path, *args: str) -> click.testing.Result:
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result


def add_expert_labels(db: Path) -> None:
    """One expert grades an unlabelled top doc of query 1 and overrides a judged one."""
    with Store(db) as store:
        cranfield = store.dataset("cranfield")
        top = store.run(cranfield, "bm25")
        judged = store.judgments(cranfield)
        q1 = top[top["query_id"] == "1"].sort_values("rank")
        known = set(judged.loc[judged["query_id"] == "1", "doc_id"])
        unlabelled = next(d for d in q1["doc_id"] if d not in known)
        store.add_expert_label(cranfield, "1", unlabelled, 4, "alice", "t1")


def test_evaluate_says_what_it_stands_on(db: Path) -> None:
    out = sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25", "-m", "ndcg@10 ndcg_m@5").stdout
    assert "labels: dataset" in out
    assert "225 queries judged" in out
    assert "bm25: 225 averaged, 0 dropped" in out
    assert "ndcg@10: k=10, gain linear, discount log2" in out
    assert "ndcg_m@5: k=5, gain linear, discount log2" in out
    assert "no labels from experts" in out  # why there is no filled column


def test_machine_output_carries_the_labels_column(db: Path) -> None:
    result = sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25", "--format", "csv")
    frame = pd.read_csv(io.StringIO(result.stdout))
    assert list(frame.columns[:2]) == ["run", "labels"]
    assert frame["labels"].tolist() == ["dataset"]
    records = json.loads(sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25",
                             "--format", "json").stdout)
    assert records[0]["labels"] == "dataset" and records[0]["run"] == "bm25"


def test_with_expert_labels_both_figures_are_shown_each_labelled(db: Path, tmp_path: Path
                                                                  ) -> None:
    add_expert_labels(db)
    out = sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25", "-m", "ndcg@10").stdout
    assert "labels: dataset" in out and "labels: filled:experts" in out
    header = out.splitlines()[out.splitlines().index("") + 1]
    assert header.split() == ["ndcg@10", "dataset", "ndcg@10", "filled:experts"]
    csv = pd.read_csv(io.StringIO(sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25",
                                      "-m", "ndcg@10", "--format", "csv").stdout))
    assert csv["labels"].tolist() == ["dataset", "filled:experts"]
    assert csv.loc[1, "ndcg@10"] != csv.loc[0, "ndcg@10"]
    only = pd.read_csv(io.StringIO(sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25",
                                       "--filled", "--format", "csv").stdout))
    assert only["labels"].tolist() == ["filled:experts"]
    own = pd.read_csv(io.StringIO(sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25",
                                      "--dataset-labels-only", "--format", "csv").stdout))
    assert own["labels"].tolist() == ["dataset"]
    table = tmp_path / "per_query.csv"
    sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25", "-o", str(table))
    per_query = pd.read_csv(table)
    assert per_query.groupby("labels").size().to_dict() == {"dataset": 225,
                                                             "filled:experts": 225}
    compared = sxs(db, "compare", "title", "bm25", "-d", "cranfield", "--permutations", "50",
                   "--format", "csv")
    summary = pd.read_csv(io.StringIO(compared.stdout))
    assert list(summary.columns[:2]) == ["labels", "measure"]
    assert set(summary["labels"]) == {"dataset", "filled:experts"}
    text = sxs(db, "compare", "title", "bm25", "-d", "cranfield", "--permutations", "50").stdout
    assert "labels: filled:experts" in text and "title: 225 averaged" in text
    deltas = tmp_path / "deltas.csv"
    sxs(db, "compare", "title", "bm25", "-d", "cranfield", "--permutations", "50",
        "-o", str(deltas))
    assert set(pd.read_csv(deltas)["labels"]) == {"dataset", "filled:experts"}


def test_both_flags_at_once_are_refused(db: Path) -> None:
    result = CliRunner().invoke(main, ["evaluate", "-d", "cranfield", "--run", "bm25",
                                       "--filled", "--dataset-labels-only", "--db", str(db)])
    assert result.exit_code == 2 and "Traceback" not in result.output


def test_a_run_missing_judged_queries_is_reported_zero_or_dropped(db: Path) -> None:
    with Store(db) as store:
        cranfield = store.dataset("cranfield")
        run = store.run(cranfield, "bm25")
        part = run[run["query_id"].isin(["1", "2", "4"])].copy()
        part["line"] = range(1, len(part) + 1)
        if "score" not in part.columns:
            part["score"] = -part["rank"].astype(float)
        store.put_run(cranfield, "part", part, "test", trust_rank=True)
    zero = sxs(db, "evaluate", "-d", "cranfield", "--run", "part", "-m", "ndcg@10")
    assert "part: 225 averaged, 222 not in the run scored 0 (--missing-queries zero)" \
        in zero.stdout
    dropped = sxs(db, "evaluate", "-d", "cranfield", "--run", "part", "-m", "ndcg@10",
                  "--missing-queries", "drop")
    assert "part: 3 averaged, 222 dropped (not in the run)" in dropped.stdout
    means = pd.read_csv(io.StringIO(sxs(db, "evaluate", "-d", "cranfield", "--run", "part",
                                        "-m", "ndcg@10", "--format", "csv").stdout))
    dropped_means = pd.read_csv(io.StringIO(sxs(
        db, "evaluate", "-d", "cranfield", "--run", "part", "-m", "ndcg@10", "--format", "csv",
        "--missing-queries", "drop").stdout))
    assert means.loc[0, "ndcg@10"] * 225 == pytest.approx(dropped_means.loc[0, "ndcg@10"] * 3)


def test_full_depth_ndcg_from_the_cli_equals_trec_eval(db: Path) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    result = sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25", "-m", "ndcg ndcg@10",
                 "--per-query", "--format", "csv")
    assert "ndcg: full depth" in sxs(db, "evaluate", "-d", "cranfield", "--run", "bm25",
                                     "-m", "ndcg").stdout
    ours = pd.read_csv(io.StringIO(result.stdout), dtype={"query_id": str}
                       ).set_index("query_id")["ndcg"]
    with Store(db) as store:
        cranfield = store.dataset("cranfield")
        qrels = store.judgments(cranfield)
        run = store.run(cranfield, "bm25")
    q: dict[str, dict[str, int]] = {}
    for row in qrels.itertuples():
        q.setdefault(str(row.query_id), {})[str(row.doc_id)] = int(row.grade)
    r: dict[str, dict[str, float]] = {}
    for row in run.itertuples():  # rank order as scores: rank 1 highest
        r.setdefault(str(row.query_id), {})[str(row.doc_id)] = -float(row.rank)
    oracle = pytrec_eval.RelevanceEvaluator(q, {"ndcg"}).evaluate(r)
    assert len(oracle) > 100
    for query, values in oracle.items():
        assert ours[query] == pytest.approx(values["ndcg"], abs=1e-12), query
