"""The sxs command line: every command documented with an example, errors as one line."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services import analysis


def all_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        path = (*prefix, name)
        if isinstance(command, click.Group):
            found += all_commands(command, path)
        else:
            found.append(path)
    return found


COMMANDS = all_commands(main)


def test_the_expected_commands_exist() -> None:
    names = {" ".join(c) for c in COMMANDS}
    assert {"init", "import qrels", "import run", "import docs", "import judgments",
            "import quepid", "import queries", "evaluate", "compare", "export", "demo",
            "dataset create", "measures", "invite"} <= names


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help_with_an_example(command: tuple[str, ...]) -> None:
    result = CliRunner().invoke(main, [*command, "--help"])
    assert result.exit_code == 0, result.output
    assert "Example: sxs " in result.output


def test_a_session_from_the_command_line(tmp_path: Path) -> None:
    db = str(tmp_path / "cli.duckdb")
    runner = CliRunner()

    def sxs(*args: str) -> click.testing.Result:
        return runner.invoke(main, [*args, "--db", db])

    assert sxs("demo", "--no-serve").exit_code == 0
    evaluated = sxs("evaluate", "-d", "cranfield", "--run", "bm25", "--format", "csv")
    assert evaluated.exit_code == 0 and evaluated.stdout.startswith("run,labels,ndcg@10")
    compared = sxs("compare", "title", "bm25", "-d", "cranfield", "--permutations", "200",
                   "--format", "json")
    assert compared.exit_code == 0 and '"rbo@10"' in compared.output
    table = tmp_path / "bm25.parquet"
    assert sxs("evaluate", "-d", "cranfield", "--run", "bm25", "-o", str(table)).exit_code == 0
    import pandas as pd
    assert len(pd.read_parquet(table)) == 225
    deltas = tmp_path / "deltas.csv"
    assert sxs("compare", "title", "bm25", "-d", "cranfield", "--permutations", "100",
               "-o", str(deltas)).exit_code == 0
    frame = pd.read_csv(deltas)
    assert {"query_id", "measure", "a", "b", "delta", "rbo@10:ext"} <= set(frame.columns)
    out = tmp_path / "labels.qrels"
    exported = sxs("export", "trec", str(out), "-d", "cranfield", "--filled")
    assert exported.exit_code == 0 and out.read_text().count("\n") == 1612


@pytest.mark.parametrize("args, message", [
    (["import", "qrels", "-d", "nope", "x.txt"], "no dataset 'nope'"),
    (["evaluate", "-d", "cranfield", "--run", "bm25", "-m", "mrr@10"], "unknown measure 'mrr'"),
    (["dataset", "create", "x", "--scale", "zero=1"], "cannot read scale"),
    (["compare", "bm25", "ghost", "-d", "cranfield"], "no run 'ghost'"),
])
def test_errors_are_one_line_without_a_traceback(tmp_path: Path, args: list[str],
                                                 message: str) -> None:
    db = str(tmp_path / "e.duckdb")
    runner = CliRunner()
    runner.invoke(main, ["demo", "--no-serve", "--db", db])
    result = runner.invoke(main, [*args, "--db", db])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_a_bad_file_names_its_line(tmp_path: Path) -> None:
    db = str(tmp_path / "b.duckdb")
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 184 3\n1 0 29 x\n")
    runner = CliRunner()
    runner.invoke(main, ["demo", "--no-serve", "--db", db])
    result = runner.invoke(main, ["import", "qrels", "-d", "cranfield", str(bad), "--db", db])
    assert result.exit_code == 2
    assert result.output.strip() == (f"Error: {bad}, line 2, field grade: grade 'x' is not a "
                                      "whole number")


def test_a_bug_is_not_dressed_up_as_a_user_error(tmp_path: Path, monkeypatch) -> None:
    """Only SxsError becomes one line: a ValueError from a bug keeps its traceback."""
    db = str(tmp_path / "g.duckdb")
    runner = CliRunner()
    runner.invoke(main, ["demo", "--no-serve", "--db", db])

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("a bug, not the user's fault")

    monkeypatch.setattr(analysis, "evaluate_run", broken)
    result = runner.invoke(main, ["evaluate", "-d", "cranfield", "--run", "bm25", "--db", db])
    assert result.exit_code == 1
    assert isinstance(result.exception, ValueError)


def test_invite_list_and_revoke(tmp_path: Path) -> None:
    from judge_app.store import Store

    db = str(tmp_path / "judges.duckdb")
    runner = CliRunner()
    assert runner.invoke(main, ["init", "--db", db]).exit_code == 0  # invites need a store
    invited = runner.invoke(main, ["invite", "alice", "--admin", "--port", "8600", "--db", db])
    assert invited.exit_code == 0, invited.output
    link = invited.output.strip().splitlines()[-1]
    assert link.startswith("http://127.0.0.1:8600/?token=")
    token = link.split("token=")[1]
    assert len(token) * 6 >= 128
    listed = runner.invoke(main, ["invite", "--list", "--db", db])
    assert listed.output.split() == ["alice", "admin", "verified", "invite", "active"]
    with Store(db) as store:
        assert store.sign_in(token)[0].admin
    assert token not in (tmp_path / "judges.duckdb").read_bytes().decode("latin-1")
    assert runner.invoke(main, ["invite", "bob", "--admin", "--db", db]).exit_code == 0
    assert runner.invoke(main, ["invite", "--revoke", "alice", "--db", db]).exit_code == 0
    assert "revoked" in runner.invoke(main, ["invite", "--list", "--db", db]).output
    refused = runner.invoke(main, ["invite", "llm:gpt", "--db", db])
    assert refused.exit_code == 2 and "may not start with 'llm:'" in refused.output
    assert runner.invoke(main, ["invite", "--db", db]).exit_code == 2


def test_the_command_line_cannot_revoke_the_last_admin(tmp_path: Path) -> None:
    """``sxs invite --revoke`` keeps the Judges page's rule (services/judges.py): it used to
    call the store directly, and revoking the only admin left nobody to manage the judges in
    the app."""
    from judge_app.store import Store

    db = str(tmp_path / "judges.duckdb")
    runner = CliRunner()
    assert runner.invoke(main, ["init", "--db", db]).exit_code == 0
    for args in (["alice", "--admin"], ["carol"]):
        assert runner.invoke(main, ["invite", *args, "--db", db]).exit_code == 0
    refused = runner.invoke(main, ["invite", "--revoke", "alice", "--db", db])
    assert refused.exit_code == 2, refused.output
    assert refused.output.strip() == ("Error: alice is the last admin: invite another admin "
                                      "first (sxs invite NAME --admin), then revoke them")
    with Store(db) as store:
        assert store.judges()["revoked_at"].isna().all()
    assert runner.invoke(main, ["invite", "--revoke", "carol", "--db", db]).exit_code == 0
    assert runner.invoke(main, ["invite", "bob", "--admin", "--db", db]).exit_code == 0
    assert runner.invoke(main, ["invite", "--revoke", "alice", "--db", db]).exit_code == 0
    listed = runner.invoke(main, ["invite", "--list", "--db", db]).output.splitlines()
    assert [line.split("\t")[::4] for line in listed] == [["alice", "revoked"],
                                                          ["bob", "active"],
                                                          ["carol", "revoked"]]


@pytest.mark.parametrize("address", ["md:foo", "motherduck:foo", "s3://bucket/s.duckdb",
                                     "https://example.org/s.duckdb"])
def test_a_remote_duckdb_address_is_refused_in_one_line(address: str, tmp_path: Path,
                                                        monkeypatch) -> None:
    """DuckDB would fetch an extension for these (no network at run time): refused, naming
    the addresses sxs knows."""
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["init", "--db", address])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1
    assert "not a store address sxs knows" in result.output
    assert list(tmp_path.iterdir()) == []
