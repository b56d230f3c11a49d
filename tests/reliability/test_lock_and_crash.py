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
import time
import urllib.request
from pathlib import Path

from judge_app.services.demo import build_demo_store
from judge_app.store import Store

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
        deadline = time.monotonic() + 90
        while not healthy(url):
            assert time.monotonic() < deadline, "sxs serve did not start"
            time.sleep(0.5)
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
    time.sleep(1)
    with Store(db) as store:  # released when the server stopped; nothing was imported
        judged = store.judgments(store.dataset("cranfield"))
        assert len(judged) == 1612


WRITER = textwrap.dedent("""
    import sys
    import pandas as pd
    from judge_app.store import Store
    from metrics import ESCI
    path, start = sys.argv[1], int(sys.argv[2])
    store = Store(path)
    dataset = store.create_dataset("crash", ESCI)
    for name in ("a", "b"):
        if name not in store.run_names(dataset):
            store.put_run(dataset, name, pd.DataFrame({"query_id": ["q0"], "doc_id": [name],
                          "rank": [1], "score": [1.0], "line": [1]}), name)
    if "w" not in set(store.judges()["name"]):
        store.typed_judge("w")
    i = start
    while True:
        token = f"vote-{i}"
        view = store.issue_view(dataset, f"q{i}", "a", "b", "a", 10, "w", True)  # a judge
        store.cast_vote(dataset, view.view_id, "left", "w", reason=token)  # votes once a query
        print(token, flush=True)  # acknowledged: the transaction has committed
        i += 1
""")


def test_acknowledged_writes_survive_sigkill(tmp_path: Path) -> None:
    db = tmp_path / "crash.duckdb"
    acknowledged: list[str] = []
    rng = random.Random(20261202)
    for _ in range(CRASHES):
        writer = subprocess.Popen([sys.executable, "-c", WRITER, str(db),
                                   str(len(acknowledged) * 10 + 1_000_000 * _)],
                                  stdout=subprocess.PIPE, text=True)
        first = writer.stdout.readline().strip()  # it is writing
        assert first.startswith("vote-")
        acknowledged.append(first)
        time.sleep(rng.uniform(0.05, 0.6))
        writer.send_signal(signal.SIGKILL)
        remaining, _unused = writer.communicate(timeout=30)
        acknowledged += [line for line in remaining.splitlines() if line.startswith("vote-")]
        with Store(db) as store:  # opens after every crash
            stored = set(store.preferences(store.dataset("crash"))["reason"])
        missing = [token for token in acknowledged if token not in stored]
        assert not missing, f"{len(missing)} acknowledged votes lost, e.g. {missing[:3]}"
    assert len(acknowledged) > CRASHES * 5
    print(f"\ncrash: {CRASHES} SIGKILLs, {len(acknowledged)} acknowledged votes, 0 lost")
