"""Security rules that can be checked by reading the code, each a test.

1. No user-controlled text is rendered as HTML: no ``unsafe_allow_html``, ``st.html`` or
   components anywhere in the app but two reviewed files (our own style sheet and scripts;
   the results grid, whose script sets every text with ``textContent`` and parses no
   markup), and every value interpolated into a Streamlit text call is passed through
   ``plain()`` (markdown escaped), or is a number (format spec, len/int/float).
2. Uploads happen only on the admin import page, with a size limit.
3. No judge can change or delete another judge's labels or votes: the store never UPDATEs or
   DELETEs expert labels or preferences (undo appends a retraction of one's own vote), never
   upserts over them, and never drops or truncates a table.
4. Secrets are read in one place and never printed or logged.
(CSV formula injection is guarded on export: tests/services/test_exports.py.)

Each rule is a scan function over a list of files that returns its findings as
``"path:line: what"``, and reads every file whole (the whole text, every AST node).  The tests at
the bottom plant one violation at the very end of a large copy of a real module and check that
each scan reports it on that last line — a scan that stopped early would miss it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "judge_app"
TEXT_CALLS = {"markdown", "caption", "subheader", "header", "title", "write", "success",
              "error", "info", "warning", "toast", "text", "badge", "metric"}
TEXT_KEYWORDS = {"body", "label", "value", "help"}  # keyword arguments a text call renders
# plain() escapes; number() formats a float
SAFE_CALLS = {"plain", "len", "int", "float", "number"}
RAW_HTML = re.compile(r"unsafe_allow_html|\bst\.html\(|components\.v[12]|st\.components|"
                      r"streamlit\.components|from\s+streamlit\s+import[^\n]*\bcomponents\b")
UPLOAD = "file_uploader("
# Tables holding judges' work: appended to, never rewritten.
JUDGES_WORK = {"expert_labels", "preferences", "preference_retractions"}
# Tables the store may UPDATE or DELETE FROM: re-imports of a dataset's own files, and the
# records of who is signed in and which query is leased to whom (not anybody's judgment).
REWRITABLE = {"runs", "run_results", "judgments", "judges", "sign_ins", "views",
              "consensus_labels"}  # the last: Dawid-Skene's grades, recomputed from the labels
TABLE = r"(\"?[\w{}]+\"?)"  # an identifier, or an f-string placeholder (shown as {})
UPDATE = re.compile(rf"\bUPDATE\s+{TABLE}\s+(?:AS\s+)?(?:\w+\s+)?SET\b", re.IGNORECASE)
DELETE = re.compile(rf"\bDELETE\s+FROM\s+{TABLE}", re.IGNORECASE)
DROP_OR_TRUNCATE = re.compile(rf"\b(?:DROP\s+TABLE|TRUNCATE(?:\s+TABLE)?)\s+(?:IF\s+EXISTS\s+)?"
                              rf"{TABLE}", re.IGNORECASE)
CREATE_TEMP = re.compile(rf"\bCREATE\s+(?:OR\s+REPLACE\s+)?TEMP(?:ORARY)?\s+TABLE\s+{TABLE}",
                         re.IGNORECASE)
INSERT = re.compile(rf"\bINSERT\s+(?:OR\s+\w+\s+)?INTO\s+{TABLE}", re.IGNORECASE)
REPLACE_INTO = re.compile(rf"\b(?:INSERT\s+OR\s+REPLACE|REPLACE)\s+INTO\s+{TABLE}",
                          re.IGNORECASE)
SECRET_OUTPUT = re.compile(r"(print|echo|log\w*)\([^)]*secret", re.IGNORECASE)


def python_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def _where(path: Path, line: int) -> str:
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    return f"{shown}:{line}"


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# -- the scans ------------------------------------------------------------------------------


def raw_html_uses(paths: Iterable[Path]) -> list[str]:
    """Every place that could render raw HTML, anywhere in each file."""
    found = []
    for path in paths:
        text = path.read_text()
        found += [f"{_where(path, _line_of(text, m.start()))}: {m.group()}"
                  for m in RAW_HTML.finditer(text)]
    return found


def _is_safe(argument: ast.expr) -> bool:
    """An escaping or numeric call, a module constant (UPPER_CASE: our own literals), None, or
    a conditional whose every branch is one of those."""
    if isinstance(argument, ast.IfExp):
        return all(_is_safe(b) or _is_literal_text(b) for b in (argument.body, argument.orelse))
    if isinstance(argument, ast.Name):
        return argument.id.isupper()
    if isinstance(argument, ast.Constant):
        return argument.value is None
    return isinstance(argument, ast.Call) and getattr(argument.func, "id", "") in SAFE_CALLS


def _is_literal_text(argument: ast.expr) -> bool:
    """A literal, or an f-string whose every field is safe or formatted numerically."""
    if isinstance(argument, ast.Constant):
        return True
    return isinstance(argument, ast.JoinedStr) and all(
        part.format_spec is not None or _is_safe(part.value)
        for part in argument.values if isinstance(part, ast.FormattedValue))


def unsafe_interpolations(paths: Iterable[Path]) -> list[str]:
    """Values put into a Streamlit text call that are neither escaped (``plain()``) nor
    numeric: a non-literal argument, or an f-string field without a format spec."""
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in TEXT_CALLS):
                continue
            arguments = node.args + [k.value for k in node.keywords if k.arg in TEXT_KEYWORDS]
            for argument in arguments:
                if not isinstance(argument, ast.Constant | ast.JoinedStr) and not _is_safe(
                        argument):
                    found.append(f"{_where(path, argument.lineno)}: {ast.unparse(argument)}")
                    continue
                for part in ast.walk(argument):
                    if (isinstance(part, ast.FormattedValue) and part.format_spec is None
                            and not _is_safe(part.value)):
                        found.append(f"{_where(path, part.lineno)}: {ast.unparse(part.value)}")
    return found


def uploaders(paths: Iterable[Path]) -> list[str]:
    """Every file upload widget."""
    found = []
    for path in paths:
        text = path.read_text()
        found += [_where(path, _line_of(text, m.start()))
                  for m in re.finditer(re.escape(UPLOAD), text)]
    return found


def _sql_strings(path: Path) -> Iterable[tuple[int, str]]:
    """(line, text) of every string literal in the file; an f-string's fields read ``{}``."""
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.JoinedStr):
            yield node.lineno, "".join(
                part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.lineno, node.value


def _sql_finding(path: Path, line: int, sql: str, match: re.Match, why: str) -> str:
    at = line + sql.count("\n", 0, match.start())
    return f"{_where(path, at)}: {why}: {' '.join(match.group().split())[:80]}"


def _copied_first(sql: str, drop: re.Match) -> bool:
    """A migration that rebuilds a table: the same statement copied every row of it into a
    TEMP table before dropping it (and puts them back after)."""
    table = re.escape(drop.group(1).strip('"'))
    return bool(re.search(rf"\bCREATE\s+TEMP(?:ORARY)?\s+TABLE\s+\w+\s+AS\s+SELECT\s+\*\s+"
                          rf"FROM\s+{table}\b", sql[:drop.start()], re.IGNORECASE))


def _temp_schema(sql: str, match: re.Match) -> bool:
    """The table is qualified by PostgreSQL's ``pg_temp.``: only a temporary table can be
    named there."""
    return match.group(1).lower() == "pg_temp" and sql[match.end():match.end() + 1] == "."


def rewrites_of_judges_work(paths: Iterable[Path]) -> list[str]:
    """SQL that could change or remove what a judge wrote: an UPDATE or DELETE of any table
    but the re-importable ones and an import's TEMP tables, an upsert or REPLACE into judges'
    tables, or any DROP TABLE / TRUNCATE but of a TEMP table the same files create (an
    import's scratch space).  A table
    named by an f-string field counts as not allowed."""
    found = []
    paths = list(paths)
    scratch = {m.group(1).strip('"').lower() for path in paths for _, sql in _sql_strings(path)
               for m in CREATE_TEMP.finditer(sql)} - JUDGES_WORK
    for path in paths:
        for line, sql in _sql_strings(path):
            for pattern in (UPDATE, DELETE):
                found += [_sql_finding(path, line, sql, m, "rewrites a table")
                          for m in pattern.finditer(sql)
                          if m.group(1).strip('"').lower() not in REWRITABLE | scratch]
            found += [_sql_finding(path, line, sql, m, "drops or truncates a table")
                      for m in DROP_OR_TRUNCATE.finditer(sql)
                      if m.group(1).strip('"').lower() not in scratch
                      and not _temp_schema(sql, m) and not _copied_first(sql, m)]
            found += [_sql_finding(path, line, sql, m, "replaces judges' work")
                      for m in REPLACE_INTO.finditer(sql)
                      if m.group(1).strip('"').lower() in JUDGES_WORK | {"{}"}]
            found += [_sql_finding(path, line, sql, m, "upserts over judges' work")
                      for m in INSERT.finditer(sql)
                      if m.group(1).strip('"').lower() in JUDGES_WORK | {"{}"}
                      and re.search(r"\bDO\s+UPDATE\b", sql[m.start():].split(";")[0],
                                    re.IGNORECASE)]
    return found


def secret_leaks(paths: Iterable[Path]) -> list[str]:
    """Reads of ``st.secrets``, and any print/echo/log call or logging module near a secret."""
    found = []
    for path in paths:
        text = path.read_text()
        found += [f"{_where(path, _line_of(text, m.start()))}: reads st.secrets"
                  for m in re.finditer(r"st\.secrets", text)]
        found += [f"{_where(path, _line_of(text, m.start()))}: outputs a secret"
                  for m in SECRET_OUTPUT.finditer(text)]
        if "logging" in text and "secret" in text:
            found.append(f"{_where(path, _line_of(text, text.index('logging')))}: "
                         "logging in a file that handles secrets")
    return found


def _files(findings: list[str]) -> list[str]:
    return sorted({finding.split(":")[0] for finding in findings})


# -- the rules, on the app ------------------------------------------------------------------


# Our own style sheet and the scroll-to-top script are the only raw HTML, drawn in one reviewed
# place from constants and a view token stripped to [0-9A-Za-z_-] — never user text.
COMPONENTS = APP / "ui" / "components.py"


# The judge page's results grid: one st.components.v2 component, its script and style sheet
# string literals, its data sent as JSON and drawn as text.
GRID = APP / "ui" / "results_grid.py"


def test_no_raw_html_anywhere_in_the_app() -> None:
    assert raw_html_uses(p for p in python_files(APP) if p not in (COMPONENTS, GRID)) == []


def test_the_raw_html_scan_sees_every_way_to_import_components(tmp_path: Path) -> None:
    for line in ("from streamlit.components.v2 import component",
                 "import streamlit.components.v1 as c", "from streamlit import components",
                 "st.components.v2.component('x')"):
        planted = tmp_path / "page.py"
        planted.write_text(f"import streamlit as st\n{line}\n")
        assert raw_html_uses([planted]), line


# What the grid's script may do, as allow-lists: the only elements it makes, the only
# attributes and properties it sets, the only calls on ``document``; and what it may never
# name at all (each a way to run a string, load something, or write markup or style).
GRID_TAGS = {"div", "p", "span", "strong", "button"}
GRID_ATTRIBUTES = {"aria-pressed", "role", "aria-label"}
GRID_PROPERTIES = {"className", "textContent", "type", "title", "sxsGrades", "sxsSeq"}
GRID_DOCUMENT_CALLS = {"createElement", "createTextNode"}
GRID_FORBIDDEN = re.compile(
    r"\b(?:eval|Function|setTimeout|setInterval|location|cssText|style|innerHTML|outerHTML|"
    r"insertAdjacent\w*|setHTML\w*|parseHTML\w*|write|writeln|import|fetch|XMLHttpRequest|"
    r"WebSocket|Worker|srcdoc|href|src|action|DOMParser|createContextualFragment|"
    r"adoptedStyleSheets|styleSheets|cookie|window|globalThis|self|top|parent|opener|"
    r"postMessage|attachShadow|open|Reflect|Object|Proxy|ownerDocument|getRootNode|"
    r"defineProperty|prototype|constructor|__proto__|\w+NS)\b")
CSS_FORBIDDEN = re.compile(r"url\(|@import|expression\(|behavior\s*:", re.IGNORECASE)
JS_KEYWORDS = {"const", "let", "var", "return", "of", "in", "typeof", "case", "else", "do"}


def _js_code(source: str) -> tuple[str, list[str]]:
    """``source`` with the text of its string literals blanked (a template's ``${…}`` kept as
    code), and the string literals' texts."""
    code, strings, i = [], [], 0
    while i < len(source):
        char = source[i]
        if char in "'\"`":
            j, text = i + 1, []
            while j < len(source) and source[j] != char:
                if source[j] == "\\":
                    text.append(source[j:j + 2])
                    j += 2
                    continue
                if char == "`" and source.startswith("${", j):
                    end = source.index("}", j)
                    code.append(" " + source[j + 2:end] + " ")
                    j = end + 1
                    continue
                text.append(source[j])
                j += 1
            strings.append("".join(text))
            code.append(char + " " * (j - i - 1) + char)
            i = j + 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = len(source) if end < 0 else end
        else:
            code.append(char)
            i += 1
    return "".join(code), strings


def grid_script_findings(js: str) -> list[str]:
    """Everything in the grid's script outside the allow-lists above."""
    code, _ = _js_code(js)
    found = [f"names {m.group()}" for m in GRID_FORBIDDEN.finditer(code)]
    for m in re.finditer(r"\b(?:createElement|element)\(\s*([^,)]*)", js):
        tag = m.group(1).strip()
        if tag == "tag" and m.group().startswith("createElement"):
            continue  # the one helper, whose every call is checked here
        if tag.strip("'\"") not in GRID_TAGS or tag[:1] not in "'\"":
            found.append(f"makes element {tag}")
    if len(re.findall(r"createElement\(\s*tag\s*\)", js)) > 1:
        found.append("more than one createElement(tag)")
    for m in re.finditer(r"setAttribute\(\s*([^,)]*)", js):
        if m.group(1).strip()[:1] not in "'\"" or m.group(1).strip("'\" ") not in (
                GRID_ATTRIBUTES):
            found.append(f"sets attribute {m.group(1).strip()}")
    for m in re.finditer(r"((?:\.[A-Za-z_$][\w$]*)+)\s*(?:[-+*/|&]?=)(?!=)", code):
        chain = m.group(1).split(".")
        if chain[-2:-1] != ["dataset"] and chain[-1] not in GRID_PROPERTIES:
            found.append(f"sets property {chain[-1]}")
    found += [f"computed key {m.group()}" for m in re.finditer(r"\]\s*:", code)]
    for m in re.finditer(r"\bdocument\s*\.\s*(\w+)", code):
        if m.group(1) not in GRID_DOCUMENT_CALLS:
            found.append(f"calls document.{m.group(1)}")
    for m in re.finditer(r"([\w$)\]])\s*\[([^\]]*)\]", code):
        word = re.search(r"[\w$]*$", code[:m.start() + 1]).group()
        if word in JS_KEYWORDS or re.fullmatch(r"\s*\d+\s*", m.group(2)):
            continue
        found.append(f"computed member [{m.group(2).strip()}]")
    return found


def component_findings(path: Path) -> list[str]:
    """In the results grid's module: any component call other than
    ``st.components.v2.component(name, css=NAME, js=NAME)`` where each NAME is a module-level
    string literal, an ``html`` argument, any other raw HTML call, a CSS that could load
    something, and whatever the script does outside :func:`grid_script_findings`."""
    text = path.read_text()
    tree = ast.parse(text)
    literals = {t.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
                and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
                for t in node.targets if isinstance(t, ast.Name)}
    bad = [f"{_where(path, _line_of(text, m.start()))}: {m.group()}"
           for m in RAW_HTML.finditer(text) if m.group() != "st.components"]
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and "components" in ast.unparse(n.func)]
    mentions = sum((isinstance(n, ast.Attribute) and n.attr == "components")
                   or (isinstance(n, ast.Name) and n.id == "components")
                   or (isinstance(n, (ast.Import, ast.ImportFrom))
                       and "components" in ast.unparse(n)) for n in ast.walk(tree))
    if len(calls) != 1 or mentions != 1 or ast.unparse(calls[0].func) != (
            "st.components.v2.component"):
        bad.append(f"{path.name}: components used other than as one "
                   "st.components.v2.component(...) call")
    for call in calls:
        if call.args[1:] or {k.arg for k in call.keywords} != {"css", "js"}:
            bad.append(f"{_where(path, call.lineno)}: component arguments other than css, js")
        for keyword in call.keywords:
            if not (isinstance(keyword.value, ast.Name) and keyword.value.id in literals):
                bad.append(f"{_where(path, call.lineno)}: component {keyword.arg} is not a "
                           "string literal")
            elif keyword.arg == "js":
                bad += [f"{path.name}: script {f}"
                        for f in grid_script_findings(literals[keyword.value.id])]
            elif keyword.arg == "css":
                bad += [f"{path.name}: css {m.group()}"
                        for m in CSS_FORBIDDEN.finditer(literals[keyword.value.id])]
    return bad


def test_the_results_grid_draws_data_as_text_only() -> None:
    assert component_findings(GRID) == []


JS_PLANT = "  grid.replaceChildren(...rows);"


@pytest.mark.parametrize(("planted", "found"), [
    ("grid.innerHTML = data.rows.at(0).at(0).title;", "names innerHTML"),
    ("grid['inner' + 'HTML'] = data.view;", "computed member"),
    ("grid[data.view] = 1;", "computed member [data.view]"),
    ("row.insertAdjacentHTML('beforeend', data.view);", "names insertAdjacentHTML"),
    ("grid.appendChild(document.createElement('script')).textContent = data.view;",
     "makes element 'script'"),
    ("grid.appendChild(element('style', null, data.view));", "makes element 'style'"),
    ("grid.appendChild(element(data.view, null, 'x'));", "makes element data.view"),
    ("grid.setAttribute('onclick', data.view);", "sets attribute 'onclick'"),
    ("const name = data.view; grid.setAttribute(name, 'x');", "sets attribute name"),
    ("Function(data.view)();", "names Function"),
    ("setTimeout(data.view);", "names setTimeout"),
    ("grid.style.cssText = data.view;", "names style"),
    ("location = data.view;", "names location"),
    ("grid.onclick = data.view;", "sets property onclick"),
    ("document.body.append(data.view);", "calls document.body"),
    ("const link = element('a', null, 'x'); link.href = data.view;", "makes element 'a'"),
    ("import(data.view);", "names import"),
    # a second reviewer's bypasses of the first version of this rule
    ("Reflect.set(grid, 'inner' + 'HTML', data.view);", "names Reflect"),
    ("Object.assign(grid, {['inner' + 'HTML']: data.view});", "computed key"),
    ("grid.appendChild(parentElement.ownerDocument.createElementNS('x', 'script'));",
     "names ownerDocument"),
    ("grid.setAttributeNS(null, 'onclick', data.view);", "names setAttributeNS"),
])
def test_the_results_grid_check_can_fail(tmp_path: Path, planted: str, found: str) -> None:
    text = GRID.read_text()
    assert JS_PLANT in text
    copy = tmp_path / "results_grid.py"
    copy.write_text(text.replace(JS_PLANT, f"  {planted}\n{JS_PLANT}", 1))
    assert any(found in finding for finding in component_findings(copy)), (
        component_findings(copy))


@pytest.mark.parametrize(("change", "found"), [
    (("css=_CSS, js=_JS)", "html=TITLE, css=_CSS, js=_JS)"), "arguments other than css, js"),
    (("css=_CSS, js=_JS)", "css=_CSS, js=_JS + extra)"), "js is not a string literal"),
    (('_GRID = st.components', '_JS2 = open("x.js").read()\n_GRID = st.components'),
     None),
    (("css=_CSS, js=_JS)", "css=_CSS, js=_JS2)"), "js is not a string literal"),
    (("\n_GRID = st.components", "\nfrom streamlit.components.v2 import component as c"
      "\n_GRID = st.components"), "components used other than"),
    ((":host { display: block; }", ":host { background: url(//x.example/a.png); }"),
     "css url("),
])
def test_the_results_grid_check_sees_how_the_component_is_made(
        tmp_path: Path, change: tuple[str, str], found: str | None) -> None:
    text = GRID.read_text()
    assert change[0] in text
    copy = tmp_path / "results_grid.py"
    copy.write_text(text.replace(change[0], change[1], 1))
    findings = component_findings(copy)
    if found is None:  # a name bound to code that reads a file is harmless until used
        assert findings == []
    else:
        assert any(found in f for f in findings), findings


def html_arguments_are_constants(path: Path) -> list[str]:
    """``st.html`` calls whose argument holds anything but module constants and ``token``
    (which the same file must build with ``re.sub`` keeping only [0-9A-Za-z_-])."""
    tree = ast.parse(path.read_text())
    constants = {t.id for node in tree.body if isinstance(node, ast.Assign)
                 for t in node.targets if (isinstance(t, ast.Name) and t.id.isupper())
                 or (isinstance(t, ast.Name) and t.id.startswith("_") and t.id[1:].isupper())}
    bad = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "html"):
            names = {n.id for arg in node.args for n in ast.walk(arg) if isinstance(n, ast.Name)}
            if not names <= constants | {"token"}:
                bad.append(f"{path.name}:{node.lineno}: st.html of {sorted(names - constants)}")
    if "token" in path.read_text() and 're.sub(r"[^0-9A-Za-z_-]", "", ' not in path.read_text():
        bad.append(f"{path.name}: token is not stripped to [0-9A-Za-z_-]")
    return bad


def test_the_one_place_with_raw_html_draws_only_constants() -> None:
    assert html_arguments_are_constants(COMPONENTS) == []


def test_the_raw_html_check_can_fail(tmp_path: Path) -> None:
    planted = tmp_path / "components.py"
    planted.write_text(COMPONENTS.read_text() + "\n\ndef leak(title):\n    st.html(title)\n")
    assert html_arguments_are_constants(planted) == ["components.py:"
                                                    f"{planted.read_text().count(chr(10))}: "
                                                    "st.html of ['title']"]


def test_every_interpolated_value_is_escaped_or_numeric() -> None:
    assert unsafe_interpolations(python_files(APP / "ui")) == []


def test_uploads_only_on_the_admin_import_page_with_a_limit() -> None:
    assert _files(uploaders(python_files(APP))) == ["judge_app/ui/app_pages/import_data.py"]
    page = (APP / "ui" / "app_pages" / "import_data.py").read_text()
    assert "max_upload_size=" in page
    app = (APP / "ui" / "app.py").read_text()
    assert re.search(r'if judge\.admin:\s+pages\["Admin"\]', app)  # the verified judge's role


# Deleting a run or a dataset on the user's explicit, confirmed command (sxs delete) is the one
# place the store removes rows; it lives in its own module, reached only through the service.
DELETION = APP / "store" / "deletion.py"


def test_the_store_never_rewrites_or_deletes_judges_work() -> None:
    assert rewrites_of_judges_work(p for p in python_files(APP / "store")
                                   if p != DELETION) == []


def test_deletion_is_reached_only_through_the_confirmed_service() -> None:
    callers = [p.relative_to(ROOT).as_posix() for p in python_files(APP)
               if re.search(r"\bstore\.(delete_run|delete_dataset)\(", p.read_text())]
    assert callers == ["judge_app/services/deletion.py"]


def test_secrets_are_read_in_one_place_and_never_printed() -> None:
    findings = secret_leaks(python_files(APP))
    assert all(f.endswith(": reads st.secrets") for f in findings), findings
    assert _files(findings) == ["judge_app/ui/resources.py"]


# -- the scans read whole files: a violation planted at the end of a large copy is found -----

LARGEST_PAGE = max(python_files(APP / "ui"), key=lambda p: p.stat().st_size)
LARGEST_STORE_MODULE = max(python_files(APP / "store"), key=lambda p: p.stat().st_size)
PLANTED = {
    "raw html": (raw_html_uses, LARGEST_PAGE,
                 'st.markdown("<b>x</b>", unsafe_allow_html=True)'),
    "unescaped f-string field": (unsafe_interpolations, LARGEST_PAGE,
                                 'st.caption(f"query: {query_text}")'),
    "unescaped argument": (unsafe_interpolations, LARGEST_PAGE, "st.metric('Judge', judge)"),
    "unescaped keyword": (unsafe_interpolations, LARGEST_PAGE,
                          "st.metric(label='Judge', value=judge)"),
    "upload": (uploaders, LARGEST_PAGE, 'st.file_uploader("more")'),
    "delete a vote": (rewrites_of_judges_work, LARGEST_STORE_MODULE,
                      'con.execute("DELETE FROM preferences WHERE judge = ?", [judge])'),
    "update a label": (rewrites_of_judges_work, LARGEST_STORE_MODULE,
                       'con.execute("""UPDATE expert_labels l\n    SET grade = 0""")'),
    "update a named table": (rewrites_of_judges_work, LARGEST_STORE_MODULE,
                             'con.execute(f"UPDATE {table} SET grade = 0")'),
    "upsert a label": (rewrites_of_judges_work, LARGEST_STORE_MODULE,
                       'con.execute("INSERT INTO expert_labels VALUES (?) '
                       'ON CONFLICT (client_token) DO UPDATE SET grade = 0", [1])'),
    "drop": (rewrites_of_judges_work, LARGEST_STORE_MODULE,
             'con.execute("DROP TABLE IF EXISTS preferences")'),
    "truncate": (rewrites_of_judges_work, LARGEST_STORE_MODULE,
                 'con.execute("TRUNCATE expert_labels")'),
    "print a secret": (secret_leaks, LARGEST_PAGE, "print(api_secret)"),
}


def _large_copy(model: Path, copies: int = 4) -> str:
    """The module ``copies`` times over (one ``from __future__`` line, at the top)."""
    text = model.read_text()
    body = text.replace("from __future__ import annotations\n", "")
    return "\n".join([text] + [body] * (copies - 1)) + "\n"


@pytest.mark.parametrize("case", sorted(PLANTED))
def test_a_violation_at_the_end_of_a_large_file_is_found(case: str, tmp_path: Path) -> None:
    scan, model, violation = PLANTED[case]
    copy = tmp_path / model.name
    copy.write_text(_large_copy(model))
    clean = set(scan([copy]))
    copy.write_text(_large_copy(model) + "\n" + violation + "\n")
    text = copy.read_text()
    assert len(text) > 3 * len(model.read_text()) > 3_000
    line = text.count("\n") - violation.count("\n")  # the violation's first line, at the end
    new = set(scan([copy])) - clean
    assert new, f"{scan.__name__} missed {violation!r} on the last line of {len(text):,} chars"
    assert {finding.split(":")[:2] == [str(copy), str(line)] for finding in new} == {True}, new


def test_the_store_rule_allows_what_the_store_does(tmp_path: Path) -> None:
    # append-only writes, idempotent inserts and re-imports of a dataset's own files are fine
    allowed = tmp_path / "allowed.py"
    allowed.write_text(
        'con.execute("INSERT INTO preferences VALUES (?) ON CONFLICT (client_token) '
        'DO NOTHING", [1])\n'
        'con.execute("DELETE FROM run_results WHERE run_id = ?", [1])\n'
        'con.execute(f"UPDATE judgments j SET grade = {keep}, source = ?", [1])\n'
        'con.execute("INSERT INTO queries SELECT * FROM q ON CONFLICT (dataset_id, query_id) '
        'DO UPDATE SET text = excluded.text")\n')
    assert rewrites_of_judges_work([allowed]) == []
