"""Importing the labels of a store's own export back into the same store changes nothing:
no expert label, dataset grade or history row is doubled, and the summary says so."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.store import Store

TABLES = ("judgments", "judgment_history", "expert_labels")


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def counts(db: Path) -> dict[str, int]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {t: con.execute(f"select count(*) from {t}").fetchall()[0][0] for t in TABLES}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    """Four dataset grades (one replaced, so one history row) and three expert labels, one
    judge's twice over (the later one current)."""
    db = tmp_path / "s.duckdb"
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 12 1 3 r\n1 Q0 35 2 2 r\n2 Q0 7 1 1 r\n2 Q0 8 2 1 r\n")
    qrels = tmp_path / "a.qrels"
    qrels.write_text("1 0 12 1\n1 0 35 2\n2 0 7 0\n2 0 8 1\n")
    fix = tmp_path / "fix.qrels"
    fix.write_text("1 0 12 2\n")
    assert sxs(db, "dataset", "create", "g", "--scale", "0=a,1=b,2=c").exit_code == 0
    assert sxs(db, "import", "run", "-d", "g", str(run), "--name", "r").exit_code == 0
    assert sxs(db, "import", "qrels", "-d", "g", str(qrels)).exit_code == 0
    assert sxs(db, "import", "qrels", "-d", "g", str(fix), "--on-conflict", "last"
               ).exit_code == 0
    with Store(db) as store:
        dataset = store.dataset("g")
        store.add_expert_label(dataset, "1", "35", 2, "ann", "t1", note="first look")
        store.add_expert_label(dataset, "1", "35", 1, "ann", "t2", note="on reflection")
        store.add_expert_label(dataset, "2", "7", 0, "bob", "t3")
    return db


@pytest.mark.parametrize("form", ["csv", "parquet", "wide"])
def test_reimporting_the_own_export_adds_nothing_and_says_so(db: Path, tmp_path: Path,
                                                             form: str) -> None:
    before = counts(db)
    assert before == {"judgments": 4, "judgment_history": 1, "expert_labels": 3}
    out = tmp_path / f"export.{'parquet' if form == 'parquet' else 'csv'}"
    assert sxs(db, "export", form, str(out), "-d", "g").exit_code == 0
    for _ in range(2):
        result = sxs(db, "import", "labels", "-d", "g", str(out))
        assert result.exit_code == 0, result.output
        assert counts(db) == before
        assert "imported 0 expert labels" in result.output, result.output
        assert "nothing new" in result.output, result.output


def test_a_label_that_differs_is_still_added(db: Path, tmp_path: Path) -> None:
    out = tmp_path / "export.csv"
    assert sxs(db, "export", "csv", str(out), "-d", "g").exit_code == 0
    text = out.read_text().replace("2,7,0,expert,bob", "2,7,1,expert,bob")
    changed = tmp_path / "changed.csv"
    changed.write_text(text)
    result = sxs(db, "import", "labels", "-d", "g", str(changed))
    assert result.exit_code == 0, result.output
    assert counts(db)["expert_labels"] == 4
    assert "imported 1 expert labels" in result.output
