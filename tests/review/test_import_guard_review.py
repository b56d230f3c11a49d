"""Review findings on the degenerate-import guard and ``--normalize-ids`` (issue 12).

1. (fixed: the refusal now names the order that works) The fix the refusal named did not work
   as named.  Run ids ``AB CD …``, qrels ``ab cd …``:
   "lc.qrels: no overlap: … 4 are when both sides use --normalize-ids lower: import this file
   and re-import the runs with it".  Importing this file with ``--normalize-ids lower`` (the
   first step given) is refused with the very same line; only the reverse order (runs first)
   or ``--force`` gets through.
2. (fixed: merging the user asked for is not counted) An explicit ``--on-conflict`` — the
   user saying pairs repeat, e.g. two assessors' qrels — was refused as ">10% of lines merged
   as duplicates; check the query and doc id columns": a legitimate file refused for a wrong
   reason.
3. (fixed: docs, queries and expert labels are guarded too) ``import docs`` (and
   ``import queries``) with ids that match none of the runs' ids but all
   of them after stripping zero padding import silently (issue 12: "a guard on every import …
   no doc-id overlap with the dataset's runs/docs"): the judge page then shows no titles.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
from click.testing import CliRunner

from judge_app.cli import main


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def test_the_named_normalize_fix_works_in_the_order_given(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    run = tmp_path / "uc.trec"
    run.write_text("1 Q0 AB 1 3 r\n1 Q0 CD 2 2 r\n2 Q0 EF 1 1 r\n2 Q0 GH 2 1 r\n")
    qrels = tmp_path / "lc.qrels"
    qrels.write_text("1 0 ab 1\n1 0 cd 2\n2 0 ef 0\n2 0 gh 1\n")
    assert sxs(db, "dataset", "create", "c", "--scale", "0=a,1=b,2=c").exit_code == 0
    assert sxs(db, "import", "run", "-d", "c", str(run), "--name", "r").exit_code == 0
    refused = sxs(db, "import", "qrels", "-d", "c", str(qrels))
    assert refused.exit_code == 2 and "--normalize-ids lower" in refused.output
    assert "re-import the runs with it first, then this file with it" in refused.output
    assert sxs(db, "import", "run", "-d", "c", str(run), "--name", "r", "--replace",
               "--normalize-ids", "lower").exit_code == 0
    followed = sxs(db, "import", "qrels", "-d", "c", str(qrels), "--normalize-ids", "lower")
    assert followed.exit_code == 0, followed.output


def test_explicit_conflict_policy_is_not_refused_as_duplicates(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 12 1 3 r\n1 Q0 35 2 2 r\n2 Q0 7 1 1 r\n2 Q0 8 2 1 r\n")
    qrels = tmp_path / "two_assessors.qrels"
    qrels.write_text("1 0 12 1\n1 0 12 2\n1 0 35 2\n1 0 35 1\n"
                     "2 0 7 0\n2 0 7 1\n2 0 8 1\n2 0 8 0\n")
    assert sxs(db, "dataset", "create", "m", "--scale", "0=a,1=b,2=c").exit_code == 0
    assert sxs(db, "import", "run", "-d", "m", str(run), "--name", "r").exit_code == 0
    result = sxs(db, "import", "qrels", "-d", "m", str(qrels), "--on-conflict", "max")
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert sorted(con.execute("select doc_id, grade from judgments").fetchall()) == [
            ("12", 2), ("35", 2), ("7", 1), ("8", 1)]


def test_padded_docs_with_no_overlap_are_refused_naming_the_fix(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 12 1 3 r\n1 Q0 35 2 2 r\n2 Q0 7 1 1 r\n2 Q0 8 2 1 r\n")
    docs = tmp_path / "padded.csv"
    docs.write_text("doc_id,title\n0012,a\n0035,b\n0007,c\n0008,d\n")
    assert sxs(db, "dataset", "create", "g", "--scale", "0=a,1=b,2=c").exit_code == 0
    assert sxs(db, "import", "run", "-d", "g", str(run), "--name", "r").exit_code == 0
    result = sxs(db, "import", "docs", "-d", "g", str(docs))
    assert result.exit_code == 2, result.output
    assert "padded.csv" in result.output and "--normalize-ids strip-zeros" in result.output
