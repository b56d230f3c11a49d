"""Names people see (issue 25): a judge's name holding a character that hides or reverses text
(U+202E, the right-to-left override; zero-width ones) is refused in one line on the command
line, and a run's name is held to an id's length (1,000 bytes of UTF-8) and the same rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.io.display_text import neutralized
from judge_app.io.ids import MAX_ID_BYTES
from judge_app.services.demo import build_demo_store
from judge_app.store import Store


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


@pytest.fixture
def demo(tmp_path: Path) -> Path:
    db = tmp_path / "demo.duckdb"
    with Store(db) as store:
        build_demo_store(store)
    return db


@pytest.mark.parametrize("name", ["admin\u202egnp.exe", "ann\u200bsmith", "bob\u2066x\u2069",
                                  "eve\x07"])
def test_a_judge_name_that_hides_or_reverses_text_is_refused(demo: Path, name: str) -> None:
    result = sxs(demo, "invite", name)
    assert result.exit_code != 0
    (line,) = result.output.strip().splitlines()
    assert "invisible character U+" in line
    listed = sxs(demo, "invite", "--list")
    assert name not in listed.output


def test_a_name_stored_before_the_rule_is_listed_neutralised(demo: Path) -> None:
    with Store(demo) as store, store.backend.transaction() as cur:  # an older store's row
        cur.execute("INSERT INTO judges (name, admin, verified, via) "
                    "VALUES (?, false, true, 'invite')", ["old\u202ename"])
    listed = sxs(demo, "invite", "--list").output
    assert "\u202e" not in listed
    assert "oldU+202Ename" in listed
    assert neutralized("plain name") == "plain name"


def write_run(path: Path, tag: str) -> Path:
    path.write_text("".join(f"{q} Q0 {d} {r} {10 - r} {tag}\n"
                            for q in ("1", "2") for r, d in enumerate(("184", "29", "31"), 1)))
    return path


def test_a_run_name_is_held_to_an_ids_length(demo: Path, tmp_path: Path) -> None:
    long = "r" * (MAX_ID_BYTES + 1)
    run = write_run(tmp_path / "long.run", "bench")
    named = sxs(demo, "import", "run", str(run), "-d", "cranfield", "--name", long)
    assert named.exit_code != 0
    assert "at most 1,000 bytes" in named.output.strip().splitlines()[-1]
    tagged = sxs(demo, "import", "run", str(write_run(tmp_path / "tag.run", long)),
                 "-d", "cranfield")
    assert tagged.exit_code != 0
    assert "at most 1,000 bytes" in tagged.output
    exactly = sxs(demo, "import", "run", str(run), "-d", "cranfield", "--name",
                  "r" * MAX_ID_BYTES)
    assert exactly.exit_code == 0, exactly.output
    hidden = sxs(demo, "import", "run", str(run), "-d", "cranfield", "--name", "x\u202ey")
    assert hidden.exit_code != 0 and "U+202E" in hidden.output
