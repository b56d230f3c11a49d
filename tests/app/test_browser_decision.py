"""Stop when decided, end to end in a real browser (issue 22): Debian's chromium driven by
Playwright against ``sxs serve --open`` on the tiny store of
:mod:`tests.services.decided_pair` (a round that stops when decided; two grades decide it).

The judge grades q0's answer (still undecided: the page still serves the query), then its
off-topic result: the deciding grade.  The page then tells the judge the pair is decided and
that there is nothing more to judge, and serves no query.  The dashboard opens with the
Decision panel; once the server stopped, ``sxs decide --format json`` on the same store gives
the verdict and the figures the panel showed.  Screenshots of the judge page and the
dashboard at 1920x1080 and 1366x768 go to ``$SXS_DECISION_SHOTS`` when set.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app.test_browser import (
    CHROMIUM,
    FLAGS,
    IDLE,
    click_and_wait_for_the_rerun,
    playwright_api,
    serving,
    stop,
)
from tests.services.decided_pair import DATASET, DECIDING, tiny_store

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                reason="Debian chromium is not installed")

SIZES = ((1920, 1080), (1366, 768))


def grade_button(doc_id: str, grade: int) -> str:
    """The left cell's grade button of ``doc_id`` in the results grid (a shadow root that
    Playwright's CSS locators reach into)."""
    return f'.cell.left[data-doc="{doc_id}"] .grades button[data-grade="{grade}"]'


def wait_idle(page) -> None:
    page.locator("[data-testid=stApp][data-test-script-state=notRunning]").wait_for(
        timeout=60_000)
    page.wait_for_function(IDLE, timeout=60_000)


def shoot(page, folder: Path | None, name: str) -> None:
    """Screenshots at each of :data:`SIZES` into ``folder`` (none without one)."""
    if folder is None:
        return
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        wait_idle(page)
        page.screenshot(path=str(folder / f"{name}_{width}x{height}.png"), full_page=False)


def test_the_deciding_grade_ends_the_pair_and_the_panel_agrees_with_sxs_decide(
        tmp_path: Path) -> None:
    db = tiny_store(tmp_path / "decided.duckdb", votes=3)
    shots = Path(os.environ["SXS_DECISION_SHOTS"]) if os.environ.get(
        "SXS_DECISION_SHOTS") else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    with serving(db) as (url, process), playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(f"{url}/?judge=grader")
        page.get_by_role("button", name="Left better").wait_for(timeout=90_000)
        page.locator(grade_button(DECIDING[0][1], 0)).wait_for(timeout=60_000)
        wait_idle(page)
        line = page.get_by_text("Decision on ndcg_m@2: labels undecided")  # 3 votes for B
        assert line.count() == 1
        assert page.get_by_text("question 0", exact=True).count() == 1  # q0 is served

        first, deciding = DECIDING
        click_and_wait_for_the_rerun(page, page.locator(grade_button(first[1], first[2])))
        wait_idle(page)
        assert page.get_by_text("This pair is decided").count() == 0  # not yet
        assert page.get_by_role("button", name="Left better").count() == 1
        page.locator(f"{grade_button(first[1], first[2])}[aria-pressed=true]").wait_for()
        shoot(page, shots, "judge_undecided")

        click_and_wait_for_the_rerun(page, page.locator(grade_button(deciding[1],
                                                                     deciding[2])))
        told = page.get_by_text("This pair is decided: B better")
        told.wait_for(timeout=60_000)
        assert "nothing more to judge" in told.inner_text()
        assert page.get_by_role("button", name="Left better").count() == 0
        shoot(page, shots, "judge_decided")

        page.set_viewport_size({"width": 1920, "height": 1080})
        page.get_by_role("link", name="Dashboard").click()
        panel = page.locator("[data-testid=stAlert]").filter(has_text="Labels: ")
        panel.first.wait_for(timeout=90_000)
        page.get_by_text("points: the dataset's judgments alone").wait_for(timeout=60_000)
        shown = panel.first.inner_text()
        shoot(page, shots, "dashboard_decision")
        browser.close()
        stop(process, db)

    decided = subprocess.run(
        [sys.executable, "-m", "judge_app.cli", "decide", "a", "b", "-d", DATASET,
         "-m", "ndcg_m@2", "--format", "json", "--db", str(db)],
        capture_output=True, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        timeout=120)
    assert decided.returncode == 0, decided.stderr  # decided: exit 0
    report = json.loads(decided.stdout)
    labels = report["labels"]["decisions"][0]
    assert labels["verdict"] == "b_better"
    assert (f"Labels: decided: B better (mean Δ {labels['expected']:+.4f}, certain "
            f"{labels['lower']:+.4f} .. {labels['upper']:+.4f})") in shown
    assert f"expert votes: {report['votes']['description']}" in shown
    assert labels["judged"] == 12  # the store's 10 judgments and the judge's 2 grades
