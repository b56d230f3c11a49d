"""A password written in a ``postgresql://`` store address never reaches any output (issue 15).

The main commands run with ``postgresql://postgres:s3cret@127.0.0.1:PORT/db`` (the test
cluster trusts 127.0.0.1, so the password is accepted and ignored): init, dataset create,
the imports, evaluate, invite, backup, copy, ``sxs serve``'s start-up banner, and the error
paths that name the store — a missing dataset, a refused copy, a database that does not
exist, a port nobody listens on.  "s3cret" appears in none of their stdout, stderr or errors,
while the address itself (its password masked) still does where it helps.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from judge_app.addresses import describe_address, redact
from judge_app.cli import main
from judge_app.store.postgres import PostgresBackend
from tests.app.test_browser import free_port
from tests.polling import wait_until
from tests.postgres import require

ROOT = Path(__file__).resolve().parents[2]
CRANFIELD = ROOT / "data" / "cranfield"
SECRET = "s3cret"


def with_password(address: str) -> str:
    return re.sub(r"//([^:@/]+)(:[^@/]*)?@", rf"//\1:{SECRET}@", address, count=1)


@pytest.mark.parametrize("text, shown", [
    ("postgresql://sxs:s3cret@db.example:5432/labels",
     "postgresql://sxs:***@db.example:5432/labels"),
    ("postgres://sxs:s3/cr@t@h/db failed (alice@example.com)",
     "postgres://sxs:***@h/db failed (alice@example.com)"),
    ("postgresql://sxs@h/db?sslmode=require&password=s3cret",
     "postgresql://sxs@h/db?sslmode=require&password=***"),
    ("host=h user=sxs password='s3 cret'", "host=h user=sxs password=***"),
    ("postgresql://h:5432/db", "postgresql://h:5432/db"),
    ("/srv/a:b@c.duckdb", "/srv/a:b@c.duckdb"),
])
def test_redact_hides_every_form_of_password_and_nothing_else(text: str, shown: str) -> None:
    assert redact(text) == shown
    assert describe_address(Path("/srv/labels.duckdb")) == "/srv/labels.duckdb"


@pytest.fixture
def secret_address(postgres_cluster):
    cluster = require(postgres_cluster)
    plain = cluster.empty()
    yield with_password(plain)
    PostgresBackend.close_all()
    cluster.drop(plain)


def run(*args: str) -> str:
    """``sxs ARGS``: everything it printed (stdout, stderr, the error)."""
    result = CliRunner().invoke(main, list(args))
    said = result.output + (result.stderr if result.stderr_bytes is not None else "")
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        said += f"{type(result.exception).__name__}: {result.exception}"
    return said


def test_no_command_prints_the_password(secret_address: str, tmp_path: Path) -> None:
    db = secret_address
    masked = redact(db)
    assert SECRET not in masked and masked != db
    outputs = {
        "init": run("init", "--db", db),
        "dataset": run("dataset", "create", "cranfield", "--scale", "cranfield", "--db", db),
        "queries": run("import", "queries", "-d", "cranfield", str(CRANFIELD / "queries.tsv"),
                       "--db", db),
        "qrels": run("import", "qrels", "-d", "cranfield", str(CRANFIELD / "qrels.txt"),
                     "--db", db),
        "run": run("import", "run", "-d", "cranfield", str(CRANFIELD / "run_bm25.txt"),
                   "--name", "bm25", "--db", db),
        "evaluate": run("evaluate", "-d", "cranfield", "--run", "bm25", "--db", db),
        "invite": run("invite", "alice", "--db", db),
        "backup": run("backup", str(tmp_path / "nightly.sxs-backup"), "--db", db),
        "copy": run("copy", "--from", db, "--to", str(tmp_path / "copy.duckdb")),
        # the error paths
        "no dataset": run("evaluate", "-d", "nope", "--run", "bm25", "--db", db),
        "copy refused": run("copy", "--from", str(tmp_path / "copy.duckdb"), "--to", db),
        "no database": run("init", "--db", db.rsplit("/", 1)[0] + "/no_such_database"),
        "no server": run("init", "--db", re.sub(r":\d+/", f":{free_port()}/", db)),
    }
    leaked = [name for name, said in outputs.items() if SECRET in said]
    assert leaked == [], {name: outputs[name] for name in leaked}
    assert "ndcg@10" in outputs["evaluate"]  # the commands did their work
    assert masked in outputs["init"] and masked in outputs["no dataset"]
    assert "cannot connect to" in outputs["no database"]
    assert "cannot connect to" in outputs["no server"]


def test_sxs_serve_start_up_hides_the_password(secret_address: str) -> None:
    assert SECRET not in run("init", "--db", secret_address)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "serve", "--db", secret_address,
         "--port", str(port)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"})
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(server.stdout), daemon=True)
    reader.start()
    try:
        # the banner, then Streamlit's own lines once it listens
        wait_until(lambda: (any("sxs is serving" in line for line in lines)
                   and any(f":{port}" in line and "URL" in line for line in lines))
                   or server.poll() is not None, 120, "sxs serve to start")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=60)
        reader.join(timeout=30)
    said = "".join(lines)
    assert f"sxs is serving {redact(secret_address)}" in said, said
    assert SECRET not in said
