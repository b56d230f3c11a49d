"""``sxs restore --db PATH``: PATH's folder must exist; a mistyped folder is refused in one
line, and nothing is created."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from judge_app.cli import main


def backed_up(tmp_path: Path) -> Path:
    db, out = tmp_path / "m.duckdb", tmp_path / "m.sxs-backup"
    cli = CliRunner()
    assert cli.invoke(main, ["dataset", "create", "m", "--scale", "esci", "--db",
                             str(db)]).exit_code == 0
    assert cli.invoke(main, ["backup", str(out), "--db", str(db)]).exit_code == 0
    return out


def test_restore_refuses_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    backup = backed_up(tmp_path)
    target = tmp_path / "typo" / "deeper" / "new.duckdb"
    result = CliRunner().invoke(main, ["restore", str(backup), "--db", str(target)])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (f"Error: no folder {target.parent} for new.duckdb: "
                                     "restore creates no folders; create it first or pick "
                                     "another --db")
    assert not (tmp_path / "typo").exists()


def test_restore_refuses_a_file_as_the_folder(tmp_path: Path) -> None:
    backup = backed_up(tmp_path)
    (tmp_path / "afile").write_text("x")
    result = CliRunner().invoke(main, ["restore", str(backup), "--db",
                                       str(tmp_path / "afile" / "new.duckdb")])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == (f"Error: {tmp_path / 'afile'} is not a folder: pick "
                                     "another --db")


def test_restore_into_an_existing_folder_works(tmp_path: Path) -> None:
    backup = backed_up(tmp_path)
    (tmp_path / "here").mkdir()
    target = tmp_path / "here" / "new.duckdb"
    result = CliRunner().invoke(main, ["restore", str(backup), "--db", str(target)])
    assert result.exit_code == 0, result.output
    assert target.is_file()
