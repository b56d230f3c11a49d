"""The results grid's own script (judge_app/ui/results_grid.py ``_JS``), run in Debian's
chromium on a blank page with the arguments Streamlit gives it, so that each rule of the
browser side is tried exactly: doc ids that are names of JavaScript's own object properties,
a burst of clicks before the server answers, a redraw while clicks are pending, a doc both
runs show, a click on the chosen grade."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_app.ui.results_grid import _JS
from tests.app.test_browser import CHROMIUM, FLAGS, playwright_api

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason="Debian chromium is not installed")

# Mounts the script on #host with ``data`` and records every state it sends.
MOUNT = """async ([source, data]) => {
  if (!window.sxsGrid) {
    const url = URL.createObjectURL(new Blob([source], {type: 'text/javascript'}));
    window.sxsGrid = (await import(url)).default;
  }
  window.sxsSent = window.sxsSent || [];
  const host = document.getElementById('host');
  window.sxsGrid({data, parentElement: host,
                  setStateValue: (name, value) => window.sxsSent.push([name, value])});
}"""

TRICKY = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "d1"]


def row(rank: int, doc: str) -> dict:
    return {"rank": rank, "doc": doc, "title": f"title {doc}", "badge": ["unlabelled", "x"],
            "shared": None, "snippet": ""}


def data(rows: list[list], selected=(), acked: int = 0, view: str = "v1") -> dict:
    return {"view": view, "full": False, "heads": None, "acked": acked,
            "scale": [[0, "Bad"], [1, "Fair"], [2, "Good"]], "selected": list(selected),
            "rows": rows}


TRICKY_ROWS = [[row(n + 1, doc), row(n + 1, TRICKY[-1 - n])] for n, doc in enumerate(TRICKY)]


@pytest.fixture(scope="module")
def page():
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        opened = browser.new_page()
        yield opened
        browser.close()


@pytest.fixture
def grid(page):
    """A fresh #host; returns mount(data) and clicks(selector, grade) helpers."""
    page.set_content("<div id='host'></div>")
    page.evaluate("() => { window.sxsSent = []; }")

    def mount(shown: dict) -> None:
        page.evaluate(MOUNT, [_JS, shown])

    def pressed() -> list[tuple[str, str, str]]:
        return [tuple(found) for found in page.evaluate("""() => [...document.querySelectorAll(
            '.grades button[aria-pressed=true]')].map(b => [b.closest('.rank').dataset.rank,
            b.closest('.cell').dataset.doc, b.textContent])""")]

    def sent() -> list:
        return page.evaluate("() => window.sxsSent")

    return mount, pressed, sent


def click(page, rank: int, side: str, grade: str) -> None:
    page.locator(f'.rank[data-rank="{rank}"] .cell.{side} button').filter(
        has_text=grade).click()


def test_doc_ids_named_like_object_properties_draw_and_grade(page, grid) -> None:
    mount, pressed, sent = grid
    mount(data(TRICKY_ROWS))
    assert page.locator(".rank").count() == len(TRICKY)
    assert page.locator(".cell.left").evaluate_all("c => c.map(e => e.dataset.doc)") == TRICKY
    for rank in range(1, len(TRICKY) + 1):
        click(page, rank, "left", "Fair")
    last = sent()[-1]
    assert last[0] == "grades" and last[1]["view"] == "v1" and last[1]["seq"] == len(TRICKY)
    assert last[1]["grades"] == [[doc, 1] for doc in TRICKY]
    # each doc is on both sides (mirrored): both of its groups show the grade
    assert sorted(pressed()) == sorted(
        [(str(n + 1), doc, "Fair") for n, doc in enumerate(TRICKY)]
        + [(str(n + 1), TRICKY[-1 - n], "Fair") for n in range(len(TRICKY))])


def test_a_burst_of_clicks_sends_every_grade_in_its_last_state(page, grid) -> None:
    mount, _, sent = grid
    rows = [[row(n, f"d{n}"), None] for n in range(1, 9)]
    mount(data(rows))
    page.evaluate("""() => { for (const cell of document.querySelectorAll('.cell.left'))
        cell.querySelector('button[data-grade="2"]').click(); }""")  # one task: no answer
    states = [value for name, value in sent() if name == "grades"]
    assert [s["seq"] for s in states] == list(range(1, 9))
    assert states[-1]["grades"] == [[f"d{n}", 2] for n in range(1, 9)]
    assert page.locator(".cell.right .empty").count() == 8  # "No result at this rank."


def test_a_redraw_keeps_pending_clicks_then_shows_what_the_server_stored(page, grid) -> None:
    mount, pressed, sent = grid
    rows = [[row(1, "a"), row(1, "b")]]
    mount(data(rows))
    click(page, 1, "left", "Good")  # seq 1
    click(page, 1, "right", "Bad")  # seq 2
    mount(data(rows, selected=[["a", 2]], acked=1))  # the server has applied seq 1 only
    assert sorted(pressed()) == [("1", "a", "Good"), ("1", "b", "Bad")]
    mount(data(rows, selected=[["a", 2]], acked=2))  # seq 2 applied; b was not stored
    assert pressed() == [("1", "a", "Good")]
    click(page, 1, "left", "Good")  # the chosen grade again: withdrawn
    assert sent()[-1][1] == {"view": "v1", "seq": 3, "grades": [["a", None]]}
    assert pressed() == []


def test_a_new_view_starts_from_the_servers_grades(page, grid) -> None:
    mount, pressed, sent = grid
    mount(data([[row(1, "a"), None]]))
    click(page, 1, "left", "Good")
    mount(data([[row(1, "a"), None]], view="v2"))  # the next query (same doc, new view)
    assert pressed() == []
    click(page, 1, "left", "Fair")
    assert sent()[-1][1]["view"] == "v2" and sent()[-1][1]["grades"] == [["a", 1]]


def test_a_grade_given_is_the_badge_at_once_unless_the_dataset_labelled_it(page, grid
                                                                           ) -> None:
    """Issue 25: the badge said "unlabelled" after a grade until the next query.  It shows
    the judge's grade at the click (no server answer yet), keeps it on the server's redraw,
    goes back when the grade is withdrawn; a result the dataset labelled keeps its badge."""
    mount, _, _ = grid
    labelled = {**row(1, "b"), "badge": ["relevant", "Fair"], "takes_grade": False}
    rows = [[{**row(1, "a"), "badge": ["unlabelled", "unlabelled"], "takes_grade": True},
             labelled]]
    badge = page.locator(".cell.left .badge")
    mount(data(rows))
    assert badge.text_content() == "unlabelled"
    click(page, 1, "left", "Good")
    click(page, 1, "right", "Bad")
    assert badge.text_content() == "Good (yours)"
    assert badge.get_attribute("class") == "badge expert"
    assert page.locator(".cell.right .badge").text_content() == "Fair"
    mount(data(rows, selected=[["a", 2], ["b", 0]], acked=2))  # what the server stored
    assert badge.text_content() == "Good (yours)"
    click(page, 1, "left", "Good")  # withdrawn
    assert badge.text_content() == "unlabelled"


def test_titles_and_ids_are_text(page, grid) -> None:
    mount = grid[0]
    hostile = "<img src=x onerror=\"window.sxsInjected=1\">"
    shown = data([[{**row(1, hostile), "title": hostile, "snippet": hostile,
                    "badge": ["unlabelled", hostile], "shared": hostile}, None]])
    shown["heads"] = [hostile, hostile]
    mount(shown)
    assert page.locator("img").count() == 0
    assert page.locator(".title").text_content() == f"1. {hostile}"
    assert page.evaluate("() => window.sxsInjected ?? null") is None


def test_a_regraded_doc_moves_to_the_end_of_the_state(page, grid) -> None:
    mount, _, sent = grid
    mount(data([[row(1, "a"), row(1, "b")]]))
    click(page, 1, "left", "Good")
    click(page, 1, "right", "Fair")
    click(page, 1, "left", "Bad")
    assert sent()[-1][1]["grades"] == [["b", 1], ["a", 0]]  # the order the server stores


def test_a_grid_drawn_anew_never_reuses_a_seq_the_server_applied(page, grid) -> None:
    mount, pressed, sent = grid
    rows = [[row(1, "a"), row(1, "b")]]
    mount(data(rows))
    click(page, 1, "left", "Good")  # seq 1
    page.evaluate("() => document.getElementById('host').replaceChildren()")
    mount(data(rows, selected=[["a", 2], ["b", 1]], acked=5))  # another tab of the past
    assert sorted(pressed()) == [("1", "a", "Good"), ("1", "b", "Fair")]
    click(page, 1, "right", "Bad")
    assert sent()[-1][1]["seq"] == 6
    mount(data(rows, selected=[["a", 2], ["b", 1]], acked=5))  # seq 6 still pending
    assert sorted(pressed()) == [("1", "a", "Good"), ("1", "b", "Bad")]


# Records every DOM write that could create markup, script or style, whatever the code
# that makes it looks like (the static allow-list in test_security.py reads the code).
RECORD_DOM_WRITES = """() => {
  window.sxsDom = [];
  const record = (entry) => window.sxsDom.push(entry);
  for (const name of ['setAttribute', 'setAttributeNS', 'setAttributeNode', 'insertAdjacentHTML',
                      'insertAdjacentElement', 'setHTMLUnsafe', 'toggleAttribute']) {
    const original = Element.prototype[name];
    if (!original) continue;
    Element.prototype[name] = function (...args) {
      record([name, String(args[name === 'setAttributeNS' ? 1 : 0])]);
      return original.apply(this, args);
    };
  }
  for (const name of ['createElement', 'createElementNS']) {
    const original = Document.prototype[name];
    Document.prototype[name] = function (...args) {
      record([name, String(args[name === 'createElementNS' ? 1 : 0]).toLowerCase()]);
      return original.apply(this, args);
    };
  }
  for (const [proto, prop] of [[Element.prototype, 'innerHTML'], [Element.prototype, 'outerHTML'],
                               [ShadowRoot.prototype, 'innerHTML'],
                               [HTMLElement.prototype, 'innerText'],
                               [HTMLElement.prototype, 'outerText'],
                               [CSSStyleDeclaration.prototype, 'cssText']]) {
    const found = Object.getOwnPropertyDescriptor(proto, prop);
    Object.defineProperty(proto, prop, {...found, set(value) {
      record(['set', prop]);
      return found.set.call(this, value);
    }});
  }
  for (const name of ['setProperty']) {
    const original = CSSStyleDeclaration.prototype[name];
    CSSStyleDeclaration.prototype[name] = function (...args) {
      record([name, String(args[0])]);
      return original.apply(this, args);
    };
  }
}"""


def test_the_script_writes_only_allowed_elements_and_attributes(page, grid) -> None:
    from tests.reliability.test_security import GRID_ATTRIBUTES, GRID_TAGS

    mount, _, _ = grid
    page.evaluate(RECORD_DOM_WRITES)
    hostile = "<img src=x onerror=\"window.sxsInjected=1\">"
    rows = [[{**row(n, f"{hostile}{n}"), "title": hostile, "snippet": hostile,
              "badge": ["unlabelled", hostile], "shared": hostile},
             row(n, "constructor") if n == 1 else None] for n in (1, 2)]
    shown = {**data(rows), "heads": [hostile, hostile]}
    mount(shown)
    click(page, 1, "left", "Good")
    click(page, 2, "left", "Fair")
    mount({**shown, "full": True, "selected": [[f"{hostile}1", 2]], "acked": 1})
    writes = page.evaluate("() => window.sxsDom")
    made = {tag for kind, tag in writes if kind.startswith("createElement")}
    attributes = {name for kind, name in writes if kind.startswith("setAttribute")}
    assert made and made <= GRID_TAGS
    assert attributes and attributes <= GRID_ATTRIBUTES
    assert {kind for kind, _ in writes} <= {"createElement", "setAttribute"}
    assert page.evaluate("() => window.sxsInjected ?? null") is None
