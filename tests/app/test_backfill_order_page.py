"""The Backfill page serves the order ``sxs backfill next`` prints (issue 22, items 2 and 4), under
AppTest on the small store of :mod:`tests.services.backfill_store` (weight and decision orders
differ from the first pair on; no gold items, no re-judging).

Grade after grade, the pair the page serves is the first line of ``sxs backfill next a b -d
small -m ndcg_m@3 --batch 1`` read through the CLI just before, and each grade is stored with
``judging_policy`` ``decision``; filling the top k of runs other than the round's pair, the
page says it serves by weight and records ``weight``.  Settings shows the round's "Backfill
order" and keeps it."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.backfill_order import FALLBACK_NOTE
from judge_app.services.queue import BACKFILL_POLICIES
from tests.app.signed_pages import page, shown
from tests.services.backfill_store import DATASET, small_store
from tests.services.test_backfill_order import cli_order


@pytest.fixture
def db(tmp_path: Path, monkeypatch) -> Path:
    path = small_store(tmp_path / "small.duckdb")
    monkeypatch.setenv("SXS_DB", str(path))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    return path


def served_pair(at: AppTest) -> tuple[str, str]:
    """The (query_id, doc_id) the page serves: its card's caption and title (Doc <doc_id>)."""
    query = next(shown(c.value) for c in at.caption if shown(c.value).startswith("Query "))
    title = next(shown(m.value) for m in at.markdown if shown(m.value).startswith("Doc "))
    return query.split(" ")[1], title.removeprefix("Doc ")


def grade(at: AppTest, value: int) -> None:
    next(b for b in at.button if b.key == f"bf:{value}").click().run()
    assert not at.exception, at.exception


def history(db: Path):
    from judge_app.ui.resources import open_store  # the app's own store: the file is held

    store = open_store(str(db))
    return store.expert_label_history(store.dataset(DATASET))


def test_the_page_serves_the_clis_order_and_records_decision(db: Path) -> None:
    at = page(db, "ann", "app_pages/backfill.py")
    assert any("order: decision" in shown(c.value) for c in at.caption)
    graded = []
    for value in (0, 3, 1, 2):
        first = cli_order(db, batch=1)[0]
        assert served_pair(at) == first
        graded.append(first)
        grade(at, value)
    labels = history(db)
    assert list(zip(labels["query_id"], labels["doc_id"], strict=True)) == graded
    assert labels["judging_policy"].eq("decision").all()
    assert not any(doc.startswith("s") for _, doc in graded)  # the weight order's first


def test_other_runs_are_served_by_weight_and_the_page_says_so(db: Path) -> None:
    at = page(db, "ann", "app_pages/backfill.py")
    at.multiselect[0].set_value(["a", "b", "c"]).run()
    assert not at.exception, at.exception
    assert any(shown(c.value) == FALLBACK_NOTE for c in at.caption)
    assert any("order: weight" in shown(c.value) for c in at.caption)
    pair = served_pair(at)
    assert pair[1].startswith("s")  # first in every run: the most weight
    grade(at, 1)
    labels = history(db)
    assert list(labels["doc_id"]) == [pair[1]]
    assert list(labels["judging_policy"]) == ["weight"]


def test_settings_shows_and_keeps_the_backfill_order(db: Path) -> None:
    from judge_app.ui.resources import open_store

    store = open_store(str(db))
    dataset = store.dataset(DATASET)
    at = page(db, "root", "app_pages/settings.py", admin=True)
    order = next(s for s in at.selectbox if s.label == "Backfill order")
    assert order.options == [o.value for o in BACKFILL_POLICIES]
    assert order.value == "decision"  # saved without one: the default
    assert all(o.description in order.help for o in BACKFILL_POLICIES)
    order.set_value("weight")
    next(b for b in at.button if b.label == "Start this round").click().run()
    assert not at.exception, at.exception
    assert store.current_round(dataset).backfill_policy == "weight"
    assert next(s for s in at.selectbox if s.label == "Backfill order").value == "weight"
    next(b for b in at.button if b.label == "Start this round").click().run()  # kept
    assert store.current_round(dataset).backfill_policy == "weight"
    backfill = page(db, "ann", "app_pages/backfill.py")
    assert any("order: weight" in shown(c.value) for c in backfill.caption)
    assert served_pair(backfill)[1].startswith("s")


def test_a_blind_round_never_names_its_runs_on_the_backfill_page(tmp_path: Path,
                                                                   monkeypatch) -> None:
    """In a blind round the page fills the round's two runs without naming them: no box of
    run names (whose default order would say which run is A), and still the decision order."""
    path = small_store(tmp_path / "blind.duckdb", blind=True)
    monkeypatch.setenv("SXS_DB", str(path))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = page(path, "ann", "app_pages/backfill.py")
    assert not at.exception, at.exception
    assert not [m for m in at.multiselect if m.label == "Runs whose top k to fill"]
    assert any("order: decision" in shown(c.value) for c in at.caption)
    assert served_pair(at) == cli_order(path, batch=1)[0]
