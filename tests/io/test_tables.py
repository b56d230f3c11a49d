"""Tables in and out: value maps, SRW and JSON files, compression, headerless files, column
collisions, and the one CSV/TSV writer with its formula guard (round trips byte-exact)."""

from __future__ import annotations

import bz2
import gzip
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.cli import main
from judge_app.errors import InputError, SxsError
from judge_app.io import csv_safe, labels
from judge_app.io.files import read_table
from judge_app.io.labels import ColumnMap, read_documents, read_judgments, read_queries
from judge_app.store import Store
from metrics import ESCI
from metrics.scale import CRANFIELD


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def triples(read) -> list[list]:
    return read.frame[["query_id", "doc_id", "grade"]].values.tolist()


# -- 1. value maps -----------------------------------------------------------------------------

def test_value_map_matches_numbers_as_numbers(tmp_path: Path) -> None:
    # Cranfield codes written as floats: 1.0 is code 1 (grade 4), -1.0 drops the row
    path = write(tmp_path, "c.csv", "query_id,doc_id,code\n1,a,1.0\n1,b,2.0\n1,c,-1.0\n"
                                    "2,a,4\n2,b, 3.00 \n")
    read = read_judgments(path, CRANFIELD, ColumnMap("query_id", "doc_id", "code"),
                          {"1": "4", "2": "3", "3": "2", "4": "1", "-1": ""})
    assert triples(read) == [["1", "a", 4], ["1", "b", 3], ["2", "a", 1], ["2", "b", 2]]
    assert read.dropped == 1
    assert read.notes == []


def test_value_map_lists_unmapped_values_with_counts(tmp_path: Path) -> None:
    path = write(tmp_path, "c.csv", "query_id,doc_id,grade\n1,a,E\n1,b,0\n1,c,0\n2,a,0\n"
                                    "2,b,2\n")
    read = read_judgments(path, ESCI, value_map={"E": "3"})
    assert triples(read) == [["1", "a", 3], ["1", "b", 0], ["1", "c", 0], ["2", "a", 0],
                             ["2", "b", 2]]
    assert read.notes == ["value map: 2 value(s) not in the map, kept as they are: "
                          "'0' x3, '2' x1"]


def test_value_map_refuses_one_number_mapped_twice() -> None:
    with pytest.raises(InputError, match=r"'2' and '2\.0' are the same number"):
        labels.parse_value_map("2=3,2.0=1")


# -- 2. SRW, JSON arrays, JSON Lines, compression ------------------------------------------------

SRW_JUDGMENTS = {
    "name": "Imported Judgments", "description": "Judgments generated outside SRW",
    "type": "IMPORT_JUDGMENT",
    "judgmentRatings": [
        {"query": "red dress", "ratings": [{"docId": "B077ZJXCTS", "rating": "3.000"},
                                           {"docId": "B071S6LTJJ", "rating": "2.000"}]},
        {"query": "blue jeans", "ratings": [{"docId": "B01IDSPDJI", "rating": "0.000"}]}]}


def test_srw_judgment_list(tmp_path: Path) -> None:
    path = write(tmp_path, "srw.json", json.dumps(SRW_JUDGMENTS, indent=2))
    read = read_judgments(path, ESCI, query_ids_by_text={"Red Dress ": "q1"})
    assert triples(read) == [["q1", "B077ZJXCTS", 3], ["q1", "B071S6LTJJ", 2],
                             ["blue jeans", "B01IDSPDJI", 0]]
    lines = path.read_text().splitlines()
    assert [lines[n - 1].strip() for n in read.frame["line"]] == [
        '"docId": "B077ZJXCTS",', '"docId": "B071S6LTJJ",', '"docId": "B01IDSPDJI",']
    assert read.notes == ["SRW judgment list: 1 queries matched the dataset's by text, "
                          "1 use their text as id"]


def test_srw_judgment_list_in_the_older_object_form(tmp_path: Path) -> None:
    older = {"name": "x", "judgmentRatings": {"red dress": [{"docId": "a", "rating": "1.0"}]}}
    read = read_judgments(write(tmp_path, "old.json", json.dumps(older)), ESCI)
    assert triples(read) == [["red dress", "a", 1]]


def test_srw_bad_rating_names_where(tmp_path: Path) -> None:
    bad = {"judgmentRatings": [{"query": "x", "ratings": [{"docId": "a"}]}]}
    with pytest.raises(InputError, match=r"field judgmentRatings\[1\]\.ratings\[1\]: "
                                         r"expected \{docId, rating\}"):
        read_judgments(write(tmp_path, "bad.json", json.dumps(bad)), ESCI)


def test_srw_query_sets_as_json_and_json_lines(tmp_path: Path) -> None:
    document = {"name": "TVs", "sampling": "manual",
                "querySetQueries": [{"queryText": "tv"}, {"queryText": " led tv"}]}
    for name, text in (("qs.json", json.dumps(document)),
                       ("qs.jsonl", '{"queryText": "tv"}\n{"queryText": " led tv"}\n')):
        got = read_queries(write(tmp_path, name, text))
        assert got.values.tolist() == [["tv", "tv"], ["led tv", " led tv"]], name


def test_json_array_of_records_with_lines(tmp_path: Path) -> None:
    text = ('[\n  {"query_id": "q1", "doc_id": "a", "grade": 3},\n'
            '  {"query_id": "q1", "doc_id": "b", "grade": 2.0}\n]\n')
    read = read_judgments(write(tmp_path, "j.json", text), ESCI)
    assert triples(read) == [["q1", "a", 3], ["q1", "b", 2]]
    assert read.frame["line"].tolist() == [2, 3]


@pytest.mark.parametrize("name, text, message", [
    ("j.jsonl", '{"query_id": "q1", "doc_id": "a", "grade": 1}\n[1, 2, 3]\n',
     "line 2: expected a JSON object, found an array"),
    ("j.jsonl", '{"query_id": "q1", "doc_id": "a", "grade": 1}\n\n7\n',
     "line 3: expected a JSON object, found a number"),
    ("j.jsonl", '"just text"\n', "line 1: expected a JSON object, found a string"),
    ("j.jsonl", '{"query_id": "q1"}\n{not json\n', "line 2: not valid JSON"),
    ("j.json", '[\n {"query_id": "q1", "doc_id": "a", "grade": 1},\n ["x"]\n]',
     "line 3: expected a JSON object, found an array"),
    ("j.json", '[\n {"query_id": "q1", "doc_id": "a", "grade": 1}\n {"x": 1}]',
     "line 3: expected , or ] between array elements"),
])
def test_json_that_is_not_records_is_one_line_with_its_line(tmp_path: Path, name: str,
                                                             text: str, message: str) -> None:
    path = write(tmp_path, name, text)
    with pytest.raises(InputError) as caught:
        read_judgments(path, ESCI)
    assert str(caught.value).startswith(f"{path}, {message}")
    assert "\n" not in str(caught.value)


def _compress(kind: str, data: bytes) -> bytes:
    if kind == "gz":
        return gzip.compress(data)
    if kind == "bz2":
        return bz2.compress(data)
    import zstandard
    return zstandard.ZstdCompressor().compress(data)


@pytest.mark.parametrize("kind", ["gz", "bz2", "zst"])
def test_every_table_format_reads_compressed(tmp_path: Path, kind: str) -> None:
    frame = pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["a", "b"],
                          "grade": ["Exact", "1"]})
    plain = {"csv": frame.to_csv(index=False).encode(),
             "tsv": frame.to_csv(index=False, sep="\t").encode(),
             "jsonl": frame.to_json(orient="records", lines=True).encode(),
             "json": frame.to_json(orient="records").encode(),
             "parquet": frame.to_parquet()}
    for fmt, data in plain.items():
        path = write(tmp_path, f"j.{fmt}.{kind}", _compress(kind, data))
        assert triples(read_judgments(path, ESCI)) == [["q1", "a", 3], ["q2", "b", 1]], fmt
    bad = write(tmp_path, f"bad.csv.{kind}",
                _compress(kind, b"query_id,doc_id,grade\nq1,a,3\nq1,b,9\n"))
    with pytest.raises(InputError, match=r"bad\.csv\.\w+, line 3, field grade: grade '9'"):
        read_judgments(bad, ESCI)
    array = write(tmp_path, f"bad.jsonl.{kind}", _compress(kind, b'{"a": 1}\n[1]\n'))
    with pytest.raises(InputError, match="line 2: expected a JSON object, found an array"):
        read_judgments(array, ESCI)


def test_a_corrupt_compressed_file_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "j.csv.gz", b"not gzip at all")
    with pytest.raises(InputError, match=r"j\.csv\.gz: not a valid gzip file"):
        read_judgments(path, ESCI)


# -- 3. headerless files, column options, collisions ------------------------------------------

def test_headerless_queries_tsv_is_read_exactly(tmp_path: Path) -> None:
    path = write(tmp_path, "topics.tsv", 'q7.1\t"new york" pizza\nq7\tq7\nq8\t  spaced \n')
    got = read_queries(path)
    assert got.values.tolist() == [["q7.1", '"new york" pizza'], ["q7", "q7"],
                                   ["q8", "  spaced "]]
    assert read_queries(path, header=False).values.tolist() == got.values.tolist()


def test_headerless_csv_with_no_header_and_positions(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", 'x,"a, b",q1\ny,c,q2\n')
    got = read_queries(path, id_column="3", text_column="2", header=False)
    assert got.values.tolist() == [["q1", "a, b"], ["q2", "c"]]
    docs = read_documents(write(tmp_path, "d.tsv", "d1\tRed shoe\tshoes\n"), header=False)
    assert docs.values.tolist() == [["d1", "Red shoe", "shoes"]]
    assert list(docs.columns) == ["doc_id", "title", "3"]


def test_queries_with_a_header_and_named_columns(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", "qid,query,lang\n1,red shoes,en\n")
    got = read_queries(path, id_column="qid", text_column="query")
    assert got.values.tolist() == [["1", "red shoes"]]


def test_a_header_named_twice_is_one_line(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", "query_id,text,text\n1,a,b\n")
    with pytest.raises(InputError, match="line 1: column 'text' appears twice in the header"):
        read_queries(path)


@pytest.mark.parametrize("args, message", [
    (["import", "docs", "{d}", "--id-column", "t", "--title-column", "t"],
     "--id-column and --title-column both name column 't'"),
    (["import", "docs", "{d}", "--id-column", "t"],
     "the file has a column 'doc_id' besides --id-column 't'"),
    (["import", "queries", "{q}", "--id-column", "text"],
     "--id-column and --text-column both name column 'text'"),
    (["import", "judgments", "{j}", "--doc-column", "grade"],
     "--doc-column and --grade-column both name column 'grade'"),
    (["import", "judgments", "{jl}"], "line 2: expected a JSON object, found an array"),
    (["import", "docs", "{j}", "--no-header", "--format", "parquet"],
     "--no-header applies to CSV and TSV files, not parquet"),
])
def test_column_collisions_are_one_line_errors(tmp_path: Path, args: list[str],
                                               message: str) -> None:
    files = {"d": write(tmp_path, "d.csv", "doc_id,t\n1,a\n"),
             "q": write(tmp_path, "q.csv", "query_id,text\n1,a\n"),
             "j": write(tmp_path, "j.csv", "query_id,doc_id,grade\n1,a,1\n"),
             "jl": write(tmp_path, "j.jsonl", '{"query_id": "1"}\n[1]\n')}
    db = str(tmp_path / "s.duckdb")
    runner = CliRunner()
    assert runner.invoke(main, ["dataset", "create", "p", "--scale", "esci", "--db", db]
                         ).exit_code == 0
    filled = [a.format(**{k: str(v) for k, v in files.items()}) for a in args]
    result = runner.invoke(main, [*filled, "-d", "p", "--db", db])
    assert result.exit_code == 2, result.output
    assert message in result.output
    assert "Traceback" not in result.output and result.output.count("\n") == 1


def test_import_queries_cli_takes_the_column_options(tmp_path: Path) -> None:
    path = write(tmp_path, "q.tsv", "x\tq7.1\t\"new york\" pizza\n")
    db = str(tmp_path / "s.duckdb")
    runner = CliRunner()
    runner.invoke(main, ["dataset", "create", "p", "--scale", "esci", "--db", db])
    result = runner.invoke(main, ["import", "queries", str(path), "-d", "p", "--no-header",
                                  "--id-column", "2", "--text-column", "3", "--db", db])
    assert result.exit_code == 0, result.output
    with Store(db) as store:
        assert store.queries(store.dataset("p")).values.tolist() == [
            ["q7.1", '"new york" pizza']]


# -- 4. one writer with the formula guard -------------------------------------------------------

DANGEROUS = ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "\nx", "'=x", "'", "''", "plain",
             "", "a=b", " =x"]


def test_guard_and_unguard_are_inverse_on_every_dangerous_start() -> None:
    written = [csv_safe.guard(v) for v in DANGEROUS]
    assert written[:8] == ["'=1+1", "'+1", "'-1", "'@SUM(A1)", "'\tx", "'\rx", "'\nx", "''=x"]
    assert written[-4:] == ["plain", "", "a=b", " =x"]
    assert not any(str(w).startswith(("=", "+", "-", "@", "\t", "\r", "\n")) for w in written)
    assert csv_safe.unguard(pd.Series(written)).tolist() == DANGEROUS
    assert csv_safe.guard(-1) == -1  # numbers stay numbers


def test_headers_and_values_are_guarded_and_read_back(tmp_path: Path) -> None:
    frame = pd.DataFrame({"=judge": DANGEROUS, "-n": range(len(DANGEROUS))})
    path = tmp_path / "t.csv"
    csv_safe.write_csv(frame, path)
    raw = path.read_bytes().decode()
    assert raw.startswith("'=judge,'-n\r\n")  # a CR in a cell: CRLF lines so CR is quoted
    for line in raw.split("\r\n")[1:]:
        assert not line.startswith(("=", "+", "-", "@", "\t", "\r", "\n"))
    back = read_table(path)
    assert list(back.columns) == ["=judge", "-n", "line"]
    assert back["=judge"].tolist() == DANGEROUS
    assert back["-n"].tolist() == [str(n) for n in range(len(DANGEROUS))]


def test_tsv_refuses_a_cell_it_could_not_read_back(tmp_path: Path) -> None:
    csv_safe.write_table(pd.DataFrame({"id": ["=a", "b c"]}), tmp_path / "ok.tsv")
    assert (tmp_path / "ok.tsv").read_text() == "id\n'=a\nb c\n"
    with pytest.raises(SxsError, match="cannot write 'a\\\\tb' to TSV"):
        csv_safe.write_table(pd.DataFrame({"id": ["a\tb"]}), tmp_path / "bad.tsv")


ROUND_TRIP = settings(max_examples=150, deadline=None,
                      suppress_health_check=[HealthCheck.function_scoped_fixture])
# any text but NUL, which no reader accepts (tests/io/test_nul_bytes.py)
ids = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=12) | \
    st.sampled_from(["\n", " a ", "a\r\nb", "\r", '"', '""x"', "=1", "'", " ", "\u2028",
                     "\ufeff", "nan", "NA", "é", "😀", "a,b", "\x01"])


@ROUND_TRIP
@given(values=st.lists(ids, min_size=1, max_size=8))
def test_ids_round_trip_through_csv_and_parquet(tmp_path: Path, values: list[str]) -> None:
    frame = pd.DataFrame({"n": range(len(values)), "query_id": values, "doc_id": values[::-1]})
    for name in ("rt.csv", "rt.parquet"):
        path = tmp_path / name
        csv_safe.write_table(frame, path)
        back = read_table(path)
        assert back["query_id"].tolist() == values, name
        assert back["doc_id"].tolist() == values[::-1], name
        again = tmp_path / f"again-{name}"
        csv_safe.write_table(back.drop(columns="line").astype({"n": int}), again)
        assert again.read_bytes() == path.read_bytes(), name


def test_evaluate_and_compare_csv_output_is_guarded(tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    with Store(db) as store:
        dataset = store.create_dataset("p", ESCI)
        store.put_judgments(dataset, pd.DataFrame({"query_id": ["=q"], "doc_id": ["a"],
                                                   "grade": [3]}), "seed")
        for name in ("-run", "@b"):
            store.put_run(dataset, name, pd.DataFrame({
                "query_id": ["=q"], "doc_id": ["a"], "rank": [1], "score": [1.0], "line": [1]}),
                "seed")
    runner = CliRunner()
    result = runner.invoke(main, ["evaluate", "-d", "p", "--run", "-run", "--per-query",
                                  "-m", "ndcg@10", "--format", "csv", "--db", db])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == ["run,labels,query_id,ndcg@10", "'-run,dataset,'=q,1.0"]
    out = tmp_path / "deltas.csv"
    result = runner.invoke(main, ["compare", "-d", "p", "-m", "ndcg@10", "--permutations",
                                  "10", "-o", str(out), "--format", "csv", "--db", db, "--",
                                  "-run", "@b"])
    assert result.exit_code == 0, result.output
    assert "'=q," in out.read_text().splitlines()[1]
    assert not any(cell.startswith(("=", "+", "-", "@"))
                   for line in result.stdout.splitlines()[1:] for cell in line.split(","))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["query_id", "doc_id", "grade", "x"]), inner, max_size=4),
    max_leaves=8)
FUZZ = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(values=st.lists(json_values, max_size=6), kind=st.sampled_from(
    ["jsonl", "json", "jsonl.gz", "json.bz2"]), srw_wrap=st.booleans())
def test_fuzzed_json_reads_or_fails_in_one_line(tmp_path: Path, values: list,
                                                 kind: str, srw_wrap: bool) -> None:
    if kind.startswith("jsonl"):
        text = "\n".join(json.dumps(v) for v in values)
    elif srw_wrap:
        text = json.dumps({"judgmentRatings": values})
    else:
        text = json.dumps(values, indent=1)
    data = text.encode()
    if kind.endswith(".gz"):
        data = gzip.compress(data)
    elif kind.endswith(".bz2"):
        data = bz2.compress(data)
    path = write(tmp_path, f"fuzz.{kind}", data)
    for action in (lambda: read_judgments(path, ESCI, on_conflict="last"),
                   lambda: read_queries(path), lambda: read_documents(path)):
        try:
            action()
        except InputError as error:
            assert str(error).startswith(str(path)) and "\n" not in str(error)


def test_json_lines_split_objects_are_refused_not_joined(tmp_path: Path) -> None:
    # each line must be an object on its own, even when the lines joined would parse
    path = write(tmp_path, "j.jsonl", '{"query_id": "q1", "doc_id": "a}\n'
                                      '{", "grade": 1}, {"x": 1}\n{"a": [{}\n{}]}\n')
    with pytest.raises(InputError, match="line 1: not valid JSON"):
        read_judgments(path, ESCI)
