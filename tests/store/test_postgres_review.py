"""Review findings on the PostgreSQL store (issue 15), tried as a newcomer would.

1. Text that reads ``\\N`` is taken for NULL.  Bulk loads ``COPY … FROM STDIN`` as CSV with
   ``NULL '\\N'`` and write values unquoted, so a doc id ``\\N`` fails with a psycopg
   ``NotNullViolation`` traceback (exit 1), and a title ``\\N`` is stored as NULL without a
   word (the DuckDB store keeps both as written).
2. The password of a ``postgresql://user:pw@…`` address is printed: ``sxs demo``'s header
   ("store: postgresql://sxsu:S3cr3tPw!@…"), "no dataset 'x' in postgresql://…:pw@…" and the
   ``sxs copy`` refusal ("postgresql://…:pw@… is not empty") — only ``sxs init`` hides it.
3. A database that cannot be reached prints psycopg_pool's log lines ("error connecting in
   'pool-1': …", four of them) before the one-line error, which itself drops the reason
   ("cannot connect to …" without "does not exist" / "Connection refused").
4. ``sxs restore B --db postgresql://…`` reports "restored B into postgresql:/postgres@…": the
   address it names is not the one given (a ``Path`` folded the double slash).
5. (fixed: refused naming file, line and field, see tests/io/test_nul_bytes.py) A NUL byte
   in a file: PostgreSQL answers a ``CharacterNotInRepertoire`` traceback (exit 1);
   the DuckDB store keeps the NUL in ids, and ``export trec`` writes it into the qrels, which
   C tools such as trec_eval cut short.  Bad input should be one line naming file and line.
6. Text ``\\N`` stored by a bound insert (a judge named ``\\N``) reads back as missing
   ("nan" in ``sxs invite --list``): ``COPY … TO STDOUT`` parsing takes it for NULL.
7. An id longer than PostgreSQL's index row limit (9,000 random letters, e.g. a text column
   mapped as the doc id) is a ``ProgramLimitExceeded`` traceback; DuckDB stores it.
8. ``sxs serve`` prints "sxs is serving postgresql://user:pw@…".
9. ``sxs backup postgresql://…`` (a PostgreSQL address where a file is expected) creates the
   folders ``postgresql:/user@host:port`` and ends in a DuckDB traceback; with ``postgres://``
   DuckDB even tries to download its postgres_scanner extension (the README says sxs never
   downloads it).
10. An id holding a carriage return (issue 12: ids with newlines round-trip) is written
    unquoted into COPY's CSV by pandas: ``BadCopyFileFormat`` traceback on PostgreSQL.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from click.testing import CliRunner

from judge_app.cli import main

PASSWORD = "S3cr3tPw"


def sxs(db: object, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def with_password(address: str) -> str:
    """The same database, with a password in the address (trust authentication ignores it)."""
    return address.replace("postgres@", f"postgres:{PASSWORD}@", 1)


def pg_rows(address: str, sql: str) -> list[tuple]:
    import psycopg

    with psycopg.connect(address) as conn:
        return conn.execute(sql).fetchall()


def test_backslash_n_doc_id_is_kept_on_postgresql(postgres_address: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"doc_id": "\\\\N", "title": "t"}\n{"doc_id": "d2", "title": "u"}\n')
    assert sxs(postgres_address, "dataset", "create", "a", "--scale", "binary").exit_code == 0
    result = sxs(postgres_address, "import", "docs", "-d", "a", str(docs))
    assert result.exit_code == 0, result.output
    assert sorted(pg_rows(postgres_address, "SELECT doc_id FROM documents")) == [("\\N",), ("d2",)]


def test_backslash_n_title_is_kept_on_postgresql(postgres_address: str, tmp_path: Path) -> None:
    docs = tmp_path / "docs.jsonl"
    docs.write_text('{"doc_id": "d1", "title": "\\\\N"}\n{"doc_id": "d2", "title": "u"}\n')
    assert sxs(postgres_address, "dataset", "create", "a", "--scale", "binary").exit_code == 0
    result = sxs(postgres_address, "import", "docs", "-d", "a", str(docs))
    assert result.exit_code == 0, result.output
    assert pg_rows(postgres_address, "SELECT title FROM documents WHERE doc_id = 'd1'"
                   ) == [("\\N",)]


def test_password_never_printed(postgres_address: str, tmp_path: Path) -> None:
    address = with_password(postgres_address)
    assert sxs(address, "dataset", "create", "a", "--scale", "binary").exit_code == 0
    missing = sxs(address, "evaluate", "-d", "nope", "--run", "x")
    assert missing.exit_code == 2
    source = tmp_path / "s.duckdb"
    assert sxs(source, "init").exit_code == 0
    copied = CliRunner().invoke(main, ["copy", "--from", str(source), "--to", address])
    assert copied.exit_code == 2
    for result in (missing, copied):
        assert "no dataset" in result.output or "not empty" in result.output, result.output
        assert PASSWORD not in result.output, result.output


def test_demo_does_not_print_the_password(postgres_address: str) -> None:
    result = sxs(with_password(postgres_address), "demo", "--no-serve")
    assert result.exit_code == 0, result.output
    assert "Cranfield" in result.output
    assert PASSWORD not in result.output, result.output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def sxs_process(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    return subprocess.run([sys.executable, "-m", "judge_app.cli", *args], capture_output=True,
                          text=True, env=env, timeout=120, check=False)


def test_unreachable_postgresql_is_one_line_with_the_reason() -> None:
    result = sxs_process("init", "--db", f"postgresql://postgres@127.0.0.1:{free_port()}/sxs")
    assert result.returncode == 2, result.stderr
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert "refused" in lines[0].lower(), lines


def test_missing_database_is_one_line_saying_so(postgres_address: str) -> None:
    address = postgres_address.rsplit("/", 1)[0] + "/no_such_database_here"
    result = sxs_process("init", "--db", address)
    assert result.returncode == 2, result.stderr
    lines = (result.stdout + result.stderr).strip().splitlines()
    assert len(lines) == 1, lines
    assert "does not exist" in lines[0], lines


def test_restore_names_the_postgresql_address_as_given(postgres_address: str,
                                                       tmp_path: Path) -> None:
    source = tmp_path / "s.duckdb"
    assert sxs(source, "init").exit_code == 0
    backup = tmp_path / "b.sxs"
    assert sxs(source, "backup", str(backup)).exit_code == 0
    result = sxs(postgres_address, "restore", str(backup))
    assert result.exit_code == 0, result.output
    assert postgres_address in result.output, result.output


@pytest.mark.parametrize("backend", ["duckdb", "postgresql"])
def test_nul_byte_is_a_one_line_refusal(backend: str, tmp_path: Path, request) -> None:
    db = tmp_path / "s.duckdb" if backend == "duckdb" else request.getfixturevalue(
        "postgres_address")
    qrels = tmp_path / "nul.qrels"
    qrels.write_bytes(b"1 0 d\x001 1\n1 0 d2 0\n2 0 d3 1\n")
    assert sxs(db, "dataset", "create", "a", "--scale", "binary").exit_code == 0
    result = sxs(db, "import", "qrels", "-d", "a", str(qrels))
    assert result.exit_code == 2, result.output
    assert "nul.qrels" in result.output and "line 1" in result.output, result.output
    if backend == "duckdb":
        with duckdb.connect(str(db), read_only=True) as con:
            assert con.execute("select count(*) from judgments").fetchone() == (0,)


def test_backslash_n_judge_name_reads_back_on_postgresql(postgres_address: str) -> None:
    assert sxs(postgres_address, "invite", "\\N").exit_code == 0
    listed = sxs(postgres_address, "invite", "--list")
    assert listed.exit_code == 0, listed.output
    assert listed.output.split("\t")[0] == "\\N", listed.output


def test_overlong_id_is_a_one_line_refusal_on_postgresql(postgres_address: str,
                                                          tmp_path: Path) -> None:
    import random
    import string

    rng = random.Random(1)
    long_id = "".join(rng.choice(string.ascii_letters) for _ in range(9000))
    qrels = tmp_path / "long.qrels"
    qrels.write_text(f"1 0 {long_id} 1\n1 0 d2 0\n2 0 d3 1\n")
    assert sxs(postgres_address, "dataset", "create", "l", "--scale", "binary").exit_code == 0
    result = sxs(postgres_address, "import", "qrels", "-d", "l", str(qrels))
    assert result.exit_code == 2, result.output
    assert "long.qrels" in result.output and "line 1" in result.output, result.output


def test_serve_does_not_print_the_password(postgres_address: str, monkeypatch) -> None:
    started: list[list[str]] = []

    def fake_run(command, **kwargs):
        started.append(command)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(subprocess, "run", fake_run)
    result = sxs(with_password(postgres_address), "serve", "--port", str(free_port()))
    assert started, result.output
    assert "serving" in result.output, result.output
    assert PASSWORD not in result.output, result.output


def test_backup_to_a_postgresql_address_is_a_one_line_refusal(tmp_path: Path,
                                                             monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    source = tmp_path / "s.duckdb"
    assert sxs(source, "init").exit_code == 0
    result = sxs(source, "backup", "postgresql://postgres@127.0.0.1:5432/elsewhere")
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert not (tmp_path / "postgresql:").exists()


def test_carriage_return_in_an_id_round_trips_on_postgresql(postgres_address: str,
                                                            tmp_path: Path) -> None:
    judged = tmp_path / "cr.jsonl"
    judged.write_text('{"query_id": "q1", "doc_id": "c\\rd", "grade": 1}\n'
                      '{"query_id": "q1", "doc_id": "e", "grade": 0}\n'
                      '{"query_id": "q2", "doc_id": "f", "grade": 2}\n')
    assert sxs(postgres_address, "dataset", "create", "w", "--scale", "0=a,1=b,2=c"
               ).exit_code == 0
    result = sxs(postgres_address, "import", "judgments", "-d", "w", str(judged))
    assert result.exit_code == 0, result.output
    assert sorted(pg_rows(postgres_address, "SELECT doc_id FROM judgments")) == [
        ("c\rd",), ("e",), ("f",)]
