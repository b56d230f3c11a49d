"""Load and faults on PostgreSQL (issue 15): several replicas on one database.

* Three ``sxs serve --db postgresql://…`` replicas start on one store at once and all answer
  (no file lock: that is a DuckDB-only concern).
* Twenty judges vote at once through three app processes — each runs the judge page's own
  service calls (queue, drawn view with its lease, vote) on its pooled store; the votes go
  through the store API, not through a browser — and one process is killed with SIGKILL
  mid-stream; its judges carry on in a new process (a load balancer's failover).  Then:
  every acknowledged vote is stored once (0 lost, 0 duplicated), no judge has two counted
  votes on one query, and no query has more than the round's judges per query.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.polling import wait_until
from tests.postgres import require
from tests.reliability.test_lock_and_crash import free_port, healthy

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = 2
QUERIES = 30
JUDGES = [f"judge{n:02d}" for n in range(20)]


@pytest.fixture
def demo_database(postgres_cluster):
    cluster = require(postgres_cluster)
    address = cluster.copy_of("demo", build_demo_store)
    yield address
    cluster.drop(address)


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})


class Worker:
    """A replica process's judges, its acknowledged votes read as they are printed."""

    def __init__(self, address: str, judges: list[str]) -> None:
        self.process = _start("-m", "tests.reliability.replica_worker", address,
                              str(QUERIES), *judges)
        self.acks: list[tuple[str, str, str]] = []
        self.done = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            parts = line.split()
            if parts[:1] == ["ACK"]:
                self.acks.append((parts[1], parts[2], parts[3]))
            elif parts == ["DONE"]:
                self.done = True

    def finished(self) -> bool:
        if self.process.poll() is not None:
            self._reader.join(timeout=10)
            return True
        return False


def test_three_sxs_serve_replicas_share_one_postgresql_store(demo_database: str) -> None:
    ports = [free_port() for _ in range(3)]
    servers = [_start("-m", "judge_app.cli", "serve", "--db", demo_database, "--port",
                      str(port)) for port in ports]
    try:
        for server, port in zip(servers, ports, strict=True):
            wait_until(lambda s=server, p=port: _alive(s) and healthy(f"http://127.0.0.1:{p}"),
                       90, f"sxs serve on port {port}")
    finally:
        for server in servers:
            os.killpg(server.pid, signal.SIGTERM)
        for server in servers:
            server.wait(timeout=30)


def _alive(process: subprocess.Popen) -> bool:
    if process.poll() is not None:
        raise AssertionError(f"sxs serve exited with {process.returncode}")
    return True


def test_twenty_judges_on_three_replicas_one_killed_lose_and_double_nothing(
        demo_database: str) -> None:
    with Store(demo_database) as store:
        dataset = store.dataset("cranfield")
        store.set_round(dataset, "title", "bm25", k=5, overlap=OVERLAP, blind=True, by="admin")
        for name in JUDGES:
            store.invite_judge(name)
    groups = [JUDGES[0::3], JUDGES[1::3], JUDGES[2::3]]
    workers = [Worker(demo_database, group) for group in groups]
    victim = workers[0]
    wait_until(lambda: len(victim.acks) >= 5 or victim.finished(), 120,
               "the first replica's judges to have votes acknowledged")
    assert not victim.finished(), "the replica finished before it could be killed"
    os.killpg(victim.process.pid, signal.SIGKILL)
    victim.process.wait(timeout=30)
    failover = Worker(demo_database, groups[0])  # its judges go on through another replica
    survivors = [*workers[1:], failover]
    wait_until(lambda: all(w.finished() for w in survivors), 240, "every judge to finish")
    assert all(w.done for w in survivors)
    acked = [ack for w in [*workers, failover] for ack in w.acks]

    with Store(demo_database) as store:
        dataset = store.dataset("cranfield")
        votes = store.preferences(dataset)
    stored = dict(zip(votes["preference_id"], zip(votes["judge"], votes["query_id"],
                                                   strict=True), strict=True))
    by_view = store_views(demo_database)
    # 0 lost: every acknowledged vote is stored, by its judge, on its query
    assert [a for a in acked if by_view.get(a[1]) != (a[0], a[2])] == []
    # 0 duplicated: one vote per view, one counted vote per judge and query
    assert len(by_view) == len(stored)
    assert not votes.duplicated(["judge", "query_id"]).any()
    assert len({a[1] for a in acked}) == len(acked)
    # the overlap rule held across replicas
    assert votes.groupby("query_id")["judge"].nunique().max() <= OVERLAP
    # and the work got done: every allowed query has its judges
    assert len(votes) >= len(acked) > 0


def store_views(address: str) -> dict[str, tuple[str, str]]:
    with Store(address) as store:
        rows = store._cursor().execute(
            "SELECT view_id, judge, query_id FROM preferences").fetchall()
    return {view: (judge, query) for view, judge, query in rows}
