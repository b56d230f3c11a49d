"""Messages speak the language of the surface they appear on (issue 25): on a page, an error
names the page's control, not the command line's option.

* The Import page, in chromium against ``sxs serve``: a file whose grades are all equal is
  refused naming the "Import even if degenerate" box (it said ``--force``).
* The LLM judge page, under AppTest: a base URL that is not http(s) is refused naming the
  "Base URL" field (it said ``--base-url``).
* Every message literal of the modules whose messages reach those pages, said on the page,
  shows no option bare: each is a control of the page or named as its command's; every
  control named exists on its page; and the pages show what they surface through
  :mod:`judge_app.ui.wording` (an AST scan of the pages)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from judge_app.ui.wording import FLAG, IMPORT_PAGE, LLM_PAGE, Surface, on_page
from tests.app.test_browser import CHROMIUM, FLAGS, playwright_api, serving
from tests.signin import signed_in

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "judge_app" / "ui" / "app.py")
PAGES = ROOT / "judge_app" / "ui" / "app_pages"
WAIT = 90_000

# the modules whose messages each page shows, and the page
REACHES = {
    IMPORT_PAGE: (["judge_app/store/import_guard.py", "judge_app/services/importing.py",
                   "judge_app/store/run_load.py", "judge_app/store/trec_readers.py",
                   *[str(p.relative_to(ROOT)) for p in (ROOT / "judge_app/io").glob("*.py")]],
                  PAGES / "import_data.py"),
    LLM_PAGE: (["judge_app/services/llm_judging.py",
                *[str(p.relative_to(ROOT)) for p in (ROOT / "judge_app/llm").glob("*.py")]],
               PAGES / "llm_judge.py"),
}


def message_literals(path: Path) -> list[str]:
    """The string pieces of ``path`` outside docstrings and comments."""
    tree = ast.parse(path.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


@pytest.mark.parametrize("surface", list(REACHES), ids=lambda s: s.name)
def test_no_option_shows_bare_on_a_page(surface: Surface) -> None:
    modules, page = REACHES[surface]
    said = [on_page(text, surface) for module in modules
            for text in message_literals(ROOT / module) if FLAG.search(text)]
    assert said  # the scan sees the messages
    for text in said:
        for flag in FLAG.finditer(text):
            assert text[flag.end():].startswith(f" of the {surface.command} command"), text
    source = page.read_text()
    for control in surface.controls.values():
        label = re.search(r'"([^"]+)"', control).group(1)
        assert f'"{label}' in source, f"{surface.name} has no control {label!r}"


SURFACED = re.compile(r"^st\.(error|warning|success|info|caption|toast)$")


@pytest.mark.parametrize("surface", list(REACHES), ids=lambda s: s.name)
def test_the_pages_say_their_messages_through_the_wording(surface: Surface) -> None:
    """Every message a page shows that is not its own literal text goes through on_page, and
    its error boundary is page_errors (user_errors would show the services' words)."""
    _, page = REACHES[surface]
    tree = ast.parse(page.read_text())
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = ast.unparse(node.func)
        if name == "user_errors":
            pytest.fail(f"{page.name}:{node.lineno}: user_errors, not page_errors")
        if SURFACED.match(name):
            shown = ast.unparse(node.args[0])
            carries = re.search(r"\b(error|result|line|message|job)\b", shown)
            assert not carries or "on_page(" in shown, f"{page.name}:{node.lineno}: {shown}"


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("words") / "words.duckdb"
    with Store(path) as store:
        build_demo_store(store)
    return path


def test_the_llm_page_names_the_base_url_field(db: Path, monkeypatch) -> None:
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = signed_in(AppTest.from_file(APP, default_timeout=60), db, "llm-admin", admin=True)
    at.run()
    at.switch_page("app_pages/llm_judge.py").run()
    assert not at.exception
    at.text_input(key="llm:base_url").input("ftp://127.0.0.1:1/v1")
    at.text_input(key="llm:model").input("tiny")
    next(b for b in at.button if b.label == "Start").click().run()
    for _ in range(50):  # the run fails in its thread at once; the page shows it on a rerun
        shown = [e.value for e in at.error]
        if shown:
            break
        at.run()
    assert any('The "Base URL" field must start with http' in text.replace("\\", "")
               for text in shown), shown
    assert not any("--base-url" in text for text in shown)


def test_the_import_page_names_the_degenerate_box(tmp_path: Path) -> None:
    db = tmp_path / "served.duckdb"  # the AppTest above holds its store open in this process
    with Store(db) as store:
        build_demo_store(store)
        token = store.invite_judge("import-admin", admin=True)
    same = tmp_path / "same.qrels"
    same.write_text("1 0 184 1\n1 0 29 1\n2 0 12 1\n2 0 15 1\n")
    with serving(db, open_mode=False) as (url, _process), \
            playwright_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1366, "height": 900})
        page.goto(f"{url}/?token={token}")
        page.get_by_role("link", name="Import").click()
        page.get_by_text("Import even if degenerate").wait_for(timeout=WAIT)
        page.locator("input[type=file]").set_input_files(str(same))
        page.get_by_role("button", name="Import", exact=True).click()
        error = page.get_by_test_id("stAlertContentError")
        error.wait_for(timeout=WAIT)
        said = error.text_content()
        browser.close()
    assert 'ticking "Import even if degenerate" imports it anyway' in said, said
    assert "--force" not in said
