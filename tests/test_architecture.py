"""Data flows one way: metrics is pure computation, and SQL lives in the store only."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_metrics_imports_only_numeric_libraries() -> None:
    allowed = {"numpy", "pandas", "scipy", "metrics", "__future__", "collections", "dataclasses",
               "typing", "re", "functools", "itertools", "math", "enum"}
    for path in sorted((ROOT / "metrics").rglob("*.py")):
        extra = imports_of(path) - allowed
        assert not extra, f"{path.relative_to(ROOT)} imports {sorted(extra)}"


def test_sql_and_duckdb_live_in_the_store_only() -> None:
    for path in sorted((ROOT / "judge_app").rglob("*.py")):
        if "store" in path.relative_to(ROOT).parts:
            continue
        assert "duckdb" not in imports_of(path), path
        assert ".execute(" not in path.read_text(), path


def test_io_never_imports_the_store() -> None:
    for path in sorted((ROOT / "judge_app" / "io").rglob("*.py")):
        assert not any(name.startswith("judge_app.store") for name in _modules(path)), path


def _modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    return {node.module for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom) and node.module}
