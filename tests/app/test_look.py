"""How the judge page looks to a person (issue 25), in chromium against ``sxs serve``: the vote
buttons are in the theme's calm primary colour, not Streamlit's default red (the colour of a
destructive action)."""

from __future__ import annotations

from judge_app.cli.serving import PRIMARY_COLOR
from tests.app.test_browser import CHROMIUM, FLAGS, playwright_api, server, settled  # noqa: F401

BACKGROUND = "(button) => getComputedStyle(button).backgroundColor"


def rgb(hex_color: str) -> str:
    red, green, blue = (int(hex_color[i:i + 2], 16) for i in (1, 3, 5))
    return f"rgb({red}, {green}, {blue})"


def test_the_vote_buttons_are_not_in_the_danger_colour(server) -> None:  # noqa: F811
    url, _db, _process = server
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(url)
        page.get_by_label("Your name").fill("colour judge")
        page.get_by_role("button", name="Start judging").click()
        left = page.get_by_role("button", name="Left better")
        left.wait_for(timeout=60_000)
        settled(page)
        colours = {name: page.get_by_role("button", name=name).evaluate(BACKGROUND)
                   for name in ("Left better", "Right better")}
        browser.close()
    red = "rgb(255, 75, 75)"  # Streamlit's default primary colour
    assert set(colours.values()) == {rgb(PRIMARY_COLOR)}, colours
    assert red not in colours.values()
