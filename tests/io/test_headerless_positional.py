"""Review finding: header detection takes positional column names for header cells.

A headerless TSV named by position (the way the error message itself recommends: "name the
columns by position (1, 2, ...)") loses its first row when that row's cells happen to equal the
positions:

    printf '1\\t2\\t3\\n1\\t5\\t0\\n2\\t7\\t1\\n' > num.tsv
    sxs import judgments -d h num.tsv --query-column 1 --doc-column 2 --grade-column 3
    -> "imported 2 judgments", exit 0: query 1 / doc 2 / grade 3 is silently dropped.

    printf '1\\t2\\n3\\tbar\\n' > q.tsv
    sxs import queries -d h q.tsv --id-column 1 --text-column 2   -> "imported 1 queries"

and refuses a headerless file whose first row merely contains one position
(`1<TAB>foo` with `--id-column 1 --text-column 2`: "missing column(s) 2").
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from click.testing import CliRunner

from judge_app.cli import main


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def test_numeric_first_row_is_data_when_columns_are_named_by_position(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    path = tmp_path / "num.tsv"
    path.write_text("1\t2\t3\n1\t5\t0\n2\t7\t1\n")
    assert sxs(db, "dataset", "create", "h", "--scale", "esci").exit_code == 0
    result = sxs(db, "import", "judgments", "-d", "h", str(path), "--query-column", "1",
                 "--doc-column", "2", "--grade-column", "3")
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        got = sorted(con.execute("select query_id, doc_id, grade from judgments").fetchall())
    assert got == [("1", "2", 3), ("1", "5", 0), ("2", "7", 1)]


def test_queries_named_by_position_keep_their_first_row(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    path = tmp_path / "q.tsv"
    path.write_text("1\t2\n3\tbar\n")
    assert sxs(db, "dataset", "create", "h", "--scale", "esci").exit_code == 0
    result = sxs(db, "import", "queries", "-d", "h", str(path), "--id-column", "1",
                 "--text-column", "2")
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        got = sorted(con.execute("select query_id, text from queries").fetchall())
    assert got == [("1", "2"), ("3", "bar")]


def test_first_row_holding_one_position_is_still_data(tmp_path: Path) -> None:
    db = tmp_path / "h.duckdb"
    path = tmp_path / "q.tsv"
    path.write_text("1\tfoo\n2\tbar\n")
    assert sxs(db, "dataset", "create", "h", "--scale", "esci").exit_code == 0
    result = sxs(db, "import", "queries", "-d", "h", str(path), "--id-column", "1",
                 "--text-column", "2")
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from queries").fetchone() == (2,)
