"""Issue 24: the provenance CSV's ``origin`` column held the server's path of the imported file
(an absolute path under the install folder); it now holds the file's name and the SHA-256 of
its content, recorded at import, and a grade stored before that exports only the file's name.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
from click.testing import CliRunner, Result

from judge_app.cli import main
from judge_app.store import Store
from metrics.scale import parse_scale


def sxs(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result


def test_the_origin_column_names_the_file_and_its_hash_not_the_server_path(
        tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    folder = tmp_path / "install" / "data"
    folder.mkdir(parents=True)
    first, second = folder / "first.qrels", folder / "second.qrels"
    first.write_text("q1 0 a 1\nq1 0 b 2\nq2 0 a 0\n")
    second.write_text("q1 0 a 3\n")
    sxs(db, "dataset", "create", "p", "--scale", "esci")
    sxs(db, "import", "qrels", "-d", "p", str(first.resolve()), "--force")
    sxs(db, "import", "qrels", "-d", "p", str(second.resolve()), "--on-conflict", "last",
        "--force")
    out = tmp_path / "p.csv"
    sxs(db, "export", "csv", str(out), "-d", "p")
    exported = out.read_text()
    assert str(tmp_path) not in exported
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    digest = {path.name: hashlib.sha256(path.read_bytes()).hexdigest()
              for path in (first, second)}
    origins = dict(zip(zip(table["query_id"], table["doc_id"], table["source"],
                           strict=True),
                       table["origin"], strict=True))
    assert origins[("q1", "a", "dataset")] == f"second.qrels sha256:{digest['second.qrels']}"
    assert origins[("q1", "a", "replaced")] == f"first.qrels sha256:{digest['first.qrels']}"
    assert origins[("q2", "a", "dataset")] == f"first.qrels sha256:{digest['first.qrels']}"


def test_a_grade_recorded_with_a_path_before_exports_only_the_file_name(tmp_path: Path
                                                                         ) -> None:
    db = tmp_path / "old.duckdb"
    with Store(db) as store:
        dataset = store.create_dataset("p", parse_scale("esci"))
        store.put_judgments(dataset, pd.DataFrame({"query_id": ["q1"], "doc_id": ["a"],
                                                   "grade": [2]}),
                            "/opt/sxs/install/data/old.qrels")
        store.put_judgments(dataset, pd.DataFrame({"query_id": ["q2"], "doc_id": ["a"],
                                                   "grade": [1]}),
                            "C:\\Users\\ann\\win.qrels")
    out = tmp_path / "p.csv"
    sxs(db, "export", "csv", str(out), "-d", "p")
    table = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(table["origin"]) == ["old.qrels", "win.qrels"]
