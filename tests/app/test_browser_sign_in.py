"""Issue 25, "sign-in links never expire", in two real browsers (Debian's chromium, separate
processes, so separate cookie jars) against `sxs serve` (invited judges only).

* browser 1 opens alice's link and is signed in; reloading, or opening the link again, keeps
  it signed in;
* browser 2 opens the same link and is told in one line that it was used and to ask an admin;
  it is not signed in;
* the server is stopped, browser 1's session is made idle for longer than the expiry (its
  last use moved back in the store), the server started again: browser 1 is told it was
  signed out and asked to sign in.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.app.test_browser import CHROMIUM, FLAGS, serving, stop

playwright_api = pytest.importorskip("playwright.sync_api")
pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists() and not os.environ.get("CI"),
    reason="Debian chromium is not installed (.ci/run installs it; under CI this fails instead)")

WAIT = 60_000


def signed_in_as(page, name: str) -> None:
    page.get_by_text("queries judged by you").wait_for(timeout=WAIT)
    page.get_by_text(f"Judging as {name}").wait_for(timeout=WAIT)


def test_a_link_signs_in_one_browser_and_an_idle_session_ends(tmp_path: Path) -> None:
    db = tmp_path / "signin.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        token = store.invite_judge("alice")
    with playwright_api.sync_playwright() as pw:
        first = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        second = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        laptop = first.new_page(viewport={"width": 1366, "height": 768})
        with serving(db, open_mode=False) as (url, process):
            link = f"{url}/?token={token}"
            laptop.goto(link)
            signed_in_as(laptop, "alice")
            laptop.wait_for_function("document.cookie.includes('sxs_session=')", timeout=WAIT)

            other = second.new_page(viewport={"width": 1366, "height": 768})
            other.goto(link)  # the same link in another browser
            other.get_by_text("this sign-in link was already used").wait_for(timeout=WAIT)
            other.get_by_text("ask an admin for a new one").first.wait_for(timeout=WAIT)
            other.get_by_text("Sign in with the link").wait_for(timeout=WAIT)
            assert not other.get_by_text("queries judged by you").count()
            assert not other.get_by_text("Judging as").count()

            laptop.reload()  # the browser that used the link stays signed in
            signed_in_as(laptop, "alice")
            laptop.goto(link)  # and opening its link again is no error
            signed_in_as(laptop, "alice")
            assert not laptop.locator("[data-testid=stAlertContentError]").count()
            stop(process, db)

        with Store(db) as store, store.backend.transaction() as cur:  # a walk of four days
            cur.execute("UPDATE sign_ins SET last_seen_at = last_seen_at - INTERVAL 4 DAY")
        with serving(db, open_mode=False) as (url, _process):
            laptop.goto(url)  # same host: the cookie is sent
            laptop.get_by_text("you were away for more than 3 days").wait_for(timeout=WAIT)
            laptop.get_by_text("Sign in with the link").wait_for(timeout=WAIT)
            assert not laptop.get_by_text("queries judged by you").count()
        first.close()
        second.close()
