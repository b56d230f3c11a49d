"""Issue 24: ``sxs clicks grade`` estimates the position-bias curve over every query of the
log, as the stored settings say — a log whose dataset queries were shown but never clicked
grades them by the clicks the log's other queries got — and says what the curve stood on;
when nothing is graded it says why, never "0 graded" then "already in".

Behaviour change (documented in ``sxs clicks grade --help`` and :mod:`metrics.coec`): a pair
shown at least ``--min-impressions`` times and never clicked, in a log with clicks at its
ranks, now gets the lowest grade (COEC 0); before, with a curve over the dataset's queries
only, such a pair went ungraded when none of them had a click."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner, Result

from judge_app.cli import main
from judge_app.store import Store


def sxs(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result


def write_log(path: Path, other_clicks: bool = True) -> Path:
    """Three sessions of dataset query q1 ("red shoes": d1 at 1, d2 at 2, never clicked) and
    three of "green hat" (no dataset query: d8 at 1, d9 at 2; clicked at rank 1 in all
    three, at rank 2 once — unless ``other_clicks`` is False)."""
    rows = []
    for s in range(3):
        rows += [(f"r{s}", "red shoes", "q1", "d1", 1, "impression"),
                 (f"r{s}", "red shoes", "q1", "d2", 2, "impression"),
                 (f"g{s}", "green hat", "", "d8", 1, "impression"),
                 (f"g{s}", "green hat", "", "d9", 2, "impression")]
        if other_clicks:
            rows.append((f"g{s}", "green hat", "", "d8", 1, "click"))
    if other_clicks:
        rows.append(("g0", "green hat", "", "d9", 2, "click"))
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["session_id", "query", "query_id", "doc_id", "position", "action",
                      "timestamp"])
        for i, row in enumerate(rows):
            out.writerow([*row, f"2024-01-01T00:00:{i:02d}Z"])
    return path


def store_with_log(tmp_path: Path, other_clicks: bool = True) -> Path:
    db = tmp_path / "s.duckdb"
    queries = tmp_path / "q.tsv"
    queries.write_text("q1\tred shoes\n")
    sxs(db, "dataset", "create", "shop", "--scale", "esci")
    sxs(db, "import", "queries", "-d", "shop", str(queries))
    sxs(db, "import", "clicks", "-d", "shop", str(write_log(tmp_path / "log.csv",
                                                             other_clicks)))
    return db


def test_the_curve_is_over_every_query_of_the_log(tmp_path: Path) -> None:
    db = store_with_log(tmp_path)
    out = sxs(db, "clicks", "grade", "-d", "shop", "--min-impressions", "3").output
    # ctr(1) = 3/6, ctr(2) = 1/6: d1 expects 1.5 clicks, d2 0.5; neither clicked: COEC 0
    assert "2 graded with at least 3 impressions" in out
    assert "0 Irrelevant 2" in out
    assert ("position bias: CTR by rank over 12 impressions of the log (6 of them of queries "
            "outside the dataset) and their 4 clicks") in out
    assert "stored 2 labels of judge 'clicks:coec'" in out
    with Store(db) as store:
        labels = store.current_expert_labels(store.dataset("shop"))
    assert sorted(zip(labels["doc_id"], labels["grade"], strict=True)) == [("d1", 0),
                                                                           ("d2", 0)]
    note = json.loads(labels["note"].iloc[0])
    assert note["expected_clicks"] in (1.5, 0.5) and note["clicks"] == 0
    again = sxs(db, "clicks", "grade", "-d", "shop", "--min-impressions", "3").output
    assert "nothing new to store: every pair graded here is already in" in again


def test_when_nothing_is_graded_it_says_why(tmp_path: Path) -> None:
    db = store_with_log(tmp_path)
    few = sxs(db, "clicks", "grade", "-d", "shop").output  # default: 10 impressions
    assert "0 graded" in few
    assert ("nothing graded: no shown (query, doc) pair of the dataset's queries has 10 "
            "impressions (the most any has: 3); lower --min-impressions") in few
    assert "already in" not in few


def test_a_log_without_a_click_at_those_ranks_says_so(tmp_path: Path) -> None:
    db = store_with_log(tmp_path, other_clicks=False)
    out = sxs(db, "clicks", "grade", "-d", "shop", "--min-impressions", "3").output
    assert "0 graded" in out
    assert ("nothing graded: the 2 pairs with 3+ impressions expect no click — the log has "
            "no click at the ranks they were shown at") in out
    assert "already in" not in out
