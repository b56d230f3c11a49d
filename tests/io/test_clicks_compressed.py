"""Review findings on compressed click logs.

1. `sxs import clicks -d k log.csv.gz` (and `.ndjson.gz`, `.jsonl.gz`) fails with "cannot tell
   the click-log format from '.gz'; pass --format", although every other import reads the
   format through the compression suffix (`sxs import queries -d k q.tsv.gz` works) and the
   README promises compressed inputs "for every format".
2. The refusal of a log already imported compares the raw file bytes, so the same log gzipped
   is imported a second time and every count doubles (`k.csv` refused, `k.csv.gz --format csv`
   accepted as a new import).
"""

from __future__ import annotations

import gzip
from pathlib import Path

import duckdb
from click.testing import CliRunner

from judge_app.cli import main

LOG = ("session_id,query,doc_id,position,action,timestamp\n"
       "s1,red shoes,a,1,impression,2024-01-01T00:00:00Z\n"
       "s1,red shoes,a,1,click,2024-01-01T00:00:01Z\n"
       "s2,red shoes,b,2,click,2024-01-01T00:00:02Z\n")


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def prepared(tmp_path: Path) -> Path:
    db = tmp_path / "k.duckdb"
    queries = tmp_path / "q.tsv"
    queries.write_text("query_id\ttext\nq1\tred shoes\n")
    assert sxs(db, "dataset", "create", "k", "--scale", "esci").exit_code == 0
    assert sxs(db, "import", "queries", "-d", "k", str(queries)).exit_code == 0
    return db


def test_a_gzipped_csv_click_log_is_read_by_its_inner_suffix(tmp_path: Path) -> None:
    db = prepared(tmp_path)
    path = tmp_path / "log.csv.gz"
    path.write_bytes(gzip.compress(LOG.encode()))
    result = sxs(db, "import", "clicks", "-d", "k", str(path))
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from click_events").fetchone() == (2,)


def test_the_same_log_gzipped_is_not_imported_twice(tmp_path: Path) -> None:
    db = prepared(tmp_path)
    plain = tmp_path / "log.csv"
    plain.write_text(LOG)
    packed = tmp_path / "copy.csv.gz"
    packed.write_bytes(gzip.compress(LOG.encode()))
    assert sxs(db, "import", "clicks", "-d", "k", str(plain)).exit_code == 0
    again = sxs(db, "import", "clicks", "-d", "k", str(packed), "--format", "csv")
    assert again.exit_code == 2 and "already" in again.output, again.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from click_events").fetchone() == (2,)


def test_a_bzip2_ubi_log_is_read_by_its_inner_suffix_and_counted_once(tmp_path: Path) -> None:
    import bz2
    import json

    db = prepared(tmp_path)
    lines = []
    for n, (action, doc, position) in enumerate([("impression", "a", 0), ("click", "a", 0),
                                                 ("impression", "b", 1)]):
        lines += [json.dumps({"index": {"_index": "ubi_events"}}),
                  json.dumps({"action_name": action, "query_id": "q1", "session_id": "s1",
                              "timestamp": f"2024-01-01T00:00:0{n}Z",
                              "event_attributes": {"object": {"object_id": doc},
                                                   "position": {"ordinal": position}}})]
    text = "\n".join(lines) + "\n"
    packed = tmp_path / "events.ndjson.bz2"
    packed.write_bytes(bz2.compress(text.encode()))
    first = sxs(db, "import", "clicks", "-d", "k", str(packed))
    assert first.exit_code == 0, first.output
    plain = tmp_path / "events.ndjson"
    plain.write_text(text)
    again = sxs(db, "import", "clicks", "-d", "k", str(plain))
    assert again.exit_code == 2 and "already" in again.output, again.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from click_impressions").fetchone() == (2,)
        assert con.execute("select count(*) from click_events").fetchone() == (1,)
