"""Issue 24, votes and reasons leave the store: ``sxs export votes`` writes every side-by-side
vote with all the store holds of it (stale and retracted ones marked), and ``sxs import votes``
reads it back into another store holding the same dataset, queries and runs: exporting again
gives the identical file (CSV, Parquet, JSONL), the experts' win rate is the same, importing
twice adds nothing, and a bad file is refused in one line naming file, line and field with
nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from judge_app.cli import main
from judge_app.services import demo, exporting, importing, judging
from judge_app.services.dashboard import dashboard
from judge_app.store import Store

RUNS = ("title", "bm25")


def sxs(db: Path, *args: str) -> Result:
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, result.output
    return result


def changed_bm25(tmp: Path, query_id: str) -> Path:
    """The demo's bm25 run with the top two docs of ``query_id`` swapped."""
    lines = (demo.demo_data_dir() / "run_bm25.txt").read_text().splitlines()
    at = [i for i, line in enumerate(lines) if line.split()[0] == query_id][:2]
    first, second = (lines[i].split() for i in at)
    first[2], second[2] = second[2], first[2]
    lines[at[0]], lines[at[1]] = " ".join(first), " ".join(second)
    path = tmp / "bm25_changed.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def demo_store(db: Path, changed: Path) -> None:
    """The demo store with bm25 replaced by ``changed`` (the same runs in either store)."""
    with Store(db) as store:
        demo.build_demo_store(store)
    ok(sxs(db, "import", "run", "-d", "cranfield", str(changed), "--name", "bm25",
           "--replace"))


@pytest.fixture(scope="module")
def voted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[str]]:
    """A demo store with five votes cast through the services by a typed (unverified) and an
    invited judge, reasons a spreadsheet would run among them: one retracted, one made stale
    by re-importing bm25 with a changed ranking of its query."""
    tmp = tmp_path_factory.mktemp("votes")
    db = tmp / "source.duckdb"
    with Store(db) as store:
        demo.build_demo_store(store)
        dataset = store.dataset("cranfield")
        store.typed_judge("ann")
        store.invite_judge("bob")
        queries = list(store.queries(dataset)["query_id"])[:5]
        cast = [("ann", "left", "=SUM(A1)"), ("bob", "right", "better,\n\"quoted\""),
                ("ann", "tie", None), ("bob", "both_bad", "-nothing relevant"),
                ("ann", "right", "@later")]
        for query, (judge, choice, reason) in zip(queries, cast, strict=True):
            view = judging.side_by_side(store, dataset, *RUNS, query, 10, judge, blind=True,
                                        overlap=2)
            assert judging.record_vote(store, dataset, view, choice, judge, reason, 1500)
        assert judging.undo_last_vote(store, dataset, "bob", *RUNS, "undo-1") == queries[3]
    changed = changed_bm25(tmp, queries[1])
    ok(sxs(db, "import", "run", "-d", "cranfield", str(changed), "--name", "bm25",
           "--replace"))
    return db, changed, queries


def test_export_votes_writes_every_field_with_stale_and_retracted_marked(voted) -> None:
    db, _, queries = voted
    out = db.parent / "marked.csv"
    result = ok(sxs(db, "export", "votes", str(out), "-d", "cranfield"))
    assert "wrote 5 votes" in result.output
    frame = pd.read_csv(out, dtype=str, keep_default_na=False)
    assert list(frame["query_id"]) == queries
    assert list(frame["stale"]) == ["False", "True", "False", "False", "False"]
    assert [bool(t) for t in frame["retracted_at"]] == [False, False, False, True, False]
    assert list(frame["judge"]) == ["ann (unverified)", "bob", "ann (unverified)", "bob",
                                    "ann (unverified)"]
    assert list(frame["reason"]) == ["'=SUM(A1)", "better,\n\"quoted\"", "",
                                     "'-nothing relevant", "'@later"]
    assert set(frame["overlap"]) == {"2"} and set(frame["k"]) == {"10"}
    assert set(frame["blind"]) == {"True"} and set(frame["ms_spent"]) == {"1500"}
    for _, row in frame.iterrows():
        other = row["run_2"] if row["left_run"] == row["run_1"] else row["run_1"]
        assert row["preferred_run"] == {"left": row["left_run"], "right": other}.get(
            row["choice"], "")


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_votes_round_trip_into_a_new_store(voted, tmp_path: Path, fmt: str) -> None:
    db, changed, _ = voted
    first, again = tmp_path / f"first.{fmt}", tmp_path / f"again.{fmt}"
    ok(sxs(db, "export", "votes", str(first), "-d", "cranfield", "--format", fmt))
    target = tmp_path / "target.duckdb"
    demo_store(target, changed)
    imported = ok(sxs(target, "import", "votes", str(first), "-d", "cranfield"))
    assert "imported 5 votes" in imported.output
    ok(sxs(target, "export", "votes", str(again), "-d", "cranfield", "--format", fmt))
    assert again.read_bytes() == first.read_bytes()
    twice = ok(sxs(target, "import", "votes", str(first), "-d", "cranfield"))
    assert "imported 0 votes" in twice.output
    with Store(db, read_only=True) as source, Store(target, read_only=True) as copy:
        boards = [dashboard(store, store.dataset("cranfield"), *RUNS, permutations=10)
                  for store in (source, copy)]
        counted = [len(store.vote_counts(store.dataset("cranfield"), *RUNS, "nobody"))
                   for store in (source, copy)]
    pd.testing.assert_frame_equal(boards[0].experts, boards[1].experts)
    assert boards[0].stale_votes == boards[1].stale_votes == 1
    assert counted == [3, 3]  # five votes, one retracted, one stale


def test_the_same_store_imports_its_own_export_as_nothing_new(voted, tmp_path: Path) -> None:
    db, _, _ = voted
    out = tmp_path / "own.jsonl"
    ok(sxs(db, "export", "votes", str(out), "-d", "cranfield"))
    result = ok(sxs(db, "import", "votes", str(out), "-d", "cranfield"))
    assert "imported 0 votes" in result.output


def test_a_bad_votes_file_is_refused_in_one_line_with_nothing_written(voted, tmp_path: Path
                                                                      ) -> None:
    db, changed, _ = voted
    good = tmp_path / "good.jsonl"
    ok(sxs(db, "export", "votes", str(good), "-d", "cranfield"))
    rows = [json.loads(line) for line in good.read_text().splitlines()]
    rows[2]["choice"] = "maybe"
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(row) + "\n" for row in rows))
    target = tmp_path / "target.duckdb"
    demo_store(target, changed)
    result = sxs(target, "import", "votes", str(bad), "-d", "cranfield")
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"Error: {bad}, line 3, field choice: must be one of left, right, tie, both_bad; "
        "got 'maybe'"]
    rows[2]["choice"], rows[4]["query_id"] = "tie", "nowhere"
    bad.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = sxs(target, "import", "votes", str(bad), "-d", "cranfield")
    assert "line 5, field query_id: query 'nowhere' is not in dataset 'cranfield'" in result.output
    rows[4]["query_id"], rows[1]["reason"] = rows[3]["query_id"], "a\u0000b"
    bad.write_text("".join(json.dumps(row) + "\n" for row in rows))
    result = sxs(target, "import", "votes", str(bad), "-d", "cranfield")
    assert result.exit_code == 2 and "line 2, field reason" in result.output, result.output
    with Store(target, read_only=True) as store:
        assert store.all_votes(store.dataset("cranfield")).empty


def test_export_format_is_only_for_votes(voted, tmp_path: Path) -> None:
    db, _, _ = voted
    result = sxs(db, "export", "trec", str(tmp_path / "x.qrels"), "-d", "cranfield",
                 "--format", "csv")
    assert result.exit_code == 2 and "--format is for sxs export votes" in result.output


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_votes_import_into_either_backend_exports_the_same_file(voted, store_address,
                                                                tmp_path: Path,
                                                                fmt: str) -> None:
    """The target store on DuckDB and on PostgreSQL: the votes it stores export as the file
    they came from (times to the microsecond, flags, counts, the judges' marks)."""
    db, changed, _ = voted
    first, again = tmp_path / f"first.{fmt}", tmp_path / f"again.{fmt}"
    ok(sxs(db, "export", "votes", str(first), "-d", "cranfield"))
    with Store(store_address) as store:
        demo.build_demo_store(store)
        dataset = store.dataset("cranfield")
        importing.import_run(store, dataset, changed, "bm25", replace=True)
        assert importing.import_votes(store, dataset, first).rows == 5
        assert importing.import_votes(store, dataset, first).rows == 0
        exporting.export_votes(store, dataset, again)
        assert len(store.vote_counts(dataset, *RUNS, "nobody")) == 3
    assert again.read_bytes() == first.read_bytes()


def test_a_bad_csv_row_is_named_by_its_line_past_a_reason_of_two_lines(voted, tmp_path: Path
                                                                       ) -> None:
    db, _, _ = voted
    good = tmp_path / "good.csv"
    ok(sxs(db, "export", "votes", str(good), "-d", "cranfield"))
    text = good.read_text()
    assert "better,\n" in text  # the second vote's reason spans lines 3 and 4
    bad = tmp_path / "bad.csv"
    bad.write_text(text.replace(",tie,", ",maybe,"))
    result = sxs(db, "import", "votes", str(bad), "-d", "cranfield")
    assert result.exit_code == 2
    assert f"{bad}, line 5, field choice" in result.output, result.output
