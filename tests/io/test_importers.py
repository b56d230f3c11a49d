"""Every importer and each kind of bad input: a clear error naming file, line and field, and
nothing stored."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from judge_app.errors import ConflictError, InputError
from judge_app.io.labels import ColumnMap
from judge_app.services import importing
from judge_app.store import Store
from metrics import ESCI, WANDS
from metrics.scale import CRANFIELD


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.duckdb") as opened:
        yield opened


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def test_trec_qrels_import(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "q.txt", "q1 0 d1 3\nq1 0 d2 0\n\nq2 0 d1 2\n")
    report = importing.import_qrels(store, dataset, path)
    assert report.rows == 3
    got = store.judgments(dataset)
    assert got[["query_id", "doc_id", "grade"]].values.tolist() == [
        ["q1", "d1", 3], ["q1", "d2", 0], ["q2", "d1", 2]]


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"),
    (b"\xef\xbb\xbf", "the file is empty"),
    (b"q1 0 d1 3\nq1 0 d2\n", "line 2, field grade: expected 4 fields, found 3"),
    (b"q1 0 d1 3\nq1 0 d2 1 extra\n", "line 2: expected 4 fields, found 5"),
    (b"q1 0 d1 3\nq1 0 d2 high\n", "line 2, field grade: grade 'high' is not a whole number"),
    (b"q1 0 d1 3\nq1 0 d2 7\n", "line 2, field grade: grade '7' is outside the scale"),
    (b"q1 0 d1 3\nq1 0 d\xe9 1\n", "line 2: byte 0xe9 is not UTF-8"),
    (b"q1 0 d1 3\nq1 0 d1 1\n", "query 'q1', doc 'd1' is judged 3 and 1 on lines 1, 2"),
])
def test_bad_qrels_are_refused_and_nothing_is_stored(store: Store, tmp_path: Path,
                                                     content: bytes, message: str) -> None:
    dataset = store.create_dataset("p", ESCI)
    importing.import_qrels(store, dataset, write(tmp_path, "ok.txt", "q0 0 d0 1\n"))
    path = write(tmp_path, "bad.txt", content)
    with pytest.raises(InputError) as caught:
        importing.import_qrels(store, dataset, path)
    assert str(caught.value).startswith(str(path))
    assert message in str(caught.value)
    assert len(store.judgments(dataset)) == 1  # only the earlier file


def test_bom_and_crlf_import_like_plain_text(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    plain = write(tmp_path, "plain.txt", "q1 0 d1 3\nq1 0 d2 1\n")
    crlf = write(tmp_path, "crlf.txt", b"\xef\xbb\xbfq1 0 d1 3\r\nq1 0 d2 1\r\n")
    importing.import_qrels(store, dataset, plain)
    before = store.judgments(dataset)[["query_id", "doc_id", "grade"]]
    importing.import_qrels(store, dataset, crlf)  # same content: no conflict, no new rows
    after = store.judgments(dataset)[["query_id", "doc_id", "grade"]]
    pd.testing.assert_frame_equal(before, after)


def test_conflict_policies(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "q.txt", "q1 0 d1 3\nq1 0 d1 1\nq1 0 d2 2\nq1 0 d2 2\n")
    for policy, grade in (("max", 3), ("min", 1), ("last", 1)):
        # half the lines repeat a pair: forced past the degenerate-import guard
        importing.import_qrels(store, dataset, path, on_conflict=policy, force=True)
        got = store.judgments(dataset).set_index("doc_id")["grade"]
        assert got["d1"] == grade and got["d2"] == 2
    # against what is stored already
    later = write(tmp_path, "later.txt", "q1 0 d2 0\n")
    with pytest.raises(ConflictError, match="already judged 2 in the store, here 0"):
        importing.import_qrels(store, dataset, later)


def test_run_import_reranks_by_score_like_trec_eval(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "run.txt", "q1 Q0 a 1 1.0 sys\nq1 Q0 c 2 2.0 sys\n"
                                      "q1 Q0 b 3 2.0 sys\nq2 Q0 x 1 5 sys\n")
    report = importing.import_run(store, dataset, path)
    assert report.rows == 4 and "'sys'" in str(report)
    got = store.run(dataset, "sys")
    assert got[got["query_id"] == "q1"]["doc_id"].tolist() == ["c", "b", "a"]  # tie: doc desc
    importing.import_run(store, dataset, path, name="kept", trust_rank=True)
    kept = store.run(dataset, "kept")
    assert kept[kept["query_id"] == "q1"]["doc_id"].tolist() == ["a", "c", "b"]


@pytest.mark.parametrize("content, flags, message", [
    ("q1 Q0 a 1 1.0 s\nq1 Q0 a 2 0.5 s\n", {}, "line 2, field doc_id: doc 'a' appears twice "
     "in query 'q1' (lines 1 and 2)"),
    ("q1 Q0 a 1 1.0 s\nq1 Q0 b 1 0.5 s\n", {"trust_rank": True},
     "line 2, field rank: query 'q1' has two docs at rank 1"),
    ("q1 Q0 a 0 1.0 s\n", {"trust_rank": True}, "line 1, field rank: rank 0 is not positive"),
    ("q1 Q0 a 1 x s\n", {}, "line 1, field score: score 'x' is not a number"),
    ("q1 Q0 a one 1.0 s\n", {}, "line 1, field rank: rank 'one' is not a whole number"),
    ("q1 Q0 a 1\n", {}, "line 1, field score: expected 6 fields, found 4"),
    ("q1 Q0 a 1 1.0\n", {}, "line 1, field tag: expected 6 fields, found 5"),
])
def test_bad_runs_are_refused(store: Store, tmp_path: Path, content: str, flags: dict,
                              message: str) -> None:
    dataset = store.create_dataset("p", ESCI)
    with pytest.raises(InputError, match=None) as caught:
        importing.import_run(store, dataset, write(tmp_path, "r.txt", content), **flags)
    assert message in str(caught.value)
    assert store.run_names(dataset) == []


def test_dedupe_keeps_the_first_line(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    path = write(tmp_path, "r.txt", "q1 Q0 a 1 1.0 s\nq1 Q0 b 2 0.9 s\nq1 Q0 a 3 0.1 s\n")
    importing.import_run(store, dataset, path, dedupe=True, force=True)  # 1 of 3 lines merged
    got = store.run(dataset, "s")
    assert got[["doc_id", "rank", "score"]].values.tolist() == [["a", 1, 1.0], ["b", 2, 0.9]]


def test_judgments_by_grade_name_in_every_table_format(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("p", ESCI)
    frame = pd.DataFrame({"query": ["q1", "q1", "q2", "q2"], "product": ["a", "b", "a", "c"],
                          "esci_label": ["E", "substitute", "C", "I"]})
    want = [["q1", "a", 3], ["q1", "b", 2], ["q2", "a", 1], ["q2", "c", 0]]
    columns = ColumnMap("query", "product", "esci_label")
    paths = {"csv": tmp_path / "j.csv", "tsv": tmp_path / "j.tsv",
             "parquet": tmp_path / "j.parquet", "jsonl": tmp_path / "j.jsonl"}
    frame.to_csv(paths["csv"], index=False)
    frame.to_csv(paths["tsv"], sep="\t", index=False)
    frame.to_parquet(paths["parquet"])
    frame.to_json(paths["jsonl"], orient="records", lines=True)
    for path in paths.values():
        store_path = tmp_path / f"{path.suffix[1:]}.duckdb"
        with Store(store_path) as fresh:
            ds = fresh.create_dataset("p", ESCI)
            importing.import_judgments(fresh, ds, path, columns)
            got = fresh.judgments(ds)[["query_id", "doc_id", "grade"]].values.tolist()
            assert got == want, path
    assert dataset.scale == ESCI


@pytest.mark.parametrize("name, content, message", [
    ("j.csv", "query_id,doc_id,grade\nq1,a,Exact\nq1,b,Great\n",
     "line 3, field grade: unknown grade name 'Great' (0 Irrelevant, 1 Partial, 2 Exact)"),
    ("j.csv", "query_id,doc_id,grade\nq1,a,5\n", "grade '5' is outside the scale"),
    ("j.csv", "query_id,doc_id\nq1,a\n", "line 1: missing column(s) grade"),
    ("j.csv", "query_id\tdoc_id\tgrade\nq1\ta\t2\n",
     "the header is one column 'query_id\\tdoc_id\\tgrade': is the file tab-separated?"),
    ("j.csv", "query_id,doc_id,grade\n", "the file has a header but no rows"),
    ("j.csv", "query_id,doc_id,grade\n,a,2\n", "line 2, field query_id: query_id is empty"),
    ("j.tsv", "query_id\tdoc_id\tgrade\nq1\ta\tExact\nq1\ta\tPartial\n",
     "query 'q1', doc 'a' is judged 2 and 1 on lines 2, 3"),
])
def test_bad_judgment_tables(store: Store, tmp_path: Path, name: str, content: str,
                             message: str) -> None:
    dataset = store.create_dataset("w", WANDS)
    with pytest.raises(InputError) as caught:
        importing.import_judgments(store, dataset, write(tmp_path, name, content))
    assert message in str(caught.value)
    assert store.judgments(dataset).empty


def test_cranfield_codes_through_a_value_map(store: Store) -> None:
    dataset = store.create_dataset("cranfield", CRANFIELD)
    folder = Path(__file__).resolve().parents[2] / "data" / "cranfield"
    lines = [line.split() for line in (folder / "cranqrel").read_text().splitlines()
             if line.strip()]
    path = folder / "cranqrel"
    frame = pd.DataFrame(lines, columns=["query_id", "doc_id", "code"])
    csv_path = Path(store.path).with_suffix(".csv")
    frame.to_csv(csv_path, index=False)
    report = importing.import_judgments(store, dataset, csv_path,
                                       ColumnMap("query_id", "doc_id", "code"),
                                       value_map="1=4,2=3,3=2,4=1,-1=")
    unknown = sum(1 for parts in lines if parts[2] == "-1")
    assert report.dropped == unknown == 225
    assert report.rows == len(lines) - unknown
    via_qrels = pd.read_csv(folder / "qrels.txt", sep=" ", header=None,
                            names=["query_id", "it", "doc_id", "grade"], dtype=str)
    got = store.judgments(dataset)
    assert sorted(zip(got["query_id"], got["doc_id"], got["grade"].astype(str),
                      strict=True)) == sorted(zip(via_qrels["query_id"], via_qrels["doc_id"],
                                                  via_qrels["grade"], strict=True))
    assert path.exists()


def test_quepid_ratings_match_queries_by_text(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("w", WANDS)
    store.put_queries(dataset, pd.DataFrame({"query_id": ["7"], "text": ["Star Wars rug"]}))
    path = write(tmp_path, "r.csv", "query,docid,rating\n star wars RUG ,5204,1\n")
    importing.import_quepid(store, dataset, path)
    assert store.judgments(dataset)[["query_id", "doc_id", "grade"]].values.tolist() == [
        ["7", "5204", 1]]
    missing = write(tmp_path, "m.csv", "query,docid,rating\nlamp,1,1\n")
    with pytest.raises(InputError, match="line 2, field query: query 'lamp' matches no query"):
        importing.import_quepid(store, dataset, missing)


def test_documents_and_queries(store: Store, tmp_path: Path) -> None:
    dataset = store.create_dataset("w", WANDS)
    docs = write(tmp_path, "d.csv", "product_id,product_name,category\n1,rug,<b>home</b>\n"
                                    "2,lamp,light\n")
    importing.import_documents(store, dataset, docs, id_column="product_id",
                              title_column="product_name")
    got = store.documents(dataset).set_index("doc_id")
    assert got.loc["1", "title"] == "rug" and got.loc["1", "fields"] == {"category": "<b>home</b>"}
    twice = write(tmp_path, "d2.csv", "doc_id,title\n1,a\n1,b\n")
    with pytest.raises(InputError, match="line 3, field doc_id: doc '1' appears twice"):
        importing.import_documents(store, dataset, twice)
    queries = write(tmp_path, "q.tsv", "1\tred shoes\n2\tstar wars rug\n")
    importing.import_queries(store, dataset, queries)
    assert store.queries(dataset)["text"].tolist() == ["red shoes", "star wars rug"]
