"""Issue 23 in a real browser (Debian's chromium, Playwright) against one ``sxs serve`` on the
demo store: gold pairs mixed into a judge's queue at the round's rate (``gold_every`` = 2: one
in each block of two, at the judge's hashed place), unmarked — nothing on the page says gold,
and the view looks like any other — and scored: the judge report counts the gold pairs the
judge voted on.  Then an admin follows the Judges page's link to the judge's figures, excludes
the judge from the dashboard's Judges section, the dashboard says whom it leaves out, and the
judge's labels leave the filled set."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pandas as pd
import pytest

from judge_app.services import gold_queue, judging
from judge_app.services.demo import DEMO_DATASET, build_demo_store
from judge_app.services.judge_report import judge_report
from judge_app.services.queue import Rule
from judge_app.store import Store
from tests.app.test_browser import CHROMIUM, FLAGS, serving, stop
from tests.app.test_browser_trust import shown_query

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (.ci/run installs it; under CI this fails instead)")

WAIT = 60_000
VOTES = 6
JUDGE = "jo"


def build(db: Path) -> dict:
    with Store(db) as store:
        build_demo_store(store)
        dataset = store.dataset(DEMO_DATASET)
        store.set_round(dataset, "title", "bm25", k=10, overlap=1, blind=True, by="admin",
                        gold_every=2)
        order = judging.query_order(store, dataset, "title", "bm25", 10)
        queue = judging.plan_from(store, dataset, order, "title", "bm25", JUDGE).queue
        gold = queue[5:5 + VOTES]  # more gold pairs than the judge's gold slots
        store.mark_gold_pairs(dataset, pd.DataFrame({
            "query_id": gold, "run_a": "title", "run_b": "bm25", "preferred_run": "bm25"}),
            "file")
        top = store.ranked_labels(dataset, "bm25", 10)
        unjudged = top[~top["labelled"].astype(bool)].head(2)
        store.append_expert_labels(dataset, unjudged[["query_id", "doc_id"]].assign(
            grade=2, judge=JUDGE), "test")
        filled = store.filled_judgments(dataset)
        labelled = set(zip(unjudged["query_id"], unjudged["doc_id"], strict=True))
        assert len(labelled) == 2 and labelled <= set(zip(filled["query_id"], filled["doc_id"],
                                                          strict=True))
        tokens = {name: store.invite_judge(name, admin=name == "admin")
                  for name in ("admin", JUDGE)}
    return {"gold": set(gold), "tokens": tokens, "labelled": labelled}


def sign_in(browser, url: str, token: str):
    page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
    page.goto(f"{url}/?token={token}")
    page.wait_for_function("document.cookie.includes('sxs_session=')", timeout=WAIT)
    return page


def test_gold_arrives_unmarked_at_the_rate_scores_and_exclusion_is_shown(tmp_path) -> None:
    db = tmp_path / "gold.duckdb"
    made = build(db)
    with serving(db, open_mode=False) as (url, process), \
            playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        judge = sign_in(browser, url, made["tokens"][JUDGE])
        judge.get_by_text("queries judged by you").wait_for(timeout=WAIT)
        served = []
        for done in range(VOTES):
            # the count moves with the vote; the next query's caption follows a moment later
            query = shown_query(judge)
            deadline = time.monotonic() + WAIT / 1000
            while served and query == served[-1] and time.monotonic() < deadline:
                judge.wait_for_timeout(100)
                query = shown_query(judge)
            served.append(query)
            body = judge.locator("body").inner_text()
            assert "gold" not in body.lower() and "known" not in body.lower()
            assert any(rule.sentence in body for rule in Rule)  # an ordinary rule
            # the page drops a vote sent within DOUBLE_SUBMIT_SECONDS (0.4 s) of the last one
            # (judge.py: nobody judges a query that fast); a judge reads first
            judge.wait_for_timeout(600)
            judge.get_by_role("button", name="Left better").click()
            judge.get_by_text(re.compile(rf"^{done + 1} of \d+ queries")).first.wait_for(
                timeout=WAIT)
        assert len(set(served)) == VOTES
        slots = [i for i in range(VOTES) if gold_queue.is_gold_slot(JUDGE, i, 2)]
        assert [i for i, q in enumerate(served) if q in made["gold"]] == slots
        assert len(slots) == VOTES // 2

        admin = sign_in(browser, url, made["tokens"]["admin"])
        admin.get_by_role("link", name="Judges", exact=True).click()
        admin.get_by_role("link", name=JUDGE, exact=True).click()  # their figures
        admin.get_by_text(f"Figures of {JUDGE}").wait_for(timeout=WAIT)
        box = admin.get_by_role("combobox", name="Judge", exact=True)
        box.click()
        box.fill(JUDGE)
        admin.keyboard.press("Enter")
        admin.get_by_role("button", name="Exclude", exact=True).click()
        admin.get_by_text(f"Left out of every figure: judges {JUDGE} (excluded)").wait_for(
            timeout=WAIT)
        browser.close()
        stop(process, db)
    with Store(db) as store:
        dataset = store.dataset(DEMO_DATASET)
        figures, _ = judge_report(store, dataset)
        assert figures.loc[JUDGE, "gold_pairs"] == len(slots)  # scored, left always
        assert bool(figures.loc[JUDGE, "excluded"])
        filled = store.filled_judgments(dataset)
        assert not made["labelled"] & set(zip(filled["query_id"], filled["doc_id"],
                                              strict=True))
