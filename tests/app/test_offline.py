"""The app fetches nothing from the internet (issue 25): every request the browser makes while
a judge signs in, grades and votes goes to ``sxs serve`` itself — no font host, no icon
host, no analytics — so the app works the same on a machine without a network."""

from __future__ import annotations

from urllib.parse import urlsplit

from tests.app.test_browser import CHROMIUM, FLAGS, playwright_api, server, settled  # noqa: F401

LOCAL = {"127.0.0.1", "localhost", "[::1]", "::1"}


def test_nothing_is_fetched_from_the_internet(server) -> None:  # noqa: F811
    url, _db, _process = server
    requested: list[str] = []
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.on("request", lambda request: requested.append(request.url))
        page.goto(url)
        page.get_by_label("Your name").fill("offline judge")
        page.get_by_role("button", name="Start judging").click()
        page.get_by_role("button", name="Left better").wait_for(timeout=60_000)
        settled(page)
        page.get_by_role("button", name="Left better").click()
        page.get_by_text("Saved: Left better").wait_for(timeout=60_000)
        settled(page)
        browser.close()
    remote = sorted({u for u in requested
                     if urlsplit(u).scheme in ("http", "https", "ws", "wss")
                     and urlsplit(u).hostname not in LOCAL})
    assert requested, "the browser made no request at all"
    assert remote == []
