"""Review findings: an unreachable LLM endpoint was a success.

`sxs llm-judge grade -d k --run A -k 10 --base-url http://127.0.0.1:9/v1 --model m` printed one
"failed: connection failed ..." line per item, retried every item (5 attempts each), and exited
0 with "0 answered, 4 failed".  A run in which no call reached the endpoint must stop with one
line naming the endpoint and exit non-zero (a CI job or script otherwise carries on).

The same with a tiny ``--timeout`` (issue 14): every call was cancelled before it connected, so
it counted neither as reached nor as unreached, and the run exited 0.  The timeout there is
1 ns, so every call is cancelled at its first await: no race.
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


def grade_against_a_closed_port(tmp_path: Path, *options: str):
    """``sxs llm-judge grade`` on a small store, its endpoint a port nobody listens on."""
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
    return cli.invoke(main, ["llm-judge", "grade", "-d", "k", "--run", "A", "-k", "10",
                             "--base-url", f"http://127.0.0.1:{closed_port()}/v1",
                             "--model", "m", *options, "--retries", "0", "--db", str(db)])


def test_unreachable_endpoint_is_one_line_and_a_failure(tmp_path: Path) -> None:
    result = grade_against_a_closed_port(tmp_path)
    assert result.exit_code != 0, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "127.0.0.1" in result.output


def test_run_that_never_reached_the_endpoint_fails_in_one_line(tmp_path: Path) -> None:
    result = grade_against_a_closed_port(tmp_path, "--timeout", "1e-9")
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "127.0.0.1" in result.output
