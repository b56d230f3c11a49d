"""A NUL byte (``\\x00``) in any imported file, or in text typed in the app or on the command
line, is refused with one line naming the file, line and field (exit 2), and nothing is
stored — on both backends (PostgreSQL's text cannot hold a NUL; DuckDB would store it and
write it into exports, where trec_eval cuts the line short)."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import SxsError
from judge_app.io.nul import nul_line
from judge_app.services import judging
from judge_app.store import Store
from metrics import ESCI
from metrics.votes import Choice


def sxs(db: object, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def refused(result, file: Path, line: int, field: str | None = None) -> None:
    assert result.exit_code == 2, result.output
    said = result.output.strip()
    assert len(said.splitlines()) == 1, said
    where = f"{file}, line {line}" + (f", field {field}" if field else "")
    assert said.startswith(f"Error: {where}: ") or f"{where}: " in said, said
    assert "NUL" in said, said


def counts(address: object) -> dict[str, int]:
    with Store(address) as store:
        dataset = store.dataset("g")
        return {"judgments": len(store.judgments(dataset)),
                "runs": len(store.run_names(dataset)),
                "documents": len(store.documents(dataset)),
                "queries": len(store.queries(dataset)),
                "labels": len(store.expert_label_history(dataset))}


EMPTY = {"judgments": 0, "runs": 0, "documents": 0, "queries": 0, "labels": 0}


@pytest.fixture
def db(store_address):
    assert sxs(store_address, "dataset", "create", "g", "--scale", "esci").exit_code == 0
    return store_address


# -- TREC files (parsed by DuckDB: the fast reader hands them to the precise one) -------------

def test_trec_run_names_line_and_field(db, tmp_path: Path) -> None:
    run = tmp_path / "nul.run"
    run.write_bytes(b"q1 Q0 d1 1 3.0 r\nq1 Q0 d\x002 2 2.0 r\nq2 Q0 d3 1 1.0 r\n")
    refused(sxs(db, "import", "run", "-d", "g", str(run)), run, 2, "doc_id")
    assert counts(db) == EMPTY


def test_trec_qrels_with_tabs_names_the_query_field(db, tmp_path: Path) -> None:
    qrels = tmp_path / "nul.qrels"
    qrels.write_bytes(b"q1\t0\td1\t3\nq1\t0\td2\t0\nq\x002\t0\td3\t1\n")
    refused(sxs(db, "import", "qrels", "-d", "g", str(qrels)), qrels, 3, "query_id")
    assert counts(db) == EMPTY


def test_compressed_trec_run_counts_lines_decompressed(db, tmp_path: Path) -> None:
    run = tmp_path / "nul.run.gz"
    run.write_bytes(gzip.compress(b"q1 Q0 d1 1 3.0 r\nq1 Q0 d2 2 2.0 r\nq2 Q0 d3 1 1.0 r\x00\n"))
    refused(sxs(db, "import", "run", "-d", "g", str(run)), run, 3, "tag")
    assert counts(db) == EMPTY


def test_a_smart_file_names_its_doc_field(db, tmp_path: Path) -> None:
    assert sxs(db, "dataset", "create", "b", "--scale", "binary").exit_code == 0
    smart = tmp_path / "cisi.rel"
    smart.write_bytes(b"1 28 0 0.000000\n1 3\x005 0 0.000000\n")
    refused(sxs(db, "import", "qrels", "-d", "b", str(smart), "--format", "smart"), smart, 2,
            "doc_id")


# -- tables and JSON ----------------------------------------------------------------------

def test_csv_judgments_name_line_and_column(db, tmp_path: Path) -> None:
    table = tmp_path / "j.csv"
    table.write_bytes(b"query_id,doc_id,grade\nq1,d1,3\nq1,d2,0\nq2,d\x003,1\n")
    refused(sxs(db, "import", "judgments", "-d", "g", str(table)), table, 4, "doc_id")
    assert counts(db) == EMPTY


def test_tsv_queries_name_the_text_column(db, tmp_path: Path) -> None:
    table = tmp_path / "q.tsv"
    table.write_bytes(b"query_id\ttext\nq1\tred shoes\nq2\tblue\x00 hat\n")
    refused(sxs(db, "import", "queries", "-d", "g", str(table)), table, 3, "text")
    assert counts(db) == EMPTY


def test_a_header_holding_a_nul_is_line_1(db, tmp_path: Path) -> None:
    table = tmp_path / "d.csv"
    table.write_bytes(b"doc_id,tit\x00le\nd1,a\n")
    refused(sxs(db, "import", "docs", "-d", "g", str(table)), table, 1)


def test_escaped_nul_in_json_lines_names_line_and_field(db, tmp_path: Path) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_text(json.dumps({"doc_id": "d1", "title": "a"}) + "\n"
                    + json.dumps({"doc_id": "d2", "title": "b\x00c"}) + "\n")
    assert "\\u0000" in docs.read_text()
    refused(sxs(db, "import", "docs", "-d", "g", str(docs)), docs, 2, "title")
    assert counts(db) == EMPTY


def test_an_escaped_backslash_before_u0000_is_text(db, tmp_path: Path) -> None:
    docs = tmp_path / "d.jsonl"
    docs.write_text(json.dumps({"doc_id": "d1", "title": "a\\u0000"}) + "\n")
    assert "\\\\u0000" in docs.read_text()
    result = sxs(db, "import", "docs", "-d", "g", str(docs))
    assert result.exit_code == 0, result.output
    with Store(db) as store:
        assert store.documents(store.dataset("g"))["title"].tolist() == ["a\\u0000"]


def test_raw_nul_in_a_json_array_names_the_line(db, tmp_path: Path) -> None:
    docs = tmp_path / "d.json"
    docs.write_bytes(b'[\n{"doc_id": "d1", "title": "a"},\n{"doc_id": "d2", "title": "b\x00"}\n]')
    refused(sxs(db, "import", "docs", "-d", "g", str(docs)), docs, 3)


def test_parquet_names_row_and_column(db, tmp_path: Path) -> None:
    table = tmp_path / "j.parquet"
    pd.DataFrame({"query_id": ["q1", "q\x001"], "doc_id": ["d1", "d2"], "grade": [3, 0]}
                 ).to_parquet(table)
    refused(sxs(db, "import", "judgments", "-d", "g", str(table)), table, 2, "query_id")
    assert counts(db) == EMPTY


def test_an_srw_judgment_file_names_the_line(db, tmp_path: Path) -> None:
    srw = tmp_path / "srw.json"
    srw.write_text(json.dumps({"name": "j", "judgmentRatings": [
        {"query": "red shoes", "ratings": [{"docId": "d1", "rating": "3"},
                                           {"docId": "d\x002", "rating": "0"}]}]}, indent=1))
    line = next(number for number, text in enumerate(srw.read_text().splitlines(), start=1)
                if '"d\\u00002"' in text)
    refused(sxs(db, "import", "judgments", "-d", "g", str(srw)), srw, line, "docId")
    assert counts(db) == EMPTY


def test_expert_labels_name_the_judge_column(db, tmp_path: Path) -> None:
    labels = tmp_path / "l.csv"
    labels.write_bytes(b"query_id,doc_id,grade,judge\nq1,d1,3,ann\nq1,d2,0,b\x00ob\n")
    refused(sxs(db, "import", "labels", "-d", "g", str(labels)), labels, 3, "judge")
    assert counts(db) == EMPTY


def test_a_bzip2_csv_counts_lines_decompressed(db, tmp_path: Path) -> None:
    table = tmp_path / "j.csv.bz2"
    table.write_bytes(bz2.compress(b"query_id,doc_id,grade\nq1,d1\x00,3\n"))
    refused(sxs(db, "import", "judgments", "-d", "g", str(table)), table, 2, "doc_id")


# -- click logs ----------------------------------------------------------------------------

def test_a_ubi_log_escaped_nul_names_the_line(db, tmp_path: Path) -> None:
    event = {"action_name": "impression", "timestamp": "2026-01-01T00:00:00Z",
             "query_id": "r1", "session_id": "s1", "user_query": "red shoes",
             "event_attributes": {"object": {"object_id": "d1"}, "position": {"ordinal": 0}}}
    bad = {**event, "event_attributes": {"object": {"object_id": "d\x002"},
                                         "position": {"ordinal": 1}}}
    log = tmp_path / "ubi.ndjson"
    log.write_text(json.dumps(event) + "\n" + json.dumps(bad) + "\n")
    refused(sxs(db, "import", "clicks", "-d", "g", str(log)), log, 2)


def test_a_table_click_log_names_line_and_column(db, tmp_path: Path) -> None:
    log = tmp_path / "clicks.csv"
    log.write_bytes(b"session_id,action,query,doc_id,position\ns1,impression,red,d1,1\n"
                    b"s1,click,red,d\x001,1\n")
    refused(sxs(db, "import", "clicks", "-d", "g", str(log)), log, 3, "doc_id")


# -- typed text ----------------------------------------------------------------------------

def test_typed_names_and_reasons_never_store_a_nul(store_address, tmp_path: Path) -> None:
    result = sxs(store_address, "dataset", "create", "g\x00", "--scale", "esci")
    assert result.exit_code == 2 and "dataset name holds a NUL" in result.output, result.output
    invited = sxs(store_address, "invite", "a\x00nn")
    assert invited.exit_code == 2 and "judge's name holds a NUL" in invited.output
    assert sxs(store_address, "dataset", "create", "g", "--scale", "esci").exit_code == 0
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\n")
    named = sxs(store_address, "import", "run", "-d", "g", str(run), "--name", "r\x00")
    assert named.exit_code == 2 and "run name holds a NUL" in named.output, named.output
    with Store(store_address) as store:
        dataset = store.dataset("g")
        assert store.run_names(dataset) == []
        with pytest.raises(SxsError, match="name holds a NUL"):
            store.typed_judge("b\x00b")
        store.typed_judge("bob")
        with pytest.raises(SxsError, match="note holds a NUL"):
            store.add_expert_label(dataset, "q1", "d1", 3, "bob", "t1", note="ok\x00")
        assert store.expert_label_history(dataset).empty


def test_a_vote_reason_holding_a_nul_is_refused(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb") as store:
        dataset = store.create_dataset("g", ESCI)
        for name, docs in (("a", ["d1", "d2"]), ("b", ["d2", "d1"])):
            store.put_run(dataset, name, pd.DataFrame({
                "query_id": ["q1", "q1"], "doc_id": docs, "rank": [1, 2], "score": [2.0, 1.0],
                "line": [1, 2]}), "test")
        store.typed_judge("bob")
        view = judging.side_by_side(store, dataset, "a", "b", "q1", 2, "bob")
        with pytest.raises(SxsError, match="reason holds a NUL"):
            judging.record_vote(store, dataset, view, Choice.LEFT, "bob", reason="because\x00")
        assert judging.record_vote(store, dataset, view, Choice.LEFT, "bob", reason="because")


def test_nul_line_counts_from_one_and_sees_only_real_json_escapes() -> None:
    assert nul_line(b"a\nb\x00\n") == 2
    assert nul_line(b"abc") is None
    assert nul_line(b'{"a": "\\u0000"}', json_text=True) == 1
    assert nul_line(b'{"a": "\\\\u0000"}', json_text=True) is None
    assert nul_line(b'\n{"a": "\\\\\\u0000"}', json_text=True) == 2
