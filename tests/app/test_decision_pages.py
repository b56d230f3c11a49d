"""The decision on the pages (issue 22, item 4), under AppTest on the tiny store of
:mod:`tests.services.decided_pair`: the dashboard opens with the Decision panel, the judge
and backfill pages show the decision in one line and, in a round that stops when decided,
tell the judge the pair is done; Settings sets the round's "Stop when decided"."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services import judging
from tests.app.signed_pages import page, shown
from tests.services.decided_pair import DATASET, DECIDING, tiny_store


@pytest.fixture
def db(tmp_path: Path, monkeypatch) -> Path:
    path = tiny_store(tmp_path / "tiny.duckdb")
    monkeypatch.setenv("SXS_DB", str(path))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    return path


def decide_it(db: Path) -> None:
    from judge_app.ui.resources import open_store  # the app's own store: the file is held

    store = open_store(str(db))
    dataset = store.dataset(DATASET)
    store.invite_judge("grader")
    for i, (query_id, doc_id, value) in enumerate(DECIDING):
        judging.record_grade(store, dataset, f"g{i}", query_id, doc_id, value, "grader")


def captions(at: AppTest) -> list[str]:
    return [shown(c.value) for c in at.caption]


def test_the_dashboard_opens_with_the_decision_panel(db: Path) -> None:
    at = page(db, "ann", "app_pages/dashboard.py")
    assert at.header[0].value == "Decision"
    assert "Labels: undecided" in shown(at.info[0].value)
    table = at.dataframe[0].value
    assert list(table.columns) == ["labels: ndcg_m@2", "expert votes"]
    assert list(table.index) == ["verdict", "stands on", "estimate", "label uncertainty",
                                 "query uncertainty", "still needed"]
    assert table.loc["stands on", "labels: ndcg_m@2"].startswith("10 of 16 pool pairs")
    assert any(c.endswith("the figures of sxs decide a b -d tiny -m ndcg_m@2")
               for c in captions(at))
    decide_it(db)
    at.run()
    assert not at.exception, at.exception
    assert "Labels: decided: B better" in shown(at.success[0].value)
    assert at.dataframe[0].value.loc["verdict", "labels: ndcg_m@2"] == "decided: B better"
    # the narrowing (labels, votes) beside each other under the table, with its caption
    panel = [type(e).__name__ for e in at.main][:12]
    assert panel[:6] == ["SpecialBlock", "Title", "Header", "Caption", "Success", "Dataframe"]
    assert panel.count("Column") == 2
    assert any(c.startswith("3 points: the dataset's judgments alone") for c in captions(at))


def test_the_judge_page_shows_the_line_then_says_the_pair_is_done(db: Path) -> None:
    at = page(db, "ann", "app_pages/judge.py")
    assert any(c.startswith("Decision on ndcg_m@2: labels undecided") for c in captions(at))
    assert not at.success
    decide_it(db)
    at.run()
    assert not at.exception, at.exception
    assert "This pair is decided: B better" in shown(at.success[0].value)
    assert "nothing more to judge" in shown(at.success[0].value)
    assert not [b for b in at.button if str(b.key).startswith("vote:")]


def test_the_backfill_page_shows_the_line_then_says_the_pair_is_done(db: Path) -> None:
    at = page(db, "ann", "app_pages/backfill.py")
    assert any(c.startswith("Decision on ndcg_m@2: labels undecided") for c in captions(at))
    decide_it(db)
    at.run()
    assert not at.exception, at.exception
    assert "This pair is decided" in shown(at.success[0].value)
    assert not [b for b in at.button if str(b.key).startswith("bf:")]


def test_a_blind_round_never_tells_the_judge_which_run_leads(tmp_path: Path,
                                                           monkeypatch) -> None:
    db = tiny_store(tmp_path / "blind.duckdb", votes=3, blind=True)
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = page(db, "ann", "app_pages/judge.py")
    line = next(c for c in captions(at) if c.startswith("Decision on ndcg_m@2"))
    assert line.startswith("Decision on ndcg_m@2: labels undecided (")
    assert "B" not in line.removeprefix("Decision on ndcg_m@2") and "Δ" not in line
    assert "votes: 3 for a side" in line
    decide_it(db)
    at.run()
    assert not at.exception, at.exception
    told = shown(at.success[0].value)
    assert told == "This pair is decided on ndcg_m@2, nothing more to judge. Thank you!"


def test_settings_sets_stop_when_decided(db: Path) -> None:
    at = page(db, "root", "app_pages/settings.py", admin=True)
    toggle = next(t for t in at.toggle if t.label == "Stop when decided")
    assert toggle.value  # the round's setting
    toggle.set_value(False)
    next(b for b in at.button if b.label == "Start this round").click().run()
    assert not at.exception, at.exception
    from judge_app.ui.resources import open_store  # the app's own store: the file is held

    store = open_store(str(db))
    assert not store.current_round(store.dataset(DATASET)).stop_when_decided
