"""The judge page's results grid: what it is sent, and which grade clicks it accepts.

A grade click comes back from the browser as JSON; :func:`grade_event` is the only gate
between it and the store, so every way a click can be stale or forged is tried here."""

from __future__ import annotations

import pytest

from judge_app.services.judging import ResultRow, SideBySide
from judge_app.ui.results_grid import LINE_CHARS, SNIPPET_CHARS, GradeEvent, grade_event, grid_data
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
    data = grid_data(VIEW, ["text"], SCALE, {}, full_text=False, run_names=False)
    assert data["view"] == "view-1" and data["heads"] is None
    assert [[cell and cell["doc"] for cell in pair] for pair in data["rows"]] == [
        ["d1", "d4"], ["d2", "d1"], ["d3", None]]
    assert data["scale"] == [[0, "Bad"], [1, "Fair"], [2, "Good"]]  # lowest first


def test_each_result_says_its_label_and_where_the_other_run_has_it() -> None:
    data = grid_data(VIEW, ["text"], SCALE, {"d1": 2}, full_text=False, run_names=True)
    (d1, d4), (d2, d1_right), (d3, _) = data["rows"]
    assert d1["badge"] == ["unlabelled", "unlabelled"] and d1["shared"] == "#2 right"
    assert d1_right["shared"] == "#1 left"
    assert d2["badge"] == ["irrelevant", "Bad"]
    assert d4["badge"] == ["relevant", "Fair"]
    assert d3["badge"] == ["expert", "Good (expert)"]
    assert d1["title"] == "title of d1"  # white space (a newline) collapsed to one space
    assert data["selected"] == {"d1": 2}
    assert data["heads"] == ["b", "a"]  # left is run b in this view


@pytest.mark.parametrize(("full_text", "limit"), [(False, LINE_CHARS), (True, SNIPPET_CHARS)])
def test_a_long_field_is_cut_with_an_ellipsis(full_text: bool, limit: int) -> None:
    long = SideBySide("q", "t", "a", "b", "a", [row(1, "d", text="x" * (limit + 5))], [], "v")
    short = SideBySide("q", "t", "a", "b", "a", [row(1, "d", text="x" * limit)], [], "v")
    cut = grid_data(long, ["text"], SCALE, {}, full_text, False)["rows"][0][0]["snippet"]
    kept = grid_data(short, ["text"], SCALE, {}, full_text, False)["rows"][0][0]["snippet"]
    assert cut == "text: " + "x" * limit + "…"
    assert kept == "text: " + "x" * limit


def test_a_click_on_the_view_on_screen_is_accepted() -> None:
    assert grade_event({"view": "view-1", "doc": "d4", "grade": 2}, VIEW, SCALE) == GradeEvent(
        "d4", 2)
    assert grade_event({"view": "view-1", "doc": "d1", "grade": None}, VIEW, SCALE) == (
        GradeEvent("d1", None))  # a withdrawal


@pytest.mark.parametrize("event", [
    {"view": "view-0", "doc": "d1", "grade": 2},  # sent while the next query was drawn
    {"doc": "d1", "grade": 2},
    {"view": "view-1", "doc": "d9", "grade": 2},  # a doc this view does not show
    {"view": "view-1", "doc": ["d1"], "grade": 2},
    {"view": "view-1", "doc": "d1", "grade": 3},  # not on the scale
    {"view": "view-1", "doc": "d1", "grade": -1},
    {"view": "view-1", "doc": "d1", "grade": True},
    {"view": "view-1", "doc": "d1", "grade": 2.0},
    {"view": "view-1", "doc": "d1", "grade": "2"},
    {"view": "view-1", "doc": "d1"},  # no grade at all is not a withdrawal
    "view-1:d1:2", None, [], 2,
])
def test_a_stale_or_forged_click_is_refused(event: object) -> None:
    assert grade_event(event, VIEW, SCALE) is None


def test_no_click_counts_when_no_view_is_on_screen() -> None:
    assert grade_event({"view": "view-1", "doc": "d1", "grade": 2}, None, SCALE) is None
