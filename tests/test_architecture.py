"""The layers keep data flowing one way: io → store → (app | metrics) → export.

* ``metrics`` is pure computation: numeric libraries only, never ``judge_app``, streamlit or
  duckdb;
* SQL and duckdb live in ``judge_app/store`` only;
* ``io`` reads and writes formats and imports neither the store nor the services nor the UI;
* the store imports no service and no UI; the services import no UI;
* the pages and the CLI write through the same service functions, never the store directly.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
APP = ROOT / "judge_app"


def modules_of(path: Path) -> set[str]:
    """Every module a file imports, dotted, with ``from X import Y`` giving X and X.Y."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*.py"))


def offending(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return [f"{p.relative_to(ROOT)} imports {m}" for p in paths for m in sorted(modules_of(p))
            if m.split(".")[0] in forbidden or m.startswith(forbidden)]


def test_metrics_imports_only_numeric_and_standard_libraries() -> None:
    assert not offending(files(ROOT / "metrics"), ("judge_app", "streamlit", "duckdb",
                                                   "click", "altair", "httpx"))


DUCKDB_PARSERS = {APP / "io" / "trec_readers.py"}
"""io modules that parse files with DuckDB (naming no store table: tests/test_floor_plan.py)."""


def test_sql_and_duckdb_live_in_the_store_only() -> None:
    outside = [p for p in files(APP) if "store" not in p.relative_to(APP).parts]
    assert not offending(outside, ("duckdb", "psycopg"))
    for path in outside:
        assert ".execute(" not in path.read_text(), path


@pytest.mark.parametrize("layer, forbidden", [
    ("io", ("judge_app.store", "judge_app.services", "judge_app.ui", "judge_app.cli",
            "streamlit")),
    ("store", ("judge_app.services", "judge_app.ui", "judge_app.cli", "streamlit")),
    ("services", ("judge_app.ui", "judge_app.cli", "streamlit")),
    ("llm", ("judge_app.store", "judge_app.services", "judge_app.ui", "judge_app.cli",
             "streamlit")),
])
def test_lower_layers_never_import_higher_ones(layer: str, forbidden: tuple[str, ...]) -> None:
    assert not offending(files(APP / layer), forbidden)


def _named(node: ast.AST) -> str | None:
    """The name a ``Name`` or ``Attribute`` node spells (``x`` or ``....x``)."""
    if isinstance(node, ast.Name):
        return node.id
    return node.attr if isinstance(node, ast.Attribute) else None


def _self_calls(body: ast.AST) -> set[str]:
    """Methods a body calls on its own object: ``self.m(...)`` and, for a facade over
    repositories, ``self.part.m(...)``."""
    found = set()
    for node in ast.walk(body):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            owner = node.func.value
            if isinstance(owner, ast.Attribute):
                owner = owner.value
            if isinstance(owner, ast.Name) and owner.id == "self":
                found.add(node.func.attr)
    return found


def _function_calls(body: ast.AST) -> set[str]:
    """Functions a body calls by name, bare (``f(...)``) or from a module (``mod.f(...)``)."""
    return {_named(node.func) for node in ast.walk(body)
            if isinstance(node, ast.Call) and _named(node.func)}


BACKEND_PLUMBING = {"backend.py", "duckdb_backend.py", "postgres.py", "pg_cursor.py",
                    "pg_staging.py", "transactions.py"}


def store_writers() -> set[str]:
    """Every method of every class in ``judge_app/store`` (any module, any depth) that writes:
    its body opens a transaction — mentions a name with ``transaction`` in it
    (``self._transaction()``, ``transaction_on(cur)``, ``conn.transaction()``, a transaction
    factory handed on) — or calls a writing method of its own object or a writing function of
    a store module.  Derived from the syntax, so a method the store gains is covered by what
    it does, whatever its name."""
    methods: list[ast.FunctionDef] = []
    functions: list[ast.FunctionDef] = []
    for path in files(APP / "store"):
        if path.name in BACKEND_PLUMBING:  # transactions themselves, not the store's methods
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                methods += [item for cls in ast.walk(node) if isinstance(cls, ast.ClassDef)
                            for item in cls.body if isinstance(item, ast.FunctionDef)]
            elif isinstance(node, ast.FunctionDef):
                functions.append(node)

    def opens_transaction(body: ast.AST) -> bool:
        return any("transaction" in (_named(node) or "").lower() or _named(node) == "begin"
                   for node in ast.walk(body))

    writers = {m.name for m in methods if opens_transaction(m)}
    writing_functions = {f.name for f in functions if opens_transaction(f)}
    grown = True
    while grown:  # until no method or function calls a writer it was not counted for
        before = len(writers) + len(writing_functions)
        writers |= {m.name for m in methods if _self_calls(m) & writers
                    or _function_calls(m) & writing_functions}
        writing_functions |= {f.name for f in functions
                              if _function_calls(f) & writing_functions}
        grown = len(writers) + len(writing_functions) > before
    return writers


def _modules_named(tree: ast.AST) -> set[str]:
    """The names a file binds by importing (``import x.y`` binds x; ``from x import y``, y)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names |= {alias.asname or alias.name for alias in node.names}
    return names


def store_writes(path: Path, writers: set[str]) -> list[str]:
    """Calls of a store's writing method in a file, on whatever object (``store.m(...)``,
    ``resources.store().m(...)``, ``opened.m(...)``), but not a module's function of the same
    name (``importing.create_dataset(...)`` is the service)."""
    tree = ast.parse(path.read_text())
    modules = _modules_named(tree)
    return [f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(node.func)}"
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in writers
            and not (isinstance(node.func.value, ast.Name) and node.func.value.id in modules)]


def test_the_store_writers_are_found_by_what_they_do() -> None:
    """The writers the name prefixes used to miss are found, and reads are not counted."""
    writers = store_writers()
    assert {"invite_judge", "revoke_judge", "release_view", "set_round", "cast_vote",
            "sign_in", "put_run", "create_dataset", "session_judge"} <= writers
    assert not {"judges", "preferences", "dataset", "_frame", "session_idle_seconds"} & writers


def test_pages_and_cli_write_through_the_services_only() -> None:
    writers = store_writers()
    callers = [*files(APP / "ui"), *files(APP / "cli")]
    assert not [w for path in callers for w in store_writes(path, writers)]


def service_calls(path: Path, module: str) -> set[str]:
    """Names used as ``module.name`` in a file (e.g. ``importing.import_run``)."""
    return {node.attr for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
            and node.value.id == module}


@pytest.mark.parametrize("page, module", [("import_data.py", "importing"),
                                          ("export_data.py", "exporting"),
                                          ("settings.py", "importing")])
def test_admin_pages_call_the_functions_the_cli_calls(page: str, module: str) -> None:
    used_by_page = service_calls(APP / "ui" / "app_pages" / page, module)
    assert used_by_page, f"{page} calls no {module} function"
    used_by_cli = set().union(*(service_calls(path, module) for path in files(APP / "cli")))
    assert used_by_page <= used_by_cli


HEAVY = ("pandas", "numpy", "scipy", "duckdb", "streamlit", "httpx", "pyarrow")


@pytest.mark.parametrize("args", [None, [], ["--help"], ["evaluate", "--help"],
                                  ["compare", "--help"], ["measures", "--help"]],
                         ids=lambda a: "import" if a is None else " ".join(["sxs", *a]))
def test_the_command_line_starts_without_the_heavy_libraries(args: list[str] | None) -> None:
    """``import judge_app.cli``, ``sxs --help`` and ``sxs evaluate --help`` load click and the
    vocabularies only: pandas, numpy, scipy, DuckDB and Streamlit load inside the command that
    needs them (start-up time, issue 12)."""
    run = "" if args is None else (
        "import contextlib, io; from judge_app.cli import main\n"
        f"with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    main({args!r})\n")
    code = (f"import sys, judge_app.cli\n{run}"
            f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=ROOT).stdout.split()
    assert loaded == []


def test_no_module_imports_another_modules_private_names() -> None:
    """A name starting with ``_`` is its module's own; a helper two modules share gets a
    public home (as ``judge_app.services.phases.say`` did for the imports and click logs)."""
    private = [f"{path.relative_to(ROOT)} imports {node.module}.{alias.name}"
               for path in files(APP) + files(ROOT / "metrics")
               for node in ast.walk(ast.parse(path.read_text()))
               if isinstance(node, ast.ImportFrom) and node.module
               and node.module.split(".")[0] in ("judge_app", "metrics")
               for alias in node.names if alias.name.startswith("_")]
    assert not private


PLUMBING = re.compile(r"\.backend\b|\.(transaction|executemany)\(")


def test_pages_cli_and_services_never_reach_past_the_store_facade() -> None:
    """The store's backend (its cursors and transactions) is the store's own: the layers above
    call the facade's methods, so every write is a store method the writer scan can see."""
    reaching = [f"{path.relative_to(ROOT)}:{n}: {m.group(0)}"
                for layer in ("ui", "cli", "services") for path in files(APP / layer)
                for n, line in enumerate(path.read_text().splitlines(), 1)
                for m in PLUMBING.finditer(line)]
    assert reaching == []
