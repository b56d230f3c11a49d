"""How the pages look to a person (issue 25), in chromium against one ``sxs serve`` of the demo
store: the judge page starts at the top of the window (no empty header above the progress
bar), a grade just given is the result's badge at once, and the judging round on Settings
fits a laptop's screen (1366x768) above the fold, its button included."""

from __future__ import annotations

import re

import pytest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.app.test_browser import (
    CHROMIUM,
    FLAGS,
    click_and_wait_for_the_rerun,
    playwright_api,
    serving,
    settled,
)

WAIT = 90_000
TOP_MAX = 40  # px from the top of the window to the top of the progress bar


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = tmp_path_factory.mktemp("look") / "look.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        tokens = {name: store.invite_judge(name, admin=True)
                  for name in ("wide", "laptop", "settings")}
    with serving(db) as (url, _process), playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield {"url": url, "tokens": tokens, "browser": browser}
        browser.close()


def signed_in(served, name: str, width: int, height: int):
    page = served["browser"].new_context(
        viewport={"width": width, "height": height}).new_page()
    page.goto(f"{served['url']}/?token={served['tokens'][name]}")
    page.get_by_role("button", name="Left better").wait_for(timeout=WAIT)
    settled(page)
    return page


@pytest.mark.parametrize(("name", "width", "height"),
                         [("wide", 1920, 1080), ("laptop", 1366, 768)])
def test_the_judge_page_starts_at_the_top_and_a_grade_is_the_badge_at_once(
        served, name: str, width: int, height: int) -> None:
    page = signed_in(served, name, width, height)
    bar = page.locator("[data-testid=stProgress]").first.bounding_box()
    assert bar["y"] <= TOP_MAX, f"the progress bar starts {bar['y']:.0f} px down"
    # the header went transparent, not away: its menu still opens
    page.get_by_test_id("stMainMenuButton").click()
    page.get_by_test_id("stMainMenuPopover").wait_for(timeout=WAIT)
    page.keyboard.press("Escape")

    doc = page.locator(".cell:has(.badge.unlabelled)").first.get_attribute("data-doc")
    card = page.locator(f'.cell[data-doc="{doc}"]').first
    badge = card.locator(".badge").first
    useful = card.locator(".grades button").filter(has_text="Useful")
    useful.click()
    assert badge.text_content() == "Useful (yours)"  # at the click
    page.wait_for_function("() => !document.querySelector('[data-testid=stStatusWidget]')",
                           timeout=WAIT)
    assert badge.text_content() == "Useful (yours)"  # and after the server's redraw
    click_and_wait_for_the_rerun(page, useful)  # the grade taken back
    assert badge.text_content() == "unlabelled"
    page.context.close()


def test_the_judging_round_fits_a_laptop_screen_on_settings(served) -> None:
    """At 1366x768 every field of the round and its button are on screen when Settings
    opens (it was one field per line: the button was below the fold)."""
    page = signed_in(served, "settings", 1366, 768)  # a sign-in link is used once
    page.get_by_role("link", name="Settings").click()
    start = page.get_by_role("button", name="Start this round")
    start.wait_for(timeout=WAIT)
    fields = [page.get_by_role("combobox", name=re.compile(r"Baseline \(A\)")),
              page.get_by_role("combobox", name=re.compile(r"Candidate \(B\)")),
              *(page.get_by_role("spinbutton", name=name) for name in (
                  "Depth k", "Judges per query", "Lease (idle minutes)")),
              page.get_by_text("Blind", exact=True), start]
    for found in fields:
        box = found.bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 768, box
    page.context.close()
