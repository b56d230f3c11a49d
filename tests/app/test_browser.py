"""End to end in a real browser: Debian's chromium driven by Playwright against `sxs serve`.

With ``sxs serve --open``: enter a name (an unverified judge), cast a vote, grade a result,
stop the server, then read the rows back from the DuckDB file.  Screenshots go to the test's
temporary folder, or to ``tests/app/screenshots/`` (the README's picture) with
``SXS_UPDATE_SCREENSHOTS=1``.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from judge_app.errors import StoreLocked
from judge_app.services.demo import build_demo_store
from judge_app.store import Store

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
README_SHOTS = Path(__file__).resolve().parent / "screenshots"

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (.ci/run installs it; under CI this fails instead)")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def server(tmp_path: Path):
    db = tmp_path / "browser.duckdb"
    with Store(db) as store:
        build_demo_store(store)
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "serve", "--db", str(db), "--port", str(port),
         "--open"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    break
        except OSError:
            time.sleep(0.5)
    else:
        process.kill()
        raise RuntimeError(f"sxs serve did not start: {process.stdout.read()}")
    yield url, db, process
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=30)


def stop(process: subprocess.Popen, db: Path) -> None:
    """Stop sxs serve and its Streamlit child; wait until the store file is released."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)
    deadline = time.monotonic() + 60
    while True:
        try:
            Store(db).close()
            return
        except StoreLocked:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def test_vote_and_grade_in_a_real_browser(server, tmp_path: Path) -> None:
    url, db, process = server
    shots = README_SHOTS if os.environ.get("SXS_UPDATE_SCREENSHOTS") else tmp_path
    shots.mkdir(exist_ok=True)
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1440, "height": 1100})
        page.goto(url)
        page.get_by_label("Your name").fill("browser judge")
        page.get_by_role("button", name="Start judging").click()
        page.get_by_text("queries judged by you").wait_for(timeout=60_000)
        page.get_by_role("button", name="Left better").wait_for(timeout=60_000)
        assert "judge=browser+judge" in page.url or "judge=browser%20judge" in page.url
        page.screenshot(path=str(shots / "judge_page.png"), full_page=False)

        # grade the first unlabelled result: the grade buttons under it
        card = page.get_by_text("unlabelled").first
        card.wait_for()
        page.get_by_text("Useful", exact=True).first.click()
        page.wait_for_timeout(1500)
        page.get_by_role("textbox", name="Why? (optional)").fill("left has the answer at 1")
        page.get_by_role("button", name="Left better").click()
        page.get_by_text("Saved: Left better").wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "after_vote.png"), full_page=False)
        browser.close()
    stop(process, db)
    with Store(db) as store:
        dataset = store.dataset("cranfield")
        votes = store.preferences(dataset)
        labels = store.expert_label_history(dataset)
    assert len(votes) == 1
    vote = votes.iloc[0]
    assert (vote["judge"], vote["choice"], vote["reason"]) == (  # a typed name: unverified
        "browser judge (unverified)", "left", "left has the answer at 1")
    assert vote["left_run"] in ("bm25", "title") and vote["ms_spent"] > 0
    assert len(labels) >= 1
    assert labels.iloc[0]["judge"] == "browser judge (unverified)"
    assert labels.iloc[0]["grade"] == 2


def vote_until(page, done: int) -> None:
    """Wait for the page to count ``done`` votes, clicking again if the click came within the
    page's double-click window after the previous vote (a second click that soon is dropped:
    nobody judges a query in 0.4 s)."""
    progress = page.get_by_text(f"{done} of ").first
    deadline = time.monotonic() + 60
    while True:
        try:
            progress.wait_for(timeout=3_000)
            return
        except playwright_api.TimeoutError:
            if time.monotonic() > deadline:
                raise
            if not page.get_by_text(f"{done} of ").count():
                page.get_by_role("button", name="About the same").click()


def test_three_judges_vote_at_once_in_real_browsers(server) -> None:
    url, db, process = server
    judges, rounds = 3, 4
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        pages = []
        for n in range(judges):
            page = browser.new_context(viewport={"width": 1300, "height": 900}).new_page()
            page.goto(f"{url}/?judge=parallel{n}")
            page.get_by_role("button", name="About the same").wait_for(timeout=90_000)
            pages.append(page)
        for done in range(1, rounds + 1):
            for page in pages:  # every session has a rerun in flight at the same time
                page.get_by_role("button", name="About the same").click()
            for page in pages:
                vote_until(page, done)
        assert not any(p.locator("[data-testid=stException]").count() for p in pages)
        browser.close()
    stop(process, db)
    with Store(db) as store:
        votes = store.preferences(store.dataset("cranfield"))
    per_judge = votes.groupby("judge")["query_id"].agg(["size", "nunique"])
    assert per_judge.to_dict("index") == {
        f"parallel{n} (unverified)": {"size": rounds, "nunique": rounds}
        for n in range(judges)}
