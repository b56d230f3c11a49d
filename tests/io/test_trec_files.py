"""TREC and SMART files as trec_eval reads them: fields split on runs of whitespace, never CSV
quoting; compressed files by suffix; SMART relevance files; ids that a TREC file cannot hold."""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.errors import InputError, SxsError
from judge_app.services import exporting, importing
from judge_app.store import Store
from metrics import BINARY, ESCI


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.duckdb") as opened:
        yield opened


def write(tmp_path: Path, name: str, data: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return path


def triples(store: Store, dataset) -> list[list]:
    return store.judgments(dataset)[["query_id", "doc_id", "grade"]].values.tolist()


def test_an_id_starting_with_a_quote_does_not_swallow_lines(store: Store,
                                                            tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "q.txt", 'q1 0 "d1 3\nq1 0 d2 1\nq1 0 d3" 2\nq2 0 "x" 0\n')
    report = importing.import_qrels(store, dataset, path)
    assert report.rows == 4
    assert triples(store, dataset) == [["q1", '"d1', 3], ["q1", "d2", 1], ["q1", 'd3"', 2],
                                       ["q2", '"x"', 0]]
    run = write(tmp_path, "r.txt", 'q1 Q0 "a 1 2.0 s\nq1 Q0 b 2 1.0 s\n')
    importing.import_run(store, dataset, run, force=True)  # its docs are not the qrels' docs
    assert store.run(dataset, "s")["doc_id"].tolist() == ['"a', "b"]


def test_tabs_and_runs_of_spaces_separate_fields(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "q.txt", "q1\t0\td1\t3\n  q1   0 d2  1  \r\n\n\x0bq2 0 d1\x0c2\n")
    assert importing.import_qrels(store, dataset, path).rows == 3
    assert triples(store, dataset) == [["q1", "d1", 3], ["q1", "d2", 1], ["q2", "d1", 2]]
    run = write(tmp_path, "r.txt", "q1\tQ0\ta\t1\t1.5\ttab\nq1 Q0  b 2 2.5 tab\n")
    importing.import_run(store, dataset, run, force=True)  # its docs are not the qrels' docs
    assert store.run(dataset, "tab")["doc_id"].tolist() == ["b", "a"]


@pytest.mark.parametrize("content, message", [
    (b"q1 0 d1 3\n\n\nq1 0 d2 x\n", "line 4, field grade: grade 'x' is not a whole number"),
    (b"q1 0 d1 3\n\n\tq1 0 d2\n", "line 3, field grade: expected 4 fields, found 3"),
    (b"q1 0 d1 1.5\n", "line 1, field grade: grade '1.5' is not a whole number"),
    (b"\n \n\t\n", "the file has no rows"),
    (b"q1 0 d1 3\r\nq1 0 d2 9\r\n", "line 2, field grade: grade '9' is outside the scale"),
    (b"\xef\xbb\xbfq1 0 d1 3\nq1 0 d\xff 1\n", "line 2: byte 0xff is not UTF-8"),
])
def test_precise_errors_name_the_line(store: Store, tmp_path: Path, content: bytes,
                                      message: str) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "bad.txt", content)
    with pytest.raises(InputError) as caught:
        importing.import_qrels(store, dataset, path)
    assert str(caught.value).startswith(str(path)) and message in str(caught.value)
    assert store.judgments(dataset).empty


@pytest.mark.parametrize("content, message", [
    ("q1 Q0 a 1 nan s\n", "line 1, field score: score 'nan' is not a number"),
    ("q1 Q0 a 1 1 s\nq1 Q0 b 2 -inf s\n", "line 2, field score: score '-inf' is not a number"),
    ("q1 Q0 a 1.5 1 s\n", "line 1, field rank: rank '1.5' is not a whole number"),
    ("q1 Q0 a 1 1 s x\n", "line 1: expected 6 fields, found 7"),
])
def test_bad_run_values(store: Store, tmp_path: Path, content: str, message: str) -> None:
    dataset = store.create_dataset("p", ESCI)
    with pytest.raises(InputError) as caught:
        importing.import_run(store, dataset, write(tmp_path, "r.txt", content))
    assert message in str(caught.value)
    assert store.run_names(dataset) == []


@pytest.mark.parametrize("suffix, pack", [
    (".gz", gzip.compress), (".bz2", bz2.compress),
    (".zst", None),
])
def test_compressed_files_by_suffix(store: Store, tmp_path: Path, suffix: str, pack) -> None:
    if pack is None:
        zstandard = pytest.importorskip("zstandard")
        pack = zstandard.ZstdCompressor().compress
    dataset = store.create_dataset("p", ESCI)
    qrels = b"q1 0 d1 3\nq1 0 d2 1\n"
    run = b"q1 Q0 d1 1 2.0 sys\nq1 Q0 d2 2 1.0 sys\n"
    importing.import_qrels(store, dataset, write(tmp_path, "q.txt" + suffix, pack(qrels)))
    assert triples(store, dataset) == [["q1", "d1", 3], ["q1", "d2", 1]]
    report = importing.import_run(store, dataset, write(tmp_path, "r.txt" + suffix, pack(run)))
    assert "'sys'" in str(report)
    assert store.run(dataset, "sys")["doc_id"].tolist() == ["d1", "d2"]
    # the precise reader (tabs) and its errors read compressed files too
    importing.import_run(store, dataset, write(tmp_path, "t.run" + suffix,
                                              pack(run.replace(b" ", b"\t"))), name="t")
    assert store.run(dataset, "t")["doc_id"].tolist() == ["d1", "d2"]
    with pytest.raises(InputError, match="line 2: byte 0xe9 is not UTF-8"):
        importing.import_qrels(store, dataset, write(tmp_path, "b.txt" + suffix,
                                                    pack(b"q1 0 d1 3\nq1 0 d\xe9 1\n")))
    with pytest.raises(InputError, match="line 2, field grade: grade 'x'"):
        importing.import_qrels(store, dataset, write(tmp_path, "c.txt" + suffix,
                                                    pack(b"q1 0 d1 3\nq1 0 d2 x\n")))


def test_a_damaged_gzip_file_is_one_line(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    packed = gzip.compress(b"".join(b"q1 0 d%d 3\n" % i for i in range(1000)))
    path = write(tmp_path, "q.txt.gz", packed[: len(packed) // 2])
    with pytest.raises(InputError) as caught:
        importing.import_qrels(store, dataset, path)
    assert str(caught.value).startswith(str(path)) and "\n" not in str(caught.value)


def smart_file(tmp_path: Path, zeros: str = "0 0.000000") -> Path:
    """20 lines in CISI's layout: right-aligned query and doc ids, then two zero columns."""
    pairs = [(q, d) for q in (1, 2, 3, 4) for d in (28, 35, 38, 42, 52)]
    return write(tmp_path, "CISI.REL",
                 "".join(f"{q:5d} {d:6d} {zeros}\n" for q, d in pairs))


def test_smart_relevance_files_list_relevant_pairs(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("cisi", BINARY)
    report = importing.import_qrels(store, dataset, smart_file(tmp_path))
    got = triples(store, dataset)
    assert len(got) == 20 and report.rows == 20 and report.merged == 0
    assert got[:2] == [["1", "28", 1], ["1", "35", 1]]
    assert {grade for _, _, grade in got} == {1}
    assert "SMART" in str(report) and "grade 1" in str(report)
    # CACM's two-integer layout, and --format smart, read the same
    with Store(tmp_path / "t.duckdb") as other:
        cacm = other.create_dataset("cacm", BINARY)
        importing.import_qrels(other, cacm, smart_file(tmp_path, "0 0"), fmt="smart")
        assert triples(other, cacm) == got


def test_smart_needs_a_binary_scale(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    with pytest.raises(InputError, match=r"SMART relevance file .* --scale binary"):
        importing.import_qrels(store, dataset, smart_file(tmp_path))
    assert store.judgments(dataset).empty


def test_trec_format_reads_a_smart_file_as_trec(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", BINARY)
    smart = smart_file(tmp_path, "0 0")
    with pytest.raises(InputError, match="every one of its 4 judgments has grade 0"):
        importing.import_qrels(store, dataset, smart, fmt="trec")  # the degenerate guard
    assert store.judgments(dataset).empty
    report = importing.import_qrels(store, dataset, smart, fmt="trec", force=True)
    assert report.rows == 4 and report.merged == 16 and not report.assumed


def test_trec_qrels_with_all_zero_grades_stay_trec(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", BINARY)
    report = importing.import_qrels(store, dataset, write(tmp_path, "q", "1 0 7 0\n2 0 9 0\n"),
                                    force=True)  # one grade only: the guard would refuse
    assert not report.assumed
    assert triples(store, dataset) == [["1", "7", 0], ["2", "9", 0]]


def test_export_trec_refuses_ids_with_whitespace(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    frame = pd.DataFrame({"query_id": ["q 1", "q 1", "q2"],
                                   "doc_id": ["a", "b\tc", "d"], "grade": [3, 1, 0]})
    store.put_judgments(dataset, frame, "test")
    out = tmp_path / "out.qrels"
    with pytest.raises(SxsError, match=r"id 'q 1' holds whitespace .*\(2 such ids\).*"
                                       "--replace-whitespace"):
        exporting.export_labels(store, dataset, out, "trec")
    assert not out.exists()
    exporting.export_labels(store, dataset, out, "trec", replace_whitespace="_")
    assert out.read_text() == "q2 0 d 0\nq_1 0 a 3\nq_1 0 b_c 1\n"
    with pytest.raises(SxsError, match="one visible character"):
        exporting.export_labels(store, dataset, out, "trec", replace_whitespace=" ")


ids = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
              min_size=1, max_size=8)  # any id but one holding NUL (tests/io/test_nul_bytes.py)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.dictionaries(st.tuples(ids, ids), st.sampled_from([0, 1, 2, 3]), min_size=1,
                            max_size=12))
def test_export_then_import_equals_the_store(tmp_path_factory, rows: dict) -> None:
    folder = tmp_path_factory.mktemp("rt")
    frame = pd.DataFrame([(q, d, g) for (q, d), g in rows.items()],
                                  columns=["query_id", "doc_id", "grade"])
    with Store(folder / "a.duckdb") as first, Store(folder / "b.duckdb") as second:
        dataset = first.create_dataset("p", ESCI)
        first.put_judgments(dataset, frame, "test")
        out = folder / "out.qrels"
        try:
            exporting.export_labels(first, dataset, out, "trec")
        except SxsError as error:
            assert "whitespace" in str(error) and not out.exists()
            return
        copy = second.create_dataset("p", ESCI)
        importing.import_qrels(second, copy, out, fmt="trec", force=True)
        assert triples(second, copy) == triples(first, dataset)


field_text = st.one_of(st.sampled_from(["q1", "q2", "d1", "d2", "0", "Q0", "1", "2", "3", "-1",
                                        "1.0", "1.5", "nan", "inf", "1e3", '"', "'", "é", ""]),
                       st.text(alphabet=" \t\x0b\x0c\r\x00\"#,;é01qd", max_size=4))
def pick(*values: str) -> st.SearchStrategy[str]:
    return st.sampled_from(values)


well_formed = st.one_of(  # mostly what the fast reader takes: single spaces, typed fields
    st.tuples(pick("q1", "q2", '"q'), pick("0", "Q0"), pick("d1", "d2", "d3", "0"),
              pick("0", "1", "3", "1.0", "0.000000", "7")),
    st.tuples(pick("q1", "q2"), pick("Q0"), pick("d1", "d2", "d3", "#"),
              pick("1", "2", "3", "0", "2.0"), pick("1", "2.5", "-1", "1e3", "0"),
              pick("t", "u")),
).map(" ".join)
trec_lines = st.one_of(
    st.lists(st.lists(field_text, min_size=0, max_size=7).map(" ".join), max_size=12),
    st.lists(well_formed, min_size=1, max_size=12))


def load(store_path: Path, path: Path, run: bool, trust_rank: bool) -> tuple:
    """(rows imported or the error's text, what the store then holds)."""
    with Store(store_path) as opened:
        dataset = opened.create_dataset("p", ESCI)
        try:
            if run:
                got = importing.import_run(opened, dataset, path, trust_rank=trust_rank).rows
            else:
                got = importing.import_qrels(opened, dataset, path).rows
        except SxsError as error:
            got = str(error)
        if run:
            held = [opened.run(dataset, n).values.tolist() for n in opened.run_names(dataset)]
        else:
            held = triples(opened, dataset)
    return got, held


def _give_up(*args, **kwargs):
    from judge_app.store.trec_readers import NotSimple
    raise NotSimple


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lines=trec_lines, run=st.booleans(), trust_rank=st.booleans(), crlf=st.booleans())
def test_the_fast_reader_reads_what_the_precise_reader_reads(
        tmp_path_factory, lines: list[str], run: bool, trust_rank: bool, crlf: bool) -> None:
    """Whatever the fast reader accepts, the precise reader reads the same; what it refuses
    gets the precise reader's answer (the same store, or the same one-line error)."""
    from judge_app.store import qrels_load, run_load

    folder = tmp_path_factory.mktemp("fast")
    path = write(folder, "f.txt", ("\r\n" if crlf else "\n").join(lines).encode())
    either = load(folder / "either.duckdb", path, run, trust_rank)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_load, "_fast_run", _give_up)
        patch.setattr(qrels_load, "_fast_qrels", _give_up)
        precise = load(folder / "precise.duckdb", path, run, trust_rank)
    assert either == precise


def test_cli_smart_format_and_replace_whitespace(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judge_app.cli import main

    runner = CliRunner()
    db = str(tmp_path / "cli.duckdb")
    created = runner.invoke(main, ["dataset", "create", "cisi", "--scale", "binary", "--db", db])
    assert created.exit_code == 0, created.output
    done = runner.invoke(main, ["import", "qrels", "-d", "cisi", "--format", "smart",
                                str(smart_file(tmp_path, "0 0")), "--db", db])
    assert done.exit_code == 0, done.output
    assert "imported 20 judgments" in done.output and "SMART" in done.output
    with Store(db) as opened:
        dataset = opened.dataset("cisi")
        opened.put_judgments(dataset, pd.DataFrame(
            {"query_id": ["q 9"], "doc_id": ["d"], "grade": [1]}), "test")
    out = tmp_path / "out.qrels"
    refused = runner.invoke(main, ["export", "trec", str(out), "-d", "cisi", "--db", db])
    assert refused.exit_code != 0 and "id 'q 9' holds whitespace" in refused.output
    assert "Traceback" not in refused.output and not out.exists()
    written = runner.invoke(main, ["export", "trec", str(out), "-d", "cisi", "--db", db,
                                   "--replace-whitespace", "_"])
    assert written.exit_code == 0, written.output
    assert "q_9 0 d 1\n" in out.read_text()


@pytest.mark.parametrize("text", [
    # in trec_eval's order already (ties broken by doc id descending): ranks kept as they are
    "q1 Q0 c 1 2.0 s\nq1 Q0 b 2 2.0 s\nq1 Q0 a 3 1.0 s\nq2 Q0 x 1 5 s\n",
    # each line in order, but q1 comes in two blocks
    "q1 Q0 c 1 2.0 s\nq2 Q0 x 1 5 s\nq1 Q0 a 1 1.0 s\n",
    # ranks in order, scores not: re-ranked
    "q1 Q0 a 1 1.0 s\nq1 Q0 b 2 2.0 s\n",
    # a tie broken the other way: re-ranked
    "q1 Q0 a 1 2.0 s\nq1 Q0 b 2 2.0 s\n",
    # a doc twice, in order
    "q1 Q0 b 1 2.0 s\nq1 Q0 b 2 1.0 s\n",
])
def test_runs_in_order_keep_their_ranks_as_re_ranking_would(tmp_path: Path, text: str) -> None:
    from judge_app.store import run_load

    path = write(tmp_path, "r.txt", text)
    either = load(tmp_path / "either.duckdb", path, True, False)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_load, "_fast_run", _give_up)
        precise = load(tmp_path / "precise.duckdb", path, True, False)
    assert either == precise


def test_a_run_in_order_is_stored_with_its_ranks(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "r.txt", "q1 Q0 c 1 2.0 s\nq1 Q0 b 2 2.0 s\nq1 Q0 a 3 1.0 s\n")
    importing.import_run(store, dataset, path)
    assert store.run(dataset, "s")[["doc_id", "rank"]].values.tolist() == [
        ["c", 1], ["b", 2], ["a", 3]]


def test_a_run_is_written_as_six_fields_with_exact_scores(tmp_path: Path) -> None:
    """io.trec.write_run: scores written exactly, a run without scores (a logged ranking)
    gets -rank, a tag holding whitespace refused unless replaced."""
    from judge_app.io.trec import write_run

    frame = pd.DataFrame({"query_id": ["q2", "q1", "q1"], "doc_id": ["c", "b", "a"],
                          "rank": [1, 2, 1], "score": [0.1 + 0.2, float("nan"), 1e-7]})
    out = tmp_path / "r.run"
    assert write_run(frame, out, "my-run") == 3
    assert out.read_text() == ("q1 Q0 a 1 1e-07 my-run\nq1 Q0 b 2 -2.0 my-run\n"
                               "q2 Q0 c 1 0.30000000000000004 my-run\n")
    with pytest.raises(SxsError, match="holds whitespace"):
        write_run(frame, tmp_path / "bad.run", "my run")
    assert not (tmp_path / "bad.run").exists()
    write_run(frame, out, "my run", replace_whitespace="_")
    assert out.read_text().splitlines()[0].endswith(" my_run")
