"""``sxs gold``: mark gold items from a file and from the dataset, list them in three formats."""

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
