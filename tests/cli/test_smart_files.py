"""SMART/Glasgow collections on the command line (issue 24): a classic collection goes in
with its own three files (``--format smart`` for documents, queries and relevance), counts
equal to the files'; malformed files are refused in one line naming file, line and field."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from judge_app.cli import main
from judge_app.store import Store

CRANFIELD = Path(__file__).resolve().parents[2] / "data" / "cranfield"

DOCS = """\
.I 1
.T
18 Editions of the Dewey Decimal Classifications
.A
Comaromi, J.P.
.W
   The present study is a history of the DEWEY Decimal
Classification.

.X
1\t5\t1
92\t1\t1
.I 2
.T
Use Made of Technical Libraries
.A
Slater, M.
.A
Fisher, R.
.W
This report is an analysis of 6300 acts of use
.I 003
.W
.5 percent of the books, a line that starts with a dot.
.B
1962
"""

QUERIES = """\
.I 1
.W
What problems and concerns are there in making up descriptive titles?
What difficulties are involved in automatically retrieving articles
.I 2
.T
Fisher
.W
How can actually pertinent data be found?
.B
something
"""

RELEVANCE = "1 1 0 0.000000\n1 2 0 0.000000\n2 003 0 0.000000\n2 2 0 0.000000\n"


def sxs(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def test_a_smart_collection_imports_with_its_three_files(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    docs, queries, rel = tmp_path / "CISI.ALL", tmp_path / "CISI.QRY", tmp_path / "CISI.REL"
    docs.write_text(DOCS)
    queries.write_text(QUERIES)
    rel.write_text(RELEVANCE)
    ok(sxs(db, "dataset", "create", "cisi", "--scale", "binary"))
    assert "imported 3 documents" in ok(sxs(db, "import", "docs", "-d", "cisi", str(docs),
                                            "--format", "smart")).output
    assert "imported 2 queries" in ok(sxs(db, "import", "queries", "-d", "cisi", str(queries),
                                          "--format", "smart")).output
    assert "imported 4 judgments" in ok(sxs(db, "import", "qrels", "-d", "cisi", str(rel),
                                            "--format", "smart")).output
    with Store(db) as store:
        dataset = store.dataset("cisi")
        stored = store.documents(dataset).set_index("doc_id")
        texts = store.queries(dataset).set_index("query_id")["text"].to_dict()
        judged = len(store.judgments(dataset))
    assert sorted(stored.index) == ["003", "1", "2"] and judged == 4
    assert stored.loc["1", "title"] == "18 Editions of the Dewey Decimal Classifications"
    assert stored.loc["1", "fields"] == {
        "author": "Comaromi, J.P.",
        "text": "The present study is a history of the DEWEY Decimal\nClassification.",
        "references": "1\t5\t1\n92\t1\t1"}
    assert stored.loc["2", "fields"]["author"] == "Slater, M.\n\nFisher, R."
    assert pd.isna(stored.loc["003", "title"])
    assert stored.loc["003", "fields"] == {
        "text": ".5 percent of the books, a line that starts with a dot.", "source": "1962"}
    assert texts == {"1": "What problems and concerns are there in making up descriptive "
                          "titles? What difficulties are involved in automatically retrieving "
                          "articles",
                     "2": "How can actually pertinent data be found?"}


def _smart_lines(records: list[tuple[str, dict[str, str]]]) -> str:
    return "".join(f".I {rid}\n" + "".join(f".{m}\n{text}\n" for m, text in fields.items())
                   for rid, fields in records)


def test_cranfield_written_as_smart_files_imports_with_the_files_counts(tmp_path: Path) -> None:
    """data/cranfield ships its documents and queries converted (docs.jsonl, queries.tsv,
    see its README) and its judgments as ``cranqrel`` (``query doc code``): written back in
    the SMART layout of cran.all.1400, cran.qry and a ``.REL`` file (``qid docid 0 0.000000``,
    every listed pair relevant), the three import with ``--format smart`` and read back as
    the shipped files hold them — 1,400 documents, 225 queries, 1,837 judged pairs."""
    docs = [json.loads(line) for line in (CRANFIELD / "docs.jsonl").read_text().splitlines()]
    queries = pd.read_csv(CRANFIELD / "queries.tsv", sep="\t", header=None, dtype=str,
                          names=["query_id", "text"])
    all_file, qry_file = tmp_path / "cran.all.1400", tmp_path / "cran.qry"
    all_file.write_text(_smart_lines([(d["doc_id"], {"T": d["title"], "A": d["author"],
                                                     "B": "", "W": d["text"]}) for d in docs]))
    qry_file.write_text(_smart_lines([(q, {"W": t}) for q, t in zip(
        queries["query_id"], queries["text"], strict=True)]))
    db = tmp_path / "c.duckdb"
    ok(sxs(db, "dataset", "create", "cran", "--scale", "cranfield"))
    assert "imported 1,400 documents" in ok(sxs(db, "import", "docs", "-d", "cran",
                                                str(all_file), "--format", "smart")).output
    assert "imported 225 queries" in ok(sxs(db, "import", "queries", "-d", "cran",
                                            str(qry_file), "--format", "smart")).output
    with Store(db) as store:
        dataset = store.dataset("cran")
        stored = store.documents(dataset).set_index("doc_id")
        texts = store.queries(dataset).set_index("query_id")["text"]
    first = docs[0]
    assert stored.loc[first["doc_id"], "title"] == first["title"]
    assert stored.loc[first["doc_id"], "fields"] == {"author": first["author"],
                                                     "text": first["text"], "source": ""}
    assert texts.to_dict() == dict(zip(queries["query_id"], queries["text"], strict=True))
    pairs = [tuple(line.split()[:2]) for line in (CRANFIELD / "cranqrel").read_text()
             .splitlines() if line.strip()]
    rel_file = tmp_path / "CRAN.REL"
    rel_file.write_text("".join(f"{q:>5} {d:>5} 0 0.000000\n" for q, d in pairs))
    db = tmp_path / "binary.duckdb"  # a SMART relevance file is binary: listed = relevant
    ok(sxs(db, "dataset", "create", "cran", "--scale", "binary"))
    for kind, path in (("docs", all_file), ("queries", qry_file)):
        ok(sxs(db, "import", kind, "-d", "cran", str(path), "--format", "smart"))
    assert f"imported {len(set(pairs)):,} judgments" in ok(sxs(
        db, "import", "qrels", "-d", "cran", str(rel_file), "--format", "smart")).output
    with Store(db) as store:
        dataset = store.dataset("cran")
        judged = store.judgments(dataset)
        known_docs = set(store.documents(dataset)["doc_id"])
        known_queries = set(store.queries(dataset)["query_id"])
    assert len(pairs) == len(set(pairs)) == len(judged) == 1837
    assert set(zip(judged["query_id"], judged["doc_id"], strict=True)) == set(pairs)
    assert set(judged["grade"]) == {1}
    assert set(judged["doc_id"]) <= known_docs and set(judged["query_id"]) <= known_queries


@pytest.mark.parametrize("kind, content, where", [
    ("docs", "an abstract\n.I 1\n.W\ntext\n", "line 1, field .I: text before the first .I"),
    ("docs", ".I 1\n.W\na\n.I 2\n.W\nb\n.I 1\n.W\nc\n",
     "line 7, field .I: doc '1' appears twice"),
    ("docs", ".I 1\n.W\na\n.Z\nb\n", "line 4, field .Z: unknown field marker .Z"),
    ("docs", ".I\n.W\na\n", "line 1, field .I: a .I line without an id"),
    ("docs", ".I 1 2\n.W\na\n", "line 1, field .I: a .I line with more than one word"),
    ("docs", ".I 1\nstray text\n.W\na\n",
     "line 2, field .I 1: text before the record's first field marker"),
    ("queries", ".I 1\n.W\nok\n.I 2\n.T\nno text\n", "line 4, field .W: the query text is "
     "empty"),
    ("queries", "\n\n", "no .I record"),
])
def test_malformed_smart_files_are_refused_in_one_line(tmp_path: Path, kind: str,
                                                       content: str, where: str) -> None:
    db = tmp_path / "s.duckdb"
    ok(sxs(db, "dataset", "create", "a", "--scale", "binary"))
    path = tmp_path / "bad.smart"
    path.write_text(content)
    result = sxs(db, "import", kind, "-d", "a", str(path), "--format", "smart")
    assert result.exit_code == 2, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"Error: {path}"), result.output
    assert where in lines[0], lines[0]
    with Store(db) as store:
        dataset = store.dataset("a")
        assert store.documents(dataset).empty and store.queries(dataset).empty
