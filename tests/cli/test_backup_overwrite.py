"""Review finding: `sxs backup OUT` silently replaces whatever OUT is.

It refuses only the store it backs up.  Any other existing file is replaced without a word:

    sxs backup notes.txt --db m.duckdb        -> "backed up notes.txt", the text is gone
    sxs backup other.duckdb --db m.duckdb     -> another store's datasets are gone

(`sxs restore` refuses an existing --db; backup should at least refuse a file that is not a
previous sxs backup — replacing last night's backup is the intended case.)
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from click.testing import CliRunner

from judge_app.cli import main


def store_with(tmp_path: Path, name: str) -> Path:
    db = tmp_path / f"{name}.duckdb"
    assert CliRunner().invoke(main, ["dataset", "create", name, "--scale", "esci",
                                     "--db", str(db)]).exit_code == 0
    return db


def test_backup_does_not_replace_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    db = store_with(tmp_path, "m")
    notes = tmp_path / "notes.txt"
    notes.write_text("important notes\n")
    result = CliRunner().invoke(main, ["backup", str(notes), "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert notes.read_text() == "important notes\n"


def test_backup_does_not_replace_another_store(tmp_path: Path) -> None:
    db = store_with(tmp_path, "m")
    other = store_with(tmp_path, "other")
    result = CliRunner().invoke(main, ["backup", str(other), "--db", str(db)])
    assert result.exit_code == 2, result.output
    with duckdb.connect(str(other), read_only=True) as con:
        assert con.execute("select name from datasets").fetchall() == [("other",)]


def test_backup_replaces_an_earlier_backup_but_not_a_store_restored_from_one(
        tmp_path: Path) -> None:
    db = store_with(tmp_path, "m")
    out = tmp_path / "nightly.backup"
    for _ in range(2):  # the second replaces the first
        result = CliRunner().invoke(main, ["backup", str(out), "--db", str(db)])
        assert result.exit_code == 0, result.output
    restored = tmp_path / "restored.duckdb"
    result = CliRunner().invoke(main, ["restore", str(out), "--db", str(restored)])
    assert result.exit_code == 0, result.output
    before = restored.read_bytes()
    again = CliRunner().invoke(main, ["backup", str(restored), "--db", str(db)])
    assert again.exit_code == 2 and "not an sxs backup" in again.output, again.output
    assert len(again.output.strip().splitlines()) == 1
    assert restored.read_bytes() == before
