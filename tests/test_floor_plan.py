"""The store's floor plan (issue 21): one backend seam, no import circles, small modules.

* the package's import graph (``judge_app`` and ``metrics``) has no circle: a module reached
  through ``from package import module`` counts as an import of that module, not of the
  package's ``__init__``;
* only the backend implementations (and the one function that opens them by address) know
  which database a store is on;
* no module of ``judge_app/store`` is much over 400 lines;
* the store's file readers (``store/trec_readers.py``) name no store table.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
STORE = ROOT / "judge_app" / "store"
BACKEND_MODULES = {"duckdb_backend.py", "postgres.py", "pg_cursor.py", "pg_staging.py",
                   "pg_csv.py", "dialect.py"}
MAX_STORE_LINES = 420


def module_name(path: Path) -> str:
    name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
    return name.removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``from a import b`` names ``a.b`` when
    ``b`` is a module, else ``a``)."""
    paths = [*sorted((ROOT / "judge_app").rglob("*.py")), *sorted((ROOT / "metrics").rglob("*.py"))]
    modules = {module_name(p): p for p in paths}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                targets = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules
                           else node.module for a in node.names]
            else:
                continue
            graph[name] |= {t for t in targets if t in modules and t != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def code_of(path: Path) -> str:
    """A module's source without its comments and docstrings (what the code itself says)."""
    source = path.read_text()
    docstrings = {(n.body[0].value.lineno, n.body[0].value.end_lineno)
                  for n in ast.walk(ast.parse(source))
                  if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef))
                  and n.body and isinstance(n.body[0], ast.Expr)
                  and isinstance(n.body[0].value, ast.Constant)
                  and isinstance(n.body[0].value.value, str)}
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            continue
        if token.type == tokenize.STRING and (token.start[0], token.end[0]) in docstrings:
            continue
        kept.append(token.string)
    return " ".join(kept)


def test_the_import_graph_has_no_circle() -> None:
    assert circles(import_graph()) == []


def test_the_circle_finder_finds_a_circle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


BACKEND_WORDS = re.compile(r"\b(_pg|PostgresBackend|DuckDBBackend|is_postgres|PgCursor)\b"
                           r"|dialect\s*(\.\s*name|is\b|==|!=)|\.\s*pool\b")
# the migration runner picks each migration's text for its connection's backend by name; the
# click plan's pieces are per click engine (the store, DuckDB over files, Spark), not backend
ASKS_BY_DESIGN = {"migrations/__init__.py": ("dialect . name", "dialect is not None"),
                  "click_plan.py": ("dialect is STORE", "dialect is not STORE")}


def test_only_the_backends_know_which_backend_a_store_is_on() -> None:
    asking = []
    for path in sorted(STORE.rglob("*.py")):
        if path.name in BACKEND_MODULES:
            continue
        source = code_of(path)
        for allowed in ASKS_BY_DESIGN.get(path.relative_to(STORE).as_posix(), ()):
            source = source.replace(allowed, "")
        if path.name == "store.py":  # open_backend: the one place that picks one by address
            source = source.split("def open_backend", 1)[0] + source.split("def forward", 1)[1]
        if path.name == "model.py":  # store_address: a postgresql:// address stays text
            source = source.replace("is_postgres", "")
        asking += [f"{path.name}: {m.group(0)}" for m in BACKEND_WORDS.finditer(source)]
    for layer in ("services", "ui", "cli", "io", "llm"):
        for path in sorted((ROOT / "judge_app" / layer).rglob("*.py")):
            asking += [f"{path.relative_to(ROOT)}: {m.group(0)}"
                       for m in BACKEND_WORDS.finditer(code_of(path))]
    assert asking == []


def test_no_store_module_is_much_over_400_lines() -> None:
    long = {p.name: n for p in STORE.glob("*.py")
            if (n := len(p.read_text().splitlines())) > MAX_STORE_LINES}
    assert long == {}


def store_tables() -> set[str]:
    text = "\n".join(p.read_text() for p in STORE.rglob("*.py"))
    return set(re.findall(r"CREATE TABLE (?:IF NOT EXISTS )?(\w+)", text))


def test_the_file_readers_name_no_store_table() -> None:
    """The TREC/SMART line readers parse a file into TEMP relations and know no store table;
    what is kept of them is the loads' business (run_load.py, qrels_load.py)."""
    tables = store_tables()
    assert {"run_results", "judgments", "expert_labels", "preferences"} <= tables
    readers = STORE / "trec_readers.py"
    named = [t for t in sorted(tables) if re.search(rf"\b{t}\b", code_of(readers))]
    assert named == []


TEST_LAYERS = {"metrics", "io", "store", "services", "llm", "app", "cli", "reliability", "bench"}


def test_the_tests_mirror_the_layers() -> None:
    """A test lives with the layer it tests (``tests/<layer>/``); what a test is about, not
    who found the defect, decides where it goes."""
    folders = {d.name for d in (ROOT / "tests").iterdir()
               if d.is_dir() and not d.name.startswith(("_", "."))}
    assert folders == TEST_LAYERS
