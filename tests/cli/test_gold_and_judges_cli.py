"""``sxs gold``: mark gold items from a file and from the dataset, list them in three formats;
``sxs judges exclude|restore|weight``: decisions recorded, the filled set following them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judge_app.cli import main


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def test_gold_import_from_dataset_and_list(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    assert sxs(db, "dataset", "create", "d", "--scale", "esci").exit_code == 0
    qrels = tmp_path / "d.qrels"
    qrels.write_text("q1 0 a 3\nq1 0 b 0\nq2 0 c 1\n")
    assert sxs(db, "import", "qrels", "-d", "d", str(qrels), "--force").exit_code == 0
    gold = tmp_path / "gold.csv"
    gold.write_text("query_id,doc_id,grade\nq9,z,Irrelevant\n")
    out = sxs(db, "gold", "import", "-d", "d", str(gold))
    assert out.exit_code == 0 and "marked 1 gold graded items of 1 read" in out.output
    out = sxs(db, "gold", "from-dataset", "-d", "d", "--sample", "2", "--seed", "3")
    assert out.exit_code == 0 and "marked 2 gold graded items" in out.output
    listed = json.loads(sxs(db, "gold", "list", "-d", "d", "--format", "json").output)
    assert [(r["query_id"], r["source"]) for r in listed].count(("q9", "file")) == 1
    assert sorted(r["source"] for r in listed) == ["dataset", "dataset", "file"]
    csv = sxs(db, "gold", "list", "-d", "d", "--format", "csv").output
    assert csv.splitlines()[0].startswith("kind,query_id,doc_id,grade")
    bad = sxs(db, "gold", "import", "-d", "d", str(gold), "--format", "trec")
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1


def test_judges_exclude_restore_and_weight_from_the_command_line(tmp_path: Path) -> None:
    """Each decision is one line, recorded; an unknown judge is one line, exit 2; a weight
    moves the filled grade of an item the weighted judge labelled."""
    from judge_app.store import Store

    db = tmp_path / "s.duckdb"
    assert sxs(db, "dataset", "create", "d", "--scale", "esci").exit_code == 0
    labels = tmp_path / "labels.csv"
    labels.write_text("query_id,doc_id,grade,judge\nq1,a,0,ann\nq1,a,3,bob\n")
    assert sxs(db, "import", "labels", "-d", "d", str(labels), "--force").exit_code == 0

    def grade() -> int:
        with Store(db) as store:
            return int(store.filled_judgments(store.dataset("d"))["grade"].iloc[0])

    assert grade() == 0  # the lower median of 0 and 3
    out = sxs(db, "judges", "weight", "bob", "2", "-d", "d", "--reason", "senior")
    assert out.exit_code == 0 and "bob weighs 2 in the consensus of dataset 'd'" in out.output
    assert grade() == 3
    out = sxs(db, "judges", "exclude", "bob", "--reason", "left always")
    assert out.exit_code == 0 and out.output.startswith("excluded bob from every dataset")
    assert grade() == 0
    assert sxs(db, "judges", "restore", "bob").exit_code == 0 and grade() == 3
    bad = sxs(db, "judges", "exclude", "nobody")
    assert bad.exit_code == 2 and "no judge 'nobody'" in bad.output
    assert sxs(db, "judges", "weight", "bob", "-1").exit_code == 2
    with Store(db) as store:
        events = store.standing_events("bob")
    assert events["action"].tolist() == ["weight", "exclude", "restore"]
    assert events["weight"].iloc[0] == 2.0 and events["weight"].iloc[1:].isna().all()
    assert events["reason"].tolist()[:2] == ["senior", "left always"]


def test_judges_disputes_and_adjudicate_from_the_command_line(tmp_path: Path) -> None:
    """The disputed items most disputed first; an adjudication settles one (and marks it gold
    with --gold), after which it is no longer disputed; a grade off the scale is one line."""
    db = tmp_path / "s.duckdb"
    assert sxs(db, "dataset", "create", "d", "--scale", "esci").exit_code == 0
    labels = tmp_path / "labels.csv"
    labels.write_text("query_id,doc_id,grade,judge\nq1,a,0,ann\nq1,a,3,bob\n"
                      "q2,b,1,ann\nq2,b,1,bob\nq2,b,2,cy\n")
    assert sxs(db, "import", "labels", "-d", "d", str(labels), "--force").exit_code == 0
    listed = json.loads(sxs(db, "judges", "disputes", "-d", "d", "--format", "json").output)
    assert [(r["query_id"], r["grades"]) for r in listed] == [("q1", "ann 0, bob 3"),
                                                              ("q2", "ann 1, bob 1, cy 2")]
    out = sxs(db, "judges", "adjudicate", "-d", "d", "--query", "q1", "--doc", "a",
              "--grade", "3", "--gold")
    assert out.exit_code == 0, out.output
    assert out.output.strip() == "settled q1 / a at Exact, and marked it a gold item"
    listed = json.loads(sxs(db, "judges", "disputes", "-d", "d", "--format", "json").output)
    assert [r["query_id"] for r in listed] == ["q2"]
    gold = json.loads(sxs(db, "gold", "list", "-d", "d", "--format", "json").output)
    assert [(r["query_id"], r["grade"], r["source"]) for r in gold] == [("q1", 3,
                                                                        "adjudication")]
    bad = sxs(db, "judges", "adjudicate", "-d", "d", "--query", "q1", "--doc", "a",
              "--grade", "9")
    assert bad.exit_code == 2 and len(bad.output.strip().splitlines()) == 1
