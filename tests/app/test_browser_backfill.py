"""The Backfill page serves the decision order, end to end in a real browser (issue 22, items 2
and 4): Debian's chromium driven by Playwright against ``sxs serve --open`` on a fresh
Cranfield demo store (its round serves backfill by ``decision``).

Before serving, ``sxs backfill next title bm25 -d cranfield --batch 1 --format tsv`` names the
pair to grade first.  A judge opens the Backfill page and grades the pair it serves; once the
server stopped, the store holds exactly one grade: that pair's, with ``judging_policy``
``decision``.  Screenshots of the page at 1920x1080 and 1366x768 go to
``$SXS_BACKFILL_SHOTS`` when set.
"""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.app.test_browser import (
    CHROMIUM,
    FLAGS,
    click_and_wait_for_the_rerun,
    playwright_api,
    serving,
    stored,
)
from tests.app.test_browser_decision import SIZES, wait_idle

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists() and not os.environ.get("CI"),
                                reason="Debian chromium is not installed")


def first_to_grade(db: Path) -> tuple[str, str]:
    """The first line of ``sxs backfill next title bm25 -d cranfield --batch 1 --format tsv``
    (the command line's own process, as an assessor would run it)."""
    out = subprocess.run(
        [sys.executable, "-m", "judge_app.cli", "backfill", "next", "title", "bm25", "-d",
         "cranfield", "--batch", "1", "--format", "tsv", "--db", str(db)],
        capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert out.returncode == 0, out.stderr
    frame = pd.read_csv(io.StringIO(out.stdout), sep="\t", dtype=str)
    assert len(frame) == 1
    return frame["query_id"].iloc[0], frame["doc_id"].iloc[0]


def test_the_backfill_page_serves_first_the_pair_sxs_backfill_next_names(
        tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    with Store(db) as store:
        build_demo_store(store)
    expected = first_to_grade(db)
    shots = Path(os.environ["SXS_BACKFILL_SHOTS"]) if os.environ.get(
        "SXS_BACKFILL_SHOTS") else None
    if shots is not None:
        shots.mkdir(parents=True, exist_ok=True)
    with serving(db) as (url, process), playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1920, "height": 1080})
        page.goto(url)
        page.get_by_label("Your name").fill("filler")
        page.get_by_role("button", name="Start judging").click()
        page.get_by_role("link", name="Backfill labels").click()
        card = page.get_by_text(re.compile(r"^Query \S+ · weight"))
        card.wait_for(timeout=90_000)
        wait_idle(page)
        assert card.inner_text().split(" ")[1] == expected[0]
        assert page.get_by_text(re.compile(r"order: decision")).count() == 1
        if shots is not None:
            for width, height in SIZES:
                page.set_viewport_size({"width": width, "height": height})
                wait_idle(page)
                page.screenshot(path=str(shots / f"backfill_{width}x{height}.png"))
        click_and_wait_for_the_rerun(page, page.get_by_role("button", name="Useful"))
        wait_idle(page)
        browser.close()
        _, labels = stored(process, db)
    assert len(labels) == 1
    label = labels.iloc[0]
    assert (label["query_id"], label["doc_id"]) == expected
    assert (label["judge"], label["grade"]) == ("filler (unverified)", 2)
    assert label["judging_policy"] == "decision"
