"""Review finding on the LLM judge (issue 14): a tiny ``--timeout`` hides an unreachable endpoint.

`sxs llm-judge grade … --base-url http://127.0.0.1:<closed port>/v1 --timeout 0.001` prints one
"failed: no answer within 0.001 s; call budget spent …" line per item and exits 0 with
"0 answered, 4 failed": the call is cancelled before it connects, so it counts neither as
reached nor as unreached, and the README's "a run in which no request reached it … stop[s] …
with one line naming the URL, exit 2" does not hold.  A script or CI job carries on.
The timeout here is 1 ns, so every call is cancelled at its first await: no race.
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


def test_run_that_never_reached_the_endpoint_fails_in_one_line(tmp_path: Path) -> None:
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
                               "--model", "m", "--timeout", "1e-9", "--retries", "0",
                               "--db", str(db)])
    assert result.exit_code == 2, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output
    assert "127.0.0.1" in result.output
