"""A mistyped ``--db`` on a command that reads is one line, and creates nothing; the commands
that create (init, demo, dataset create, imports) still do."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_app.cli import main

READERS = [
    ["evaluate", "-d", "x", "--run", "r"],
    ["compare", "a", "b", "-d", "x"],
    ["export", "trec", "out.qrels", "-d", "x"],
    ["report", "a", "b", "out.html", "-d", "x"],
    ["check", "rules.toml", "-d", "x", "--run", "r"],
    ["dataset", "list"],
    ["serve"],
]


@pytest.mark.parametrize("args", READERS, ids=lambda a: a[0] if a[0] != "dataset" else "list")
def test_a_reading_command_refuses_a_store_that_does_not_exist(
        tmp_path: Path, args: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rules.toml").write_text('[[rule]]\nquery = "q"\nexpect = "contains"\n'
                                         'text = "x"\n')
    typo = tmp_path / "sxs.duckbd"
    result = CliRunner().invoke(main, [*args, "--db", str(typo)])
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"Error: no store at {typo}; create one with sxs init or sxs demo"]
    assert list(tmp_path.glob("sxs.duckbd*")) == []


def test_the_commands_that_create_still_create(tmp_path: Path) -> None:
    db = tmp_path / "new.duckdb"
    runner = CliRunner()
    assert runner.invoke(main, ["dataset", "create", "p", "--scale", "binary",
                                "--db", str(db)]).exit_code == 0
    assert db.exists()
    other = tmp_path / "init.duckdb"
    assert runner.invoke(main, ["init", "--db", str(other)]).exit_code == 0 and other.exists()
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 d1 1\n")
    third = tmp_path / "third.duckdb"
    imported = runner.invoke(main, ["import", "qrels", "-d", "p", str(qrels), "--db", str(third)])
    # an import may create its store, but one that fails (no dataset p there) leaves no empty
    # store behind (issue 24)
    assert imported.exit_code != 0 and "no store at" not in imported.output
    assert not third.exists()
    assert runner.invoke(main, ["dataset", "create", "p", "--scale", "binary",
                                "--db", str(third)]).exit_code == 0
    imported = runner.invoke(main, ["import", "qrels", "-d", "p", str(qrels), "--db", str(third)])
    assert imported.exit_code == 0, imported.output
