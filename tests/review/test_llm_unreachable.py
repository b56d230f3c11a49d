"""Review finding: an unreachable LLM endpoint is a success.

`sxs llm-judge grade -d k --run A -k 10 --base-url http://127.0.0.1:9/v1 --model m` prints one
"failed: connection failed ..." line per item, retries every item (5 attempts each), and exits 0
with "0 answered, 4 failed".  A run in which no call reached the endpoint must stop with one
line naming the endpoint and exit non-zero (a CI job or script otherwise carries on).
"""

from __future__ import annotations

import socket
from pathlib import Path

from click.testing import CliRunner

from judge_app.cli import main


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_unreachable_endpoint_is_one_line_and_a_failure(tmp_path: Path) -> None:
    db = tmp_path / "k.duckdb"
    run = tmp_path / "a.trec"
    run.write_text("q1 Q0 a 1 3 A\nq1 Q0 b 2 2 A\nq2 Q0 x 1 2 A\n")
    judged = tmp_path / "j.csv"
    judged.write_text("query_id,doc_id,grade\nq1,a,3\n")
    cli = CliRunner()
    for args in (["dataset", "create", "k", "--scale", "esci"],
                 ["import", "run", "-d", "k", str(run), "--name", "A"],
                 ["import", "judgments", "-d", "k", str(judged)]):
        assert cli.invoke(main, [*args, "--db", str(db)]).exit_code == 0
    result = cli.invoke(main, ["llm-judge", "grade", "-d", "k", "--run", "A", "-k", "10",
                               "--base-url", f"http://127.0.0.1:{closed_port()}/v1",
                               "--model", "m", "--retries", "0", "--db", str(db)])
    assert result.exit_code != 0, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "127.0.0.1" in result.output
