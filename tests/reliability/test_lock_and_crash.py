"""A served store refuses a second writer clearly; a writer killed with SIGKILL at random
moments loses nothing it had acknowledged."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import urllib.request
from pathlib import Path

from judge_app.errors import StoreLocked
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.polling import wait_until

CRASHES = 20


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


def serving(process: subprocess.Popen, url: str) -> bool:
    if process.poll() is not None:
        raise RuntimeError(f"sxs serve exited with {process.returncode}")
    return healthy(url)


def opened(db: Path) -> Store | None:
    try:
        return Store(db)
    except StoreLocked:
        return None


def sxs(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge_app.cli", *args], capture_output=True,
                          text=True, timeout=120)


def test_a_served_store_refuses_a_second_serve_and_an_import(tmp_path: Path) -> None:
    db = tmp_path / "served.duckdb"
    with Store(db) as store:
        build_demo_store(store)
    port = free_port()
    first = subprocess.Popen([sys.executable, "-m", "judge_app.cli", "serve", "--db", str(db),
                              "--port", str(port)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until(lambda: serving(first, url), 90, f"sxs serve to answer on {url}")
        second = sxs("serve", "--db", str(db), "--port", str(free_port()))
        assert second.returncode == 2
        assert f"Error: {db} is being served by sxs serve (pid " in second.stderr
        qrels = tmp_path / "more.qrels"
        qrels.write_text("1 0 999 2\n")
        imported = sxs("import", "qrels", "-d", "cranfield", str(qrels), "--db", str(db))
        assert imported.returncode == 2 and "is being served by sxs serve" in imported.stderr
        assert "Traceback" not in second.stderr + imported.stderr
        assert healthy(url)  # the first is unaffected
    finally:
        os.killpg(first.pid, signal.SIGTERM)
        first.wait(timeout=30)
    # released once the server and its Streamlit child have stopped; nothing was imported
    with wait_until(lambda: opened(db), 60, f"{db} to be released by the stopped server") \
            as store:
        judged = store.judgments(store.dataset("cranfield"))
        assert len(judged) == 1612


# One interpreter imports sxs once, then forks a fresh writer per crash: each writer opens
# the store itself (after the fork, so no DuckDB state is shared) and appends votes forever,
# printing each token once its transaction has committed.  The parent reports the writer's
# death.  All lines go down one pipe, so everything a writer acknowledged before it was killed
# is read before the parent's "died" line.
FORK_SERVER = textwrap.dedent("""
    import os, sys
    import pandas as pd
    from judge_app.store import Store
    from metrics import ESCI

    def say(line):
        os.write(1, (line + "\\n").encode())

    def write_forever(path, start):
        store = Store(path)
        dataset = store.create_dataset("crash", ESCI)
        for name in ("a", "b"):
            if name not in store.run_names(dataset):
                store.put_run(dataset, name, pd.DataFrame({
                    "query_id": ["q0"], "doc_id": [name], "rank": [1], "score": [1.0],
                    "line": [1]}), name)
        if "w" not in set(store.judges()["name"]):
            store.typed_judge("w")
        say("open")
        i = start
        while True:
            token = f"vote-{i}"
            view = store.issue_view(dataset, f"q{i}", "a", "b", "a", 10, "w", True)
            store.cast_vote(dataset, view.view_id, "left", "w", reason=token)  # once a query
            say(token)  # acknowledged: the transaction has committed
            i += 1

    for command in sys.stdin:
        path, start = command.split()
        pid = os.fork()
        if pid == 0:
            say(f"pid {os.getpid()}")
            try:
                write_forever(path, int(start))
            finally:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        say(f"died {pid} {os.waitstatus_to_exitcode(status)}")
""")


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    """Each writer is killed once it has acknowledged a random number of votes (0 to 60: 0
    kills it while it opens the store and replays the last crash's log) plus a random fraction
    of a write, so the kill lands at a random point of a write; after each crash the store
    opens and holds every acknowledged vote."""
    db = tmp_path / "crash.duckdb"
    acknowledged: list[str] = []
    rng = random.Random(20261202)
    server = subprocess.Popen([sys.executable, "-c", FORK_SERVER], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True,
                              env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    jitter = threading.Event()  # never set: its wait() is the random delay before a kill
    kills_at = [0, 0] + [rng.randint(1, 60) for _ in range(CRASHES - 2)]
    rng.shuffle(kills_at)
    try:
        for crash, kill_after in enumerate(kills_at):
            server.stdin.write(f"{db} {crash * 1_000_000}\n")
            server.stdin.flush()
            line = server.stdout.readline().split()
            assert line[0] == "pid", line
            writer, seen, killed = int(line[1]), 0, False
            if kill_after == 0:
                os.kill(writer, signal.SIGKILL)
                killed = True
            while True:
                line = server.stdout.readline().strip()
                assert line, "the fork server exited"
                if line.startswith("died "):
                    assert line == f"died {writer} {-signal.SIGKILL}", line
                    break
                if line.startswith("vote-"):
                    acknowledged.append(line)
                    seen += 1
                if seen >= kill_after and not killed:
                    # a random phase of the next write or two (one takes ~5-10 ms), so the kill
                    # lands in BEGIN, INSERT, COMMIT or the acknowledgement alike
                    jitter.wait(rng.uniform(0, 0.02))
                    os.kill(writer, signal.SIGKILL)
                    killed = True
            with Store(db) as store:  # opens after every crash
                stored = set(store.preferences(store.dataset("crash"))["reason"]) \
                    if store.find_dataset("crash") else set()
            missing = [token for token in acknowledged if token not in stored]
            assert not missing, f"{len(missing)} acknowledged votes lost, e.g. {missing[:3]}"
    finally:
        server.stdin.close()
        server.wait(timeout=60)
    print(f"\ncrash: {CRASHES} SIGKILLs, {len(acknowledged)} acknowledged votes, 0 lost")
