"""Security rules that can be checked by reading the code, each a test.

1. No user-controlled text is rendered as HTML: no ``unsafe_allow_html``, ``st.html`` or
   components anywhere in the app, and every value interpolated into a Streamlit text call is
   passed through ``plain()`` (markdown escaped), or is a number (format spec, len/int/float).
2. Uploads happen only on the admin import page, with a size limit.
3. No judge can change or delete another judge's labels or votes: the store never UPDATEs or
   DELETEs expert labels or preferences (undo appends a retraction of one's own vote).
4. Secrets are read in one place and never printed or logged.
(CSV formula injection is guarded on export: tests/test_exports.py.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "judge_app"
TEXT_CALLS = {"markdown", "caption", "subheader", "header", "title", "write", "success",
              "error", "info", "warning", "toast", "text", "badge", "metric"}
SAFE_CALLS = {"plain", "len", "int", "float"}


def python_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def test_no_raw_html_anywhere_in_the_app() -> None:
    for path in python_files(APP):
        source = path.read_text()
        assert "unsafe_allow_html" not in source, path
        assert not re.search(r"\bst\.html\(|components\.v1|st\.components", source), path


def _unsafe_interpolations(path: Path) -> list[str]:
    problems = []
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in TEXT_CALLS):
            continue
        for argument in node.args:
            if not isinstance(argument, ast.Constant | ast.JoinedStr) and not (
                    isinstance(argument, ast.Call)
                    and getattr(argument.func, "id", "") in SAFE_CALLS):
                problems.append(f"{path.relative_to(ROOT)}:{argument.lineno} "
                                f"{ast.unparse(argument)}")
                continue
            for part in ast.walk(argument):
                if not isinstance(part, ast.FormattedValue):
                    continue
                value = part.value
                if part.format_spec is not None:
                    continue
                if isinstance(value, ast.Call) and getattr(value.func, "id", "") in SAFE_CALLS:
                    continue
                problems.append(f"{path.relative_to(ROOT)}:{part.lineno} "
                                f"{ast.unparse(value)}")
    return problems


def test_every_interpolated_value_is_escaped_or_numeric() -> None:
    problems = [p for path in python_files(APP / "ui") for p in _unsafe_interpolations(path)]
    assert not problems, problems


def test_uploads_only_on_the_admin_import_page_with_a_limit() -> None:
    uploaders = [path for path in python_files(APP) if "file_uploader(" in path.read_text()]
    assert [p.relative_to(APP).as_posix() for p in uploaders] == ["ui/app_pages/import_data.py"]
    page = (APP / "ui" / "app_pages" / "import_data.py").read_text()
    assert "max_upload_size=" in page
    app = (APP / "ui" / "app.py").read_text()
    assert re.search(r'if judge in resources\.admins\(\):\s+pages\["Admin"\]', app)


def test_the_store_never_rewrites_or_deletes_judges_work() -> None:
    sql = "\n".join(p.read_text() for p in python_files(APP / "store"))
    statements = re.findall(r"\b(UPDATE|DELETE FROM)\s+(\w+)\s", sql)
    statements = [(verb, table) for verb, table in statements if table != "SET"]
    touched = {table for _, table in statements}
    assert touched <= {"runs", "run_results", "judgments"}, touched
    assert not re.search(r"\bDROP\b|\bTRUNCATE\b", sql.split("def apply_migrations")[0]
                         .split("0001_initial")[0])


def test_secrets_are_read_in_one_place_and_never_printed() -> None:
    readers = [p for p in python_files(APP) if "st.secrets" in p.read_text()]
    assert [p.relative_to(APP).as_posix() for p in readers] == ["ui/resources.py"]
    for path in python_files(APP):
        source = path.read_text()
        assert not re.search(r"(print|echo|log\w*)\([^)]*secret", source, re.IGNORECASE), path
        assert "logging" not in source or "secret" not in source, path
