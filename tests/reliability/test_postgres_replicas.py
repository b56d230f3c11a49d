"""Load and faults on PostgreSQL at the store's own level (issue 15): the row locks.

The end-to-end test (real ``sxs serve`` replicas, real browsers, a replica SIGKILLed) is
:mod:`tests.reliability.test_postgres_browsers`; a browser casts a vote every second or so.
This one races the store's locks as hard as it can: twenty judges vote at once, as fast as
the store answers, through three app processes — each runs the judge page's own service calls
(queue, drawn view with its lease, vote) on its pooled store, a thread per judge — over the
same thirty queries, so every query is fought over; one process is killed with SIGKILL
mid-stream and its judges carry on in a new process.  Then: every acknowledged vote is stored
once (0 lost, 0 duplicated), no judge has two counted votes on one query, and no query has
more than the round's judges per query.  Without the ``FOR UPDATE [SKIP LOCKED]`` row locks
(:mod:`judge_app.store.dialect`) this test fails: four judges on a query of two.
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

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = 2
QUERIES = 60
JUDGES = [f"judge{n:02d}" for n in range(20)]


@pytest.fixture
def demo_database(postgres_cluster):
    cluster = require(postgres_cluster)
    address = cluster.copy_of("demo", build_demo_store)
    yield address
    cluster.drop(address)


def _start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, *args], cwd=ROOT, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": str(ROOT)})


class Worker:
    """A replica process's judges, its acknowledged votes read as they are printed."""

    def __init__(self, address: str, judges: list[str], kill_after: int | None = None
                 ) -> None:
        """``kill_after``: SIGKILL the process the moment that many of its votes are
        acknowledged (from the thread reading them: mid-stream, its other judges' votes in
        flight, however fast the store answers)."""
        self.process = _start("-m", "tests.reliability.replica_worker", address,
                              str(QUERIES), *judges)
        self.acks: list[tuple[str, str, str]] = []
        self.ready = self.done = self.killed = False
        self._kill_after = kill_after
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            parts = line.split()
            if parts[:1] == ["ACK"]:
                self.acks.append((parts[1], parts[2], parts[3]))
                if (self._kill_after is not None and not self.killed and not self.done
                        and len(self.acks) >= self._kill_after):
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.killed = True
            elif parts == ["READY"]:
                self.ready = True
            elif parts == ["DONE"]:
                self.done = True

    def go(self) -> None:
        """Start the replica's judges (it waits for this once it is ready)."""
        self.process.stdin.write("GO\n")
        self.process.stdin.close()

    def finished(self) -> bool:
        if self.process.poll() is not None:
            self._reader.join(timeout=10)
            return True
        return False


def test_twenty_judges_on_three_replicas_one_killed_lose_and_double_nothing(
        demo_database: str) -> None:
    with Store(demo_database) as store:
        dataset = store.dataset("cranfield")
        store.set_round(dataset, "title", "bm25", k=5, overlap=OVERLAP, blind=True, by="admin")
        for name in JUDGES:
            store.invite_judge(name)
    groups = [JUDGES[0::3], JUDGES[1::3], JUDGES[2::3]]
    workers = [Worker(demo_database, group, kill_after=5 if n == 0 else None)
               for n, group in enumerate(groups)]
    wait_until(lambda: all(w.ready or w.finished() for w in workers), 120,
               "every replica to be up")
    for worker in workers:  # twenty judges start together
        worker.go()
    victim = workers[0]
    wait_until(lambda: victim.killed or victim.finished(), 120,
               "the first replica's judges to have votes acknowledged")
    assert victim.killed, "the replica finished before it could be killed"
    victim.process.wait(timeout=30)
    failover = Worker(demo_database, groups[0])  # its judges go on through another replica
    wait_until(lambda: failover.ready or failover.finished(), 120, "the failover to be up")
    failover.go()
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
        rows = store.backend.cursor().execute(
            "SELECT view_id, judge, query_id FROM preferences").fetchall()
    return {view: (judge, query) for view, judge, query in rows}
