"""End to end in a real browser: Debian's chromium driven by Playwright against `sxs serve`.

With ``sxs serve --open``: enter a name (an unverified judge), cast a vote, grade a result,
stop the server, then read the rows back from the DuckDB file.  Screenshots go to the test's
temporary folder, or to ``tests/app/screenshots/`` (the README's picture) with
``SXS_UPDATE_SCREENSHOTS=1``.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

from judge_app.errors import StoreLocked
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.polling import WaitTimeout, wait_until

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


@contextlib.contextmanager
def serving(db: Path, open_mode: bool = True):
    """``sxs serve`` on ``db`` (``--open`` unless ``open_mode`` is false: invited judges
    only): (its address, its process) once it answers; stopped on the way out unless the
    test stopped it (:func:`stop`)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "serve", "--db", str(db), "--port", str(port),
         *(["--open"] if open_mode else [])], stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        start_new_session=True)
    url = f"http://127.0.0.1:{port}"

    def answering() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"sxs serve exited: {process.stdout.read()}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                return reply.status == 200
        except OSError:
            return False

    try:
        wait_until(answering, 90, f"sxs serve to answer on {url}")
    except WaitTimeout:
        os.killpg(process.pid, signal.SIGKILL)
        raise
    try:
        yield url, process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


@pytest.fixture
def server(tmp_path: Path):
    db = tmp_path / "browser.duckdb"
    with Store(db) as store:
        build_demo_store(store)
    with serving(db) as (url, process):
        yield url, db, process


def stop(process: subprocess.Popen, db: Path) -> None:
    """Stop sxs serve and its Streamlit child; wait until the store file is released."""
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=30)

    def released() -> bool:
        try:
            Store(db).close()
        except StoreLocked:
            return False
        return True

    wait_until(released, 60, f"{db} to be released by the stopped server")


def stored(process: subprocess.Popen, db: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Stop the server (:func:`stop`), then read back the demo dataset's votes and its
    expert label history."""
    stop(process, db)
    with Store(db) as store:
        dataset = store.dataset("cranfield")
        return store.preferences(dataset), store.expert_label_history(dataset)


# Counts the app's finished script runs: Streamlit marks its root element with the script
# state, which goes to "running" and back to "notRunning" for every rerun.
COUNT_RUNS = """() => {
    const app = document.querySelector("[data-testid=stApp]");
    window.sxsRunsDone = 0;
    let running = false;
    new MutationObserver(() => {
        const now = app.getAttribute("data-test-script-state");
        if (now === "running") running = true;
        if (now === "notRunning" && running) { running = false; window.sxsRunsDone += 1; }
    }).observe(app, {attributes: true, attributeFilter: ["data-test-script-state"]});
}"""


def click_and_wait_for_the_rerun(page, target) -> None:
    """Click ``target`` and return once the rerun the click caused has finished (its callback,
    which writes to the store, runs at the start of that rerun)."""
    page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for(
        timeout=60_000)
    page.evaluate(COUNT_RUNS)
    target.click()
    page.wait_for_function("() => window.sxsRunsDone >= 1", timeout=60_000)


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
        settled(page)
        page.screenshot(path=str(shots / "judge_page.png"), full_page=False)

        # grade the first unlabelled result "Useful" (its button: a labelled result's badge
        # may say "Useful" too)
        card = page.locator(".cell:has(.badge.unlabelled)").first
        click_and_wait_for_the_rerun(page, card.locator(".grades button").filter(
            has_text=re.compile(r"^Useful$")))
        page.get_by_role("textbox", name="Why? (optional)").fill("left has the answer at 1")
        page.get_by_role("button", name="Left better").click()
        page.get_by_text("Saved: Left better").wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "after_vote.png"), full_page=False)
        browser.close()
    votes, labels = stored(process, db)
    assert len(votes) == 1
    vote = votes.iloc[0]
    assert (vote["judge"], vote["choice"], vote["reason"]) == (  # a typed name: unverified
        "browser judge (unverified)", "left", "left has the answer at 1")
    assert vote["left_run"] in ("bm25", "title") and vote["ms_spent"] > 0
    assert len(labels) >= 1
    assert labels.iloc[0]["judge"] == "browser judge (unverified)"
    assert labels.iloc[0]["grade"] == 2


HOSTILE = "<img src=x onerror=\"window.sxsInjected=1\"><script>window.sxsInjected=2</script>"


@pytest.fixture
def hostile_server(tmp_path: Path):
    """The demo store with every document's title an HTML injection attempt."""
    db = tmp_path / "hostile.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        docs = store.documents(dataset)
        store.put_documents(dataset, pd.DataFrame({
            "doc_id": docs["doc_id"], "title": [f"{HOSTILE} **{d}**" for d in docs["doc_id"]],
            "text": [f.get("text", "") for f in docs["fields"]]}))
    with serving(db) as (url, process):
        yield url, db, process


def test_grades_are_stored_changed_and_withdrawn_and_titles_stay_text(hostile_server) -> None:
    """In the results grid: a title holding HTML shows as text and runs nothing; a grade click
    stores a label, a click on another grade stores the change, a click on the chosen grade
    withdraws it (a row; history kept), and the buttons show what is stored."""
    url, db, process = hostile_server
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = judge_page(browser, f"{url}/?judge=grader", 1920, 1080)
        first = page.locator(cell(1, "left"))
        title = first.locator(".title").text_content()
        assert title.startswith(f"1. {HOSTILE} **")
        assert page.evaluate("() => window.sxsInjected") is None
        assert page.evaluate(f"() => {GRID}.querySelectorAll('img, script').length") == 0
        doc = first.get_attribute("data-doc")
        buttons = first.locator(".grades button")
        pressed = first.locator(".grades button[aria-pressed=true]")
        for grade in ("Useful", "High relevance", "High relevance"):
            click_and_wait_for_the_rerun(page, buttons.filter(has_text=grade))
        assert pressed.count() == 0  # the last click took the grade back
        click_and_wait_for_the_rerun(page, buttons.filter(has_text="No interest"))
        assert pressed.all_text_contents() == ["No interest"]
        assert page.evaluate("() => window.sxsInjected") is None
        browser.close()
    _, history = stored(process, db)
    assert set(history["doc_id"]) == {doc}
    assert set(history["judge"]) == {"grader (unverified)"}
    assert history["grade"].tolist() == [2, 3, 0]  # Useful, High relevance, No interest
    assert history["withdrawn"].tolist() == [False, True, False]


def test_grade_clicks_faster_than_the_server_answers_each_store_once(server) -> None:
    """Eight results graded in one burst (one browser task: no answer from the server comes
    in between), then a ninth graded and the vote cast in one more: nine labels, each
    stored once, and the vote.  Then a real click keeps the keyboard focus on its button
    across the redraw."""
    url, db, process = server
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = judge_page(browser, f"{url}/?judge=quick", 1920, 1080)
        docs = {page.locator(cell(rank, "left")).get_attribute("data-doc"): rank % 5
                for rank in range(1, 10)}
        page.evaluate(f"""() => {{ for (let rank = 1; rank <= 8; rank++)
            {GRID}.querySelector(`.rank[data-rank="${{rank}}"] .cell.left `
                                 + `button[data-grade="${{rank % 5}}"]`).click(); }}""")
        page.wait_for_function(IDLE, timeout=60_000)
        # the left cells (a doc both runs show is pressed on both sides)
        assert page.locator(".cell.left .grades button[aria-pressed=true]").count() == 8
        first = page.evaluate(QUERY_TITLE)
        page.evaluate(f"""() => {{
            {GRID}.querySelector('.rank[data-rank="9"] .cell.left button[data-grade="4"]')
                .click();
            [...document.querySelectorAll('button')]
                .find(b => b.textContent.trim().startsWith('Left better')).click(); }}""")
        page.wait_for_function(f"() => ({QUERY_TITLE})() !== {first!r}", timeout=60_000)
        settled(page)
        button = page.locator(f"{cell(2, 'right')} .grades button[data-grade='3']")
        click_and_wait_for_the_rerun(page, button)
        page.locator(f"{cell(2, 'right')} .grades button[aria-pressed=true]").wait_for()
        assert page.evaluate(f"() => {GRID}.activeElement?.dataset.grade") == "3"
        right = page.locator(cell(2, "right")).get_attribute("data-doc")
        browser.close()
    votes, history = stored(process, db)
    assert list(zip(history["doc_id"], history["grade"], strict=True)) == [
        *docs.items(), (right, 3)]
    assert not history["withdrawn"].any()
    assert votes["choice"].tolist() == ["left"]


def vote_button(page, name: str):
    """The vote button once the page's script has finished: while a rerun draws the next
    query, the previous query's buttons (keyed by their view) still stand beside the new
    ones until the run ends."""
    page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for(
        timeout=60_000)
    return page.get_by_role("button", name=name)


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
                vote_button(page, "About the same").click()


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
                vote_button(page, "About the same").click()
            for page in pages:
                vote_until(page, done)
        assert not any(p.locator("[data-testid=stException]").count() for p in pages)
        browser.close()
    votes, _ = stored(process, db)
    per_judge = votes.groupby("judge")["query_id"].agg(["size", "nunique"])
    assert per_judge.to_dict("index") == {
        f"parallel{n} (unverified)": {"size": rounds, "nunique": rounds}
        for n in range(judges)}



# The results are one component (judge_app/ui/results_grid.py) drawn in a shadow root:
# a row per rank holding a left and a right cell (title, label line, grade buttons).
# Playwright's CSS locators reach into the shadow root; page scripts go through GRID.
GRID = """document.querySelector('[data-testid="stBidiComponentIsolated"]')?.shadowRoot"""


def cell(rank: int, side: str) -> str:
    """The CSS selector of the result at ``rank`` on ``side`` ("left" or "right")."""
    return f'.rank[data-rank="{rank}"] .cell.{side}'


ROWS_IN_VIEW = f"""(side) => [...({GRID}?.querySelectorAll(`.rank .cell.${{side}}`) ?? [])]
    .filter(el => {{ const box = el.getBoundingClientRect();
                    return box.height > 0 && box.top >= 0 && box.top < window.innerHeight; }})
    .length"""
SCROLLED = """() => window.scrollY + document.querySelector('[data-testid="stMain"]').scrollTop"""
IDLE = """() => !document.querySelector('[data-testid="stStatusWidget"]')
               && !document.querySelector('[data-testid="stSkeleton"]')"""


def settled(page) -> None:
    """Wait until the judge page's script has finished and every result's grade buttons are
    drawn (the page's height is final)."""
    page.locator(f"{cell(10, 'right')} .grades button:visible").first.wait_for(
        timeout=60_000)
    page.wait_for_function(IDLE, timeout=60_000)


def judge_page(browser, address: str, width: int, height: int):
    """A new page of ``width`` x ``height`` on the judge page at ``address``, once the query's
    results are all drawn (see :func:`settled`)."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(address)
    page.get_by_role("button", name="Left better").wait_for(timeout=90_000)
    settled(page)
    return page


QUERY_TITLE = """() => document.querySelector('[data-testid="stMain"] h3')?.textContent.trim()"""


def test_results_fit_the_screen_and_a_new_query_opens_at_the_top(server, tmp_path: Path
                                                                   ) -> None:
    """At 1920x1080 at least 6 results per side are on screen on first paint (5 at 1366x768),
    rank i on the left beside rank i on the right; after a vote cast from further down the
    page, the next query is shown from the top."""
    url, db, process = server
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = judge_page(browser, f"{url}/?judge=reader", 1920, 1080)
        assert page.evaluate(ROWS_IN_VIEW, "left") >= 6
        assert page.evaluate(ROWS_IN_VIEW, "right") >= 6
        tops = {side: [page.locator(cell(rank, side)).bounding_box()["y"]
                       for rank in (1, 2, 3, 4, 5, 6)] for side in ("left", "right")}
        assert tops["left"] == tops["right"]  # rows aligned by rank
        page.screenshot(path=str(tmp_path / "judge_1920x1080.png"), full_page=False)
        page.set_viewport_size({"width": 1366, "height": 768})  # a laptop: titles on one line
        page.wait_for_function(f"() => ({ROWS_IN_VIEW})('left') >= 5", timeout=10_000)
        assert page.evaluate(ROWS_IN_VIEW, "right") >= 5

        first = page.evaluate(QUERY_TITLE)
        # a shorter window, so that the compact page is taller than the screen
        page.set_viewport_size({"width": 1920, "height": 640})
        page.mouse.move(960, 400)
        page.mouse.wheel(0, 4000)
        page.wait_for_function(f"() => ({SCROLLED})() > 200", timeout=10_000)
        # grading a result further down keeps the page where it is
        page.locator(f"{cell(9, 'left')} .grades button").filter(has_text="Useful").click()
        page.wait_for_function(IDLE, timeout=60_000)
        assert page.evaluate(SCROLLED) > 200
        page.keyboard.press("1")  # "Left better"
        page.wait_for_function(f"() => ({QUERY_TITLE})() && ({QUERY_TITLE})() !== "
                               f"{first!r}", timeout=60_000)
        page.wait_for_function(IDLE, timeout=60_000)
        page.wait_for_function(f"() => ({SCROLLED})() === 0", timeout=10_000)
        assert page.evaluate("() => window.scrollY") == 0
        assert page.evaluate(SCROLLED) == 0
        browser.close()
    votes, _ = stored(process, db)
    assert votes["judge"].tolist() == ["reader (unverified)"]  # a typed name, in open mode
    assert votes["choice"].tolist() == ["left"]


QUERY_CAPTION = """() => [...document.querySelectorAll(
        '[data-testid="stMain"] [data-testid="stCaptionContainer"]')]
    .map(el => el.textContent.trim()).find(text => /^query \\S+ · top/.test(text)) ?? null"""


def test_a_vote_clicked_at_the_bottom_opens_the_next_query_at_the_top(server) -> None:
    """Scrolled to the bottom of a query, a click on "Left better" (sent to the button where
    it stands, as a pointer on a sticky bar would: the page is not scrolled to it first)
    draws the next query, and the page is then at its top."""
    url, _, _ = server
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = judge_page(browser, f"{url}/?judge=scroller", 1920, 720)
        first = page.evaluate(QUERY_CAPTION)
        page.mouse.move(960, 400)
        page.mouse.wheel(0, 5000)
        page.wait_for_function(f"() => ({SCROLLED})() > 200", timeout=10_000)
        page.get_by_role("button", name="Left better").dispatch_event("click")
        page.wait_for_function(f"() => ({QUERY_CAPTION})() && ({QUERY_CAPTION})() !== "
                               f"{first!r}", timeout=60_000)
        page.wait_for_function(IDLE, timeout=60_000)
        page.wait_for_function(f"() => ({SCROLLED})() === 0", timeout=10_000)
        assert page.evaluate(SCROLLED) == 0
        browser.close()
