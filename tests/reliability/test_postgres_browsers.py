"""Load and faults on PostgreSQL through real replicas and real browsers (issue 15).

Three ``sxs serve --db postgresql://…`` processes on three ports share one database; twenty
judges — browser contexts of Debian's chromium, driven by Playwright — sign in with their
invite links spread over the three replicas, in a round of ``OVERLAP`` judges per query
started through the service (:func:`judge_app.services.judging.start_round`).  The judges vote
in waves: every judge's vote is sent before any answer is awaited.  In the middle of a wave one
replica's process group is killed with SIGKILL, votes in flight; its judges open a surviving
replica in the same browser (their session cookie is the store's, valid on every replica) and
go on.

A vote counts as *acknowledged* only when its page showed it stored: the judge's progress
count went up by one and the "Saved:" receipt names the query's text.  Each acknowledged
(judge, query) is recorded from the page, then the store is read: every acknowledged vote is
there exactly once, no judge has two votes on a query, no query has more than ``OVERLAP``
judges.  The test waits for page states only, never for a clock.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from judge_app.services import judging
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from judge_app.store.postgres import PostgresBackend
from tests.app.test_browser import CHROMIUM, FLAGS, free_port
from tests.polling import wait_until
from tests.postgres import require

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (.ci/run installs it; under CI this fails instead)")

ROOT = Path(__file__).resolve().parents[2]
OVERLAP = 2
REPLICAS = 3
JUDGES = [f"judge{n:02d}" for n in range(20)]
WAVES = 3  # votes per judge; the replica dies during the second wave
CHOICES = ("Left better", "Right better", "About the same", "Both bad")
WAIT = 120_000  # ms: a page state under the whole suite's load on two cores
# The judge page drops a click landing within 0.4 s of the same session's last vote (a double
# click, judge.DOUBLE_SUBMIT_SECONDS); a judge's next vote is sent no sooner than this after
# the page acknowledged the last one, so a deliberate vote is never taken for a double click.
NEXT_VOTE_AFTER = 0.5

PROGRESS = re.compile(r"^(\d+) of (\d+) queries")
CAPTION = re.compile(r"^query (\S+) · top")

# The query id of the view the page shows once the app's script has finished running, or
# null; ``previous`` (the query just voted on) is never taken for the next one.
SHOWN_QUERY = """previous => {
    const app = document.querySelector("[data-testid=stApp]");
    if (!app || app.getAttribute("data-test-script-state") !== "notRunning") return null;
    for (const el of document.querySelectorAll("[data-testid=stCaptionContainer]")) {
        const m = /^query (\\S+) · top/.exec(el.innerText.trim());
        if (m && m[1] !== previous) return m[1];
    }
    return null;
}"""


@dataclass
class Judge:
    name: str
    page: object
    replica: int
    done: int = 0
    query: str | None = None  # the query the vote in flight is on
    text: str = ""
    acked_at: float = -1e9
    acked: list[str] = field(default_factory=list)


def _health(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
            return reply.status == 200
    except OSError:
        return False


@pytest.fixture
def round_on_postgres(postgres_cluster):
    """A demo store on PostgreSQL with a round of OVERLAP judges per query and the judges'
    sign-in tokens, served by REPLICAS ``sxs serve`` processes."""
    cluster = require(postgres_cluster)
    address = cluster.copy_of("demo", build_demo_store)
    with Store(address) as store:
        dataset = store.dataset("cranfield")
        judging.start_round(store, dataset, "title", "bm25", k=5, overlap=OVERLAP, blind=True,
                            lease_minutes=30, by="admin")
        tokens = {name: store.invite_judge(name) for name in JUDGES}
    PostgresBackend.close_all(address)
    ports = [free_port() for _ in range(REPLICAS)]
    servers = [subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "serve", "--db", address, "--port", str(port)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)}) for port in ports]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    try:
        for server, url in zip(servers, urls, strict=True):
            def answering(server=server, url=url) -> bool:
                assert server.poll() is None, f"sxs serve exited with {server.returncode}"
                return _health(url)
            wait_until(answering, 120, f"sxs serve to answer on {url}")
        yield {"address": address, "tokens": tokens, "urls": urls, "servers": servers}
    finally:
        for server in servers:
            if server.poll() is None:
                os.killpg(server.pid, signal.SIGTERM)
        for server in servers:
            server.wait(timeout=60)
        cluster.drop(address)


def _progress(page) -> int:
    caption = page.get_by_text(PROGRESS).first
    caption.wait_for(timeout=WAIT)
    return int(PROGRESS.match(caption.inner_text()).group(1))


def _show_next(judge: Judge, previous: str | None) -> None:
    """Wait for the judge's page to show a query (not ``previous``) and note it."""
    handle = judge.page.wait_for_function(SHOWN_QUERY, arg=previous, timeout=WAIT)
    judge.query = handle.json_value()
    judge.done = _progress(judge.page)
    judge.text = judge.page.locator("[data-testid=stMain] h3").first.inner_text().strip()


def _send_vote(judge: Judge, wave: int) -> None:
    wait = NEXT_VOTE_AFTER - (time.monotonic() - judge.acked_at)
    if wait > 0:
        judge.page.wait_for_timeout(wait * 1000)
    choice = CHOICES[(wave + len(judge.acked)) % len(CHOICES)]
    judge.page.get_by_role("button", name=choice).click(timeout=WAIT)


def _acknowledged(judge: Judge, *, wait: bool) -> bool:
    """Whether the page showed the vote in flight stored (its count one up, the receipt
    naming its query); with ``wait``, wait for that; records it."""
    count = judge.page.get_by_text(re.compile(rf"^{judge.done + 1} of \d+ queries")).first
    receipt = judge.page.get_by_text(re.compile(r"^Saved: ")).first
    if wait:
        count.wait_for(timeout=WAIT)
        receipt.wait_for(timeout=WAIT)
    elif not (count.count() and receipt.count()):
        return False
    assert f"“{judge.text}”" in receipt.inner_text(), (judge.name, judge.query)
    judge.acked.append(judge.query)
    judge.acked_at = time.monotonic()
    return True


def test_twenty_browsers_on_three_replicas_one_killed_lose_and_double_nothing(
        round_on_postgres) -> None:
    served = round_on_postgres
    urls, victim = served["urls"], 0
    started = time.monotonic()
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        judges = []
        # one judge per replica first (each replica computes and caches the round's query
        # order once), then the other seventeen, every sign-in sent before any is awaited
        for batch in (JUDGES[:REPLICAS], JUDGES[REPLICAS:]):
            for name in batch:
                n = JUDGES.index(name)
                page = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
                page.goto(f"{urls[n % REPLICAS]}/?token={served['tokens'][name]}",
                          wait_until="commit", timeout=WAIT)
                judges.append(Judge(name, page, n % REPLICAS))
            for judge in judges[-len(batch):]:
                judge.page.wait_for_function("document.cookie.includes('sxs_session=')",
                                             timeout=WAIT)
                _show_next(judge, None)

        lost_with_the_replica: list[Judge] = []
        print(f"\n20 judges signed in at {time.monotonic() - started:.0f}s")
        for wave in range(WAVES):
            # 20 votes in flight at once; in the second wave the victim's judges go last and
            # their replica is killed at once, its votes in flight
            for judge in sorted(judges, key=lambda j: wave == 1 and j.replica == victim):
                _send_vote(judge, wave)
            if wave == 1:
                os.killpg(served["servers"][victim].pid, signal.SIGKILL)
                served["servers"][victim].wait(timeout=60)
            for judge in judges:
                if judge.replica != victim or wave != 1:
                    _acknowledged(judge, wait=True)
            if wave == 1:
                for judge in judges:  # the dead replica's pages show what they were sent
                    if judge.replica == victim and not _acknowledged(judge, wait=False):
                        lost_with_the_replica.append(judge)
                survivors = [r for r in range(REPLICAS) if r != victim]
                for n, judge in enumerate(j for j in judges if j.replica == victim):
                    judge.replica = survivors[n % len(survivors)]
                    # the same browser: its session cookie signs it in on another replica
                    judge.page.goto(urls[judge.replica], wait_until="commit", timeout=WAIT)
            print(f"wave {wave} acknowledged at {time.monotonic() - started:.0f}s")
            if wave < WAVES - 1:
                for judge in judges:
                    previous = judge.acked[-1] if judge.acked and (
                        judge.acked[-1] == judge.query) else None
                    _show_next(judge, previous)
        errors = sum(j.page.locator("[data-testid=stException]").count() for j in judges)
        browser.close()
    assert errors == 0

    acked = [(j.name, q) for j in judges for q in j.acked]
    with Store(served["address"]) as store:
        dataset = store.dataset("cranfield")
        every = store.preferences(dataset, include_retracted=True)
        counted = store.preferences(dataset)
    rows = list(zip(every["judge"], every["query_id"], strict=True))
    # 0 lost, 0 duplicated: every acknowledged vote is stored exactly once
    assert [a for a in acked if rows.count(a) != 1] == []
    assert len(set(acked)) == len(acked)
    # no judge has two votes on one query, on any replica
    assert not every.duplicated(["judge", "query_id"]).any()
    # the overlap rule held across replicas
    per_query = counted.groupby("query_id")["judge"].nunique()
    assert per_query.max() <= OVERLAP, per_query[per_query > OVERLAP]
    print(f"\n{len(acked)} votes acknowledged, {len(every)} stored, "
          f"{len(lost_with_the_replica)} unacknowledged when the replica died, "
          f"{per_query.max()} judges on the fullest of {len(per_query)} queries")
