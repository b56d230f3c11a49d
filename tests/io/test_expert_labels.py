"""``sxs import labels``: expert labels per judge from a long file, sxs's own provenance and
wide CSVs, and Quepid's book export; the exports read back byte for byte."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import InputError
from judge_app.services import exporting, importing
from judge_app.store import Store
from metrics import ESCI

QUERIES = pd.DataFrame({"query_id": ["q1", "=q2", "q 3"],
                        "text": ["red shoes", "=cmd|' /C calc'!A0", "a, \"quoted\"\nline"]})


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.duckdb") as opened:
        dataset = opened.create_dataset("p", ESCI)
        opened.put_queries(dataset, QUERIES)
        opened.put_judgments(dataset, pd.DataFrame({
            "query_id": ["q1", "q1", "=q2"], "doc_id": ["a", "b", "-c"], "grade": [3, 0, 1]}),
            "seed.txt")
        for token, (query, doc, grade, judge, note) in enumerate([
                ("q1", "b", 2, "ann", "+1 looks right"), ("q1", "b", 3, "bob", None),
                ("q1", "b", 1, "@cy", "line\nbreak"), ("q1", "x", 2, "ann", None),
                ("q1", "x", 1, "ann", None), ("=q2", "-c", 3, "bob", "a,b"),
                ("q 3", " d ", 0, "ann", None)]):
            opened.add_expert_label(dataset, query, doc, grade, judge, f"t{token}", note=note)
        yield opened


def fresh(tmp_path: Path, name: str) -> Store:
    other = Store(tmp_path / f"{name}.duckdb")
    dataset = other.create_dataset("p", ESCI)
    other.put_queries(dataset, QUERIES)
    return other


def test_provenance_csv_round_trips_byte_for_byte(store: Store, tmp_path: Path) -> None:
    first = tmp_path / "p.csv"
    rows = exporting.export_labels(store, store.dataset("p"), first, "csv")
    with fresh(tmp_path, "copy") as other:
        report = importing.import_labels(other, other.dataset("p"), first)
        assert report.rows == 6  # the latest label of each (judge, query, doc)
        again = tmp_path / "again.csv"
        assert exporting.export_labels(other, other.dataset("p"), again, "csv") == rows
        assert again.read_bytes() == first.read_bytes()
        history = other.expert_label_history(other.dataset("p"))
        assert history.set_index(["judge", "doc_id"]).loc[("@cy", "b"), "note"] == "line\nbreak"


def test_wide_csv_round_trips_byte_for_byte(store: Store, tmp_path: Path) -> None:
    first = tmp_path / "w.csv"
    exporting.export_labels(store, store.dataset("p"), first, "wide")
    assert first.read_text().splitlines()[0] == "query_id,doc_id,'@cy,ann,bob"
    with fresh(tmp_path, "copy") as other:
        importing.import_labels(other, other.dataset("p"), first)
        again = tmp_path / "again.csv"
        exporting.export_labels(other, other.dataset("p"), again, "wide")
        assert again.read_bytes() == first.read_bytes()
        got = other.current_expert_labels(other.dataset("p"))
        assert sorted(zip(got["judge"], got["query_id"], got["doc_id"], got["grade"],
                          strict=True)) == [
            ("@cy", "q1", "b", 1), ("ann", "q 3", " d ", 0), ("ann", "q1", "b", 2),
            ("ann", "q1", "x", 1), ("bob", "=q2", "-c", 3), ("bob", "q1", "b", 3)]


def test_long_file_with_time_and_note_keeps_history_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "l.csv"
    path.write_text("query_id,doc_id,grade,judge,time,note\n"
                    "q1,a,Exact,ann,2025-01-02T10:00:00Z,first\n"
                    "q1,a,1,ann,2025-01-03 09:30:00+01:00,\n"
                    "q1,b,S,bob,,\n")
    with fresh(tmp_path, "l") as other:
        dataset = other.dataset("p")
        report = importing.import_labels(other, dataset, path)
        assert report.rows == 3 and "long file: 3 labels of 2 judge(s)" in str(report)
        history = other.expert_label_history(dataset)
        assert history[["doc_id", "grade", "judge"]].values.tolist() == [
            ["a", 3, "ann"], ["a", 1, "ann"], ["b", 2, "bob"]]
        assert history["note"].iloc[0] == "first" and history["note"].iloc[1:].isna().all()
        stamps = pd.to_datetime(history["created_at"]).dt.tz_convert("UTC")
        assert str(stamps.iloc[1]) == "2025-01-03 08:30:00+00:00"
        assert other.current_expert_labels(dataset)["grade"].tolist() == [1, 2]
        again = importing.import_labels(other, dataset, path)
        assert again.rows == 0 and "3 labels were already imported" in str(again)


def test_quepid_book_export_matches_queries_by_text(tmp_path: Path) -> None:
    # Quepid's book export: query text (made csv-safe with a leading space), docid, one
    # column a rater, an empty cell where a rater did not judge
    path = tmp_path / "book_7_export.csv"
    path.write_text("query,docid,alice@example.com,Bob\n"
                    "Red Shoes,a,3,\n"
                    '" =cmd|\' /C calc\'!A0",-c,0,1.0\n')
    with fresh(tmp_path, "quepid") as other:
        dataset = other.dataset("p")
        importing.import_labels(other, dataset, path)
        got = other.current_expert_labels(dataset)
        assert got[["query_id", "doc_id", "judge", "grade"]].values.tolist() == [
            ["=q2", "-c", "Bob", 1], ["=q2", "-c", "alice@example.com", 0],
            ["q1", "a", "alice@example.com", 3]]


@pytest.mark.parametrize("text, message", [
    ("query_id,doc_id,grade,judge\nq1,a,3,\n", "line 2, field judge: judge is empty"),
    ("query_id,doc_id,grade,judge\nq1,a,9,ann\n", "line 2, field grade: grade '9' is outside"),
    ("query_id,doc_id,grade,judge,time\nq1,a,3,ann,yesterday\n",
     "line 2, field time: time 'yesterday' is not a date and time"),
    ("query_id,doc_id,grade,judge,source\nq1,a,3,ann,llm\n",
     "line 2, field source: source 'llm' must be one of dataset, expert, replaced"),
    ("query_id,doc_id,ann\nq1,a,Great\n", "line 2, field ann: unknown grade name 'Great'"),
    ("query,docid,ann\nblue hat,a,1\n", "line 2, field query: query 'blue hat' matches no"),
    ("qid,doc,rel\nq1,a,1\n", "line 1: expected columns query_id, doc_id, grade, judge"),
])
def test_bad_label_files_are_one_line_and_store_nothing(tmp_path: Path, text: str,
                                                        message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with fresh(tmp_path, "bad") as other:
        dataset = other.dataset("p")
        with pytest.raises(InputError) as caught:
            importing.import_labels(other, dataset, path)
        assert message in str(caught.value) and "\n" not in str(caught.value)
        assert other.expert_label_history(dataset).empty
        assert other.judgments(dataset).empty


def test_import_labels_from_the_command_line(tmp_path: Path) -> None:
    path = tmp_path / "l.tsv"
    path.write_text("query_id\tdoc_id\tgrade\tjudge\nq1\ta\t2\tann\n")
    db = str(tmp_path / "cli.duckdb")
    runner = CliRunner()
    runner.invoke(main, ["dataset", "create", "p", "--scale", "esci", "--db", db])
    result = runner.invoke(main, ["import", "labels", str(path), "-d", "p", "--db", db])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("imported 1 expert labels")
    with Store(db) as store:
        assert store.current_expert_labels(store.dataset("p"))["judge"].tolist() == ["ann"]
