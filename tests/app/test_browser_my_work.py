"""Issue 25, My work, in a real browser (Debian's chromium) against `sxs serve` (invited
judges): a judge votes with a reason and grades a result, opens My work, sees both, follows
the vote's link back to the query (the "why this query came" line says they opened it),
votes again; My work then lists both votes — the new one current, the first one replaced —
and the store holds both rows.  Screenshots of My work at 1920x1080 and 1366x768 go to the
test's folder, or to ``$SXS_MYWORK_SHOTS`` when set."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from judge_app.services.demo import build_demo_store
from judge_app.services.queue import Rule
from judge_app.store import Store
from tests.app.test_browser import (
    CHROMIUM,
    FLAGS,
    IDLE,
    click_and_wait_for_the_rerun,
    serving,
    settled,
    stored,
)

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (.ci/run installs it; under CI this fails instead)")

WAIT = 60_000


def test_vote_open_my_work_follow_the_link_and_revote(tmp_path: Path) -> None:
    db = tmp_path / "mywork.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        token = store.invite_judge("mira")
    shots = Path(os.environ.get("SXS_MYWORK_SHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    with serving(db, open_mode=False) as (url, process), \
            playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(f"{url}/?token={token}")
        page.get_by_role("button", name="Left better").wait_for(timeout=WAIT)
        settled(page)
        query = re.match(r"query (\S+) ·", page.get_by_text(
            re.compile(r"^query \S+ · top")).first.inner_text()).group(1)
        card = page.locator(".cell:has(.badge.unlabelled)").first
        click_and_wait_for_the_rerun(page, card.locator(".grades button").filter(
            has_text=re.compile(r"^Useful$")))
        page.get_by_role("textbox", name="Why? (optional)").fill("left has the answer")
        page.get_by_role("button", name="Left better").click()
        page.get_by_text("Saved: Left better").wait_for(timeout=WAIT)

        page.get_by_role("link", name="My work").click()
        page.get_by_text("1 vote and 1 grade").wait_for(timeout=WAIT)
        page.get_by_text("left has the answer").wait_for(timeout=WAIT)
        links = page.get_by_role("link", name=re.compile(rf"^{re.escape(query)} · "))
        links.nth(1).wait_for(timeout=WAIT)  # the table's links may come after its text
        assert links.count() == 2  # the vote's row and the grade's
        links.first.click()
        page.get_by_text(Rule.OPENED.sentence).wait_for(timeout=WAIT)
        assert re.match(rf"query {re.escape(query)} ·", page.get_by_text(
            re.compile(r"^query \S+ · top")).first.inner_text())
        settled(page)
        page.get_by_role("button", name="About the same").click()
        page.get_by_text("Saved: About the same").wait_for(timeout=WAIT)

        page.get_by_role("link", name="My work").click()
        page.get_by_text("2 votes and 1 grade").wait_for(timeout=WAIT)
        page.get_by_text("replaced", exact=True).wait_for(timeout=WAIT)
        page.wait_for_function(IDLE, timeout=WAIT)
        for width, height in ((1920, 1080), (1366, 768)):
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function(IDLE, timeout=WAIT)
            page.screenshot(path=str(shots / f"my_work_{width}x{height}.png"))
        browser.close()
        votes, labels = stored(process, db)
    mine = votes[votes["judge"] == "mira"] if "judge" in votes else votes
    every = mine.sort_values("preference_id")
    assert every["query_id"].tolist() == [query]  # counted: the re-vote only
    assert every["choice"].tolist() == ["tie"]
    with Store(db) as store:
        history = store.preferences(store.dataset("cranfield"), include_retracted=True)
    assert history["choice"].tolist() == ["left", "tie"]
    assert history["retracted"].tolist() == [True, False]
    assert history["reason"].tolist()[0] == "left has the answer"
    assert len(labels) == 1 and labels.iloc[0]["judge"] == "mira"
