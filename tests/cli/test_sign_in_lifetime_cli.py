"""Issue 25 at the command line: ``sxs invite --session-idle`` sets the idle expiry of every
session (alone, or while inviting), refuses a duration it cannot read in one line, and
``sxs invite NAME`` again issues a new link once the first was used (a link per device)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.store import Store
from judge_app.store.judges import LinkUsed


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "judges.duckdb")
    assert CliRunner().invoke(main, ["init", "--db", path]).exit_code == 0
    return path


def sxs(*args: str):
    return CliRunner().invoke(main, list(args))


def link_of(result) -> str:
    return result.output.strip().splitlines()[-1].split("token=")[1]


def test_session_idle_is_set_alone_or_while_inviting(db: str) -> None:
    with Store(db) as store:
        assert store.session_idle_seconds() == 3 * 86400
    result = sxs("invite", "--session-idle", "2d", "--db", db)
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "sessions now end after 2 days without use"
    result = sxs("invite", "alice", "--session-idle", "12h", "--db", db)
    assert result.exit_code == 0, result.output
    assert "12 hours" in result.output and "token=" in result.output
    with Store(db) as store:
        assert store.session_idle_seconds() == 12 * 3600


@pytest.mark.parametrize("typed, says", [("2 weeks", "not a duration"),
                                         ("30s", "shorter than a minute"),
                                         ("-1d", "not a duration"), ("", "not a duration")])
def test_a_duration_it_cannot_read_is_refused_in_one_line(db: str, typed: str,
                                                          says: str) -> None:
    result = sxs("invite", "--session-idle", typed, "--db", db)
    assert result.exit_code == 2
    (line,) = result.output.strip().splitlines()
    assert line.startswith("Error: session idle:") and says in line
    with Store(db) as store:
        assert store.session_idle_seconds() == 3 * 86400  # nothing written


def test_inviting_again_issues_a_link_for_the_next_device(db: str) -> None:
    laptop_link = link_of(sxs("invite", "alice", "--db", db))
    with Store(db) as store:
        _judge, laptop = store.sign_in(laptop_link)
        with pytest.raises(LinkUsed):
            store.sign_in(laptop_link)
    phone_link = link_of(sxs("invite", "alice", "--db", db))
    assert phone_link != laptop_link
    with Store(db) as store:
        _judge, phone = store.sign_in(phone_link)
        assert store.session_judge(laptop).name == store.session_judge(phone).name == "alice"
