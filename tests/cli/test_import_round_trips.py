"""Issue 24, round trips and silent imports: each defect met on the command line.

A relevant-only qrels file (binary scale, every pair grade 1) re-imports without ``--force``;
a cut run line, an over-long click id, a query without text and a blank SRW rating are refused
in one line naming the file, line and field, with or without ``--value-map``; zero-padded
query ids that leave judged queries without text are warned of; a failed first import into a
new store path leaves no file behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judge_app.cli import main


def sxs(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def one_error_line(result: Result) -> str:
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.output, result.output
    return lines[0]


def test_a_relevant_only_trec_export_imports_back_into_a_new_store(tmp_path: Path) -> None:
    first, second = tmp_path / "first.duckdb", tmp_path / "second.duckdb"
    smart = tmp_path / "rel.txt"
    smart.write_text("".join(f"{q} {d} 0 0.000000\n" for q in (1, 2, 3) for d in (10, 20, q)))
    ok(sxs(first, "dataset", "create", "cisi", "--scale", "binary"))
    ok(sxs(first, "import", "qrels", "-d", "cisi", str(smart), "--force"))
    exported = tmp_path / "cisi.qrels"
    ok(sxs(first, "export", "trec", str(exported), "-d", "cisi"))
    assert exported.read_text().count(" 1\n") == 9  # every pair grade 1, no grade-0 row
    ok(sxs(second, "dataset", "create", "cisi", "--scale", "binary"))
    imported = ok(sxs(second, "import", "qrels", "-d", "cisi", str(exported)))
    assert "imported 9 judgments" in imported.output


def test_a_collapsed_import_is_still_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    zeros, ones = tmp_path / "zeros.qrels", tmp_path / "ones.qrels"
    zeros.write_text("1 0 a 0\n1 0 b 0\n2 0 c 0\n")
    ones.write_text("1 0 a 1\n1 0 b 1\n2 0 c 1\n")
    ok(sxs(db, "dataset", "create", "bin", "--scale", "binary"))
    ok(sxs(db, "dataset", "create", "graded", "--scale", "esci"))
    assert "every one of its 3 judgments has grade 0" in one_error_line(
        sxs(db, "import", "qrels", "-d", "bin", str(zeros)))
    assert "every one of its 3 judgments has grade 1" in one_error_line(
        sxs(db, "import", "qrels", "-d", "graded", str(ones)))


def test_a_run_line_without_its_tag_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    ok(sxs(db, "dataset", "create", "a", "--scale", "binary"))
    run = tmp_path / "cut.run"
    run.write_text("47923 Q0 438744 499 9.5 bm25\n47923 Q0 438745 500 9.2347\n")
    assert one_error_line(sxs(db, "import", "run", "-d", "a", str(run), "--force")) == (
        f"Error: {run}, line 2, field tag: expected 6 fields, found 5")
    run.write_text("47923 Q0 438744 499 9.5 bm25\n47923 Q0 438745 500 9.2347 bm25 x\n")
    assert one_error_line(sxs(db, "import", "run", "-d", "a", str(run), "--force")) == (
        f"Error: {run}, line 2: expected 6 fields, found 7")


@pytest.mark.parametrize("fmt", ["csv", "ubi"])
def test_a_click_id_over_the_limit_is_refused(tmp_path: Path, fmt: str) -> None:
    db = tmp_path / "s.duckdb"
    ok(sxs(db, "dataset", "create", "a", "--scale", "binary"))
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\tred shoes\n")
    ok(sxs(db, "import", "queries", "-d", "a", str(queries)))
    log = tmp_path / f"log.{'csv' if fmt == 'csv' else 'ndjson'}"
    if fmt == "csv":
        log.write_text("session_id,action,query_id,doc_id,position\n"
                       "s1,impression,q1,d1,1\n"
                       f"s1,impression,q1,{'x' * 1001},2\n")
    else:
        log.write_text("".join(json.dumps(
            {"action_name": "impression", "session_id": "s1", "query_id": "q1",
             "user_query": "red shoes", "timestamp": 1700000000000,
             "event_attributes": {"object": {"object_id": doc}, "position": {"ordinal": at}}}
        ) + "\n" for at, doc in ((0, "d1"), (1, "d2"), (2, "x" * 1001))))
    field = "doc_id" if fmt == "csv" else "event_attributes.object.object_id"
    assert one_error_line(sxs(db, "import", "clicks", "-d", "a", str(log))) == (
        f"Error: {log}, line 3, field {field}: the id is 1,001 bytes long; an id holds at "
        "most 1,000 bytes (UTF-8)")


def test_a_query_line_without_text_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    ok(sxs(db, "dataset", "create", "a", "--scale", "binary"))
    queries = tmp_path / "q.tsv"
    queries.write_text("1\tfoo bar\n2\n")
    assert one_error_line(sxs(db, "import", "queries", "-d", "a", str(queries))) == (
        f"Error: {queries}, line 2, field 2: the query text is empty")


def test_a_blank_srw_rating_gets_the_same_answer_with_a_value_map(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    ok(sxs(db, "dataset", "create", "a", "--scale", "esci"))
    for blank in ("", None):
        srw = tmp_path / "srw.json"
        srw.write_text(json.dumps({"name": "j", "judgmentRatings": [
            {"query": "red dress", "ratings": [{"docId": "a", "rating": "3.000"},
                                               {"docId": "b", "rating": blank}]}]}, indent=1))
        plain = one_error_line(sxs(db, "import", "judgments", "-d", "a", str(srw)))
        mapped = one_error_line(sxs(db, "import", "judgments", "-d", "a", str(srw),
                                    "--value-map", "3.000=3"))
        assert plain == mapped, (plain, mapped)
        assert plain.startswith(f"Error: {srw}, line 12, field rating: the grade is empty")
    # a map naming the empty value decides: kept as grade 0 here
    assert "imported 2 judgments" in ok(sxs(db, "import", "judgments", "-d", "a", str(srw),
                                           "--value-map", "3.000=3,=0")).output


def test_zero_padded_judged_query_ids_are_warned_of(store_address: object,
                                                    tmp_path: Path) -> None:
    db = store_address
    ok(sxs(db, "dataset", "create", "cacm", "--scale", "binary"))
    ok(sxs(db, "dataset", "create", "after", "--scale", "binary"))
    ok(sxs(db, "dataset", "create", "clean", "--scale", "binary"))
    qrels = tmp_path / "qrels.text"
    qrels.write_text("01 0 d1 1\n01 0 d2 0\n02 0 d1 1\n10 0 d3 1\n10 0 d4 0\n")
    queries = tmp_path / "queries.tsv"
    queries.write_text("1\tfirst\n2\tsecond\n10\ttenth\n")

    def warnings(result: Result) -> list[str]:
        return [line for line in ok(result).output.splitlines() if line.startswith("warning:")]

    ok(sxs(db, "import", "qrels", "-d", "cacm", str(qrels)))
    said = warnings(sxs(db, "import", "queries", "-d", "cacm", str(queries)))
    assert said == [f"warning: {queries}: 2 of the dataset's 3 judged queries have no text "
                    "while a query's id differs from theirs only by leading zeros (judged "
                    "'01', query '1'); import the judgments and the queries with "
                    "--normalize-ids strip-zeros"]
    ok(sxs(db, "import", "queries", "-d", "after", str(queries)))  # the other order
    said = warnings(sxs(db, "import", "qrels", "-d", "after", str(qrels)))
    assert len(said) == 1 and said[0].startswith(f"warning: {qrels}: 2 of the dataset's 3")
    ok(sxs(db, "import", "qrels", "-d", "clean", str(qrels), "--normalize-ids", "strip-zeros"))
    assert warnings(sxs(db, "import", "queries", "-d", "clean", str(queries))) == []


def test_a_failed_first_import_leaves_no_store_behind(tmp_path: Path) -> None:
    qrels = tmp_path / "q.qrels"
    qrels.write_text("1 0 a 1\n")
    db = tmp_path / "new.duckdb"
    assert "no dataset 'a'" in one_error_line(sxs(db, "import", "qrels", "-d", "a", str(qrels)))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["q.qrels"]
    # a store that was there before is kept, whatever the import's fate
    ok(sxs(db, "dataset", "create", "a", "--scale", "binary"))
    qrels.write_text("1 0 a x\n")
    one_error_line(sxs(db, "import", "qrels", "-d", "a", str(qrels)))
    assert db.exists()
