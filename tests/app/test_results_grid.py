"""The judge page's results grid: what it is sent (which grade states it accepts back is
tests/services/test_grading.py; its script in a browser, test_results_grid_script.py)."""

from __future__ import annotations

import pytest

from judge_app.services.grading import ViewGrades
from judge_app.services.judging import ResultRow, SideBySide
from judge_app.ui.results_grid import LINE_CHARS, SNIPPET_CHARS, grid_data
from metrics.scale import GradeScale

SCALE = GradeScale.from_mapping({0: "Bad", 1: "Fair", 2: "Good"})


def row(rank: int, doc: str, *, grade: int | None = None, source: str | None = None,
        other: int | None = None, text: str = "") -> ResultRow:
    name = SCALE.name_of(grade) if grade is not None else None
    return ResultRow(rank, doc, f"title  of\n{doc}", {"text": text} if text else {}, grade,
                     name, source, other)


VIEW = SideBySide(query_id="q1", query_text="a query", run_a="a", run_b="b", left_run="b",
                  left=[row(1, "d1", other=2), row(2, "d2", grade=0, source="dataset"),
                        row(3, "d3", grade=2, source="expert")],
                  right=[row(1, "d4", grade=1, source="dataset"), row(2, "d1", other=1)],
                  view_id="view-1")


def test_rows_are_aligned_by_rank_with_a_gap_where_a_run_stops() -> None:
    data = grid_data(VIEW, ["text"], SCALE, ViewGrades(VIEW), full_text=False,
                     run_names=False)
    assert data["view"] == "view-1" and data["heads"] is None
    assert [[cell and cell["doc"] for cell in pair] for pair in data["rows"]] == [
        ["d1", "d4"], ["d2", "d1"], ["d3", None]]
    assert data["scale"] == [[0, "Bad"], [1, "Fair"], [2, "Good"]]  # lowest first


def test_each_result_says_its_label_and_where_the_other_run_has_it() -> None:
    grades = ViewGrades(VIEW, chosen={"d3": 0, "d1": 2}, seq=7)
    data = grid_data(VIEW, ["text"], SCALE, grades, full_text=False, run_names=True)
    (d1, d4), (d2, d1_right), (d3, _) = data["rows"]
    assert d1["badge"] == ["unlabelled", "unlabelled"] and d1["shared"] == "#2 right"
    assert d1_right["shared"] == "#1 left"
    assert d2["badge"] == ["irrelevant", "Bad"]
    assert d4["badge"] == ["relevant", "Fair"]
    assert d3["badge"] == ["expert", "Good (expert)"]
    # a grade given becomes the badge (the script's business) unless the dataset labelled it
    assert (d1["takes_grade"], d2["takes_grade"], d3["takes_grade"]) == (True, False, True)
    assert d1["title"] == "title of d1"  # white space (a newline) collapsed to one space
    assert data["selected"] == [["d3", 0], ["d1", 2]] and data["acked"] == 7
    assert data["heads"] == ["b", "a"]  # left is run b in this view


@pytest.mark.parametrize(("full_text", "limit"), [(False, LINE_CHARS), (True, SNIPPET_CHARS)])
def test_a_long_field_is_cut_with_an_ellipsis(full_text: bool, limit: int) -> None:
    long = SideBySide("q", "t", "a", "b", "a", [row(1, "d", text="x" * (limit + 5))], [], "v")
    short = SideBySide("q", "t", "a", "b", "a", [row(1, "d", text="x" * limit)], [], "v")
    cut = grid_data(long, ["text"], SCALE, ViewGrades(long), full_text, False)["rows"][0][0]
    kept = grid_data(short, ["text"], SCALE, ViewGrades(short), full_text, False)["rows"][0][0]
    assert cut["snippet"] == "text: " + "x" * limit + "…"
    assert kept["snippet"] == "text: " + "x" * limit
