"""One longest id on both backends (judge_app.io.ids.MAX_ID_BYTES): a DuckDB store and a
PostgreSQL store accept the same files, and refuse a longer id in one line naming the file,
line and field, whichever reader parses the file."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import InputError
from judge_app.io.ids import MAX_ID_BYTES, check_id_lengths

LONGEST = "x" * 1000  # 1,000 bytes: the most an id holds, written out by hand
FOUR_BYTES = "😀"


def sxs(db: object, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def test_the_limit_is_one_thousand_bytes_of_utf8() -> None:
    assert MAX_ID_BYTES == 1000
    lines = pd.Series([7, 8])
    check_id_lengths(pd.Series(["a", FOUR_BYTES * 250]), lines, "f.csv", "doc_id")
    with pytest.raises(InputError) as refused:
        check_id_lengths(pd.Series(["a", FOUR_BYTES * 250 + "b"]), lines, "f.csv", "doc_id")
    assert str(refused.value).startswith("f.csv, line 8, field doc_id: the id is 1,001 bytes")


@pytest.mark.parametrize("kind", ["qrels", "run"])
def test_trec_ids_longer_than_the_limit_are_refused_on_both_backends(
        store_address: object, tmp_path: Path, kind: str) -> None:
    assert sxs(store_address, "dataset", "create", "a", "--scale", "binary").exit_code == 0
    path = tmp_path / f"long.{kind}"
    line = {"qrels": "1 0 {doc} 1\n", "run": "1 Q0 {doc} 1 1.0 t\n"}[kind]
    path.write_text(line.format(doc=LONGEST) + line.format(doc="d2").replace("1 1.0", "2 0.5"))
    ok = sxs(store_address, "import", kind, "-d", "a", str(path), "--force")
    assert ok.exit_code == 0, ok.output
    path.write_text(line.format(doc="d2") + line.format(doc=LONGEST + "y").replace(
        "1 1.0", "2 0.5"))
    refused = sxs(store_address, "import", kind, "-d", "a", str(path), "--force",
                  *(["--replace"] if kind == "run" else ["--on-conflict", "last"]))
    assert refused.exit_code == 2, refused.output
    assert refused.output.strip().splitlines() == [
        f"Error: {path}, line 2, field doc_id: the id is 1,001 bytes long; an id holds at "
        "most 1,000 bytes (UTF-8)"], refused.output


def test_a_jsonl_query_id_longer_than_the_limit_is_refused_on_both_backends(
        store_address: object, tmp_path: Path) -> None:
    assert sxs(store_address, "dataset", "create", "a", "--scale", "binary").exit_code == 0
    path = tmp_path / "long.jsonl"
    path.write_text('{"query_id": "q", "doc_id": "d", "grade": 1}\n'
                    f'{{"query_id": "{FOUR_BYTES * 251}", "doc_id": "d", "grade": 0}}\n')
    refused = sxs(store_address, "import", "judgments", "-d", "a", str(path), "--force")
    assert refused.exit_code == 2, refused.output
    assert f"{path}, line 2, field query_id: the id is 1,004 bytes long" in refused.output
