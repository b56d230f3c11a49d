"""Disputed votes on the Side by side page (issue 23, item 5), under AppTest on the tiny store
of :mod:`tests.services.decided_pair`: a query whose two judges voted apart is drawn for a
third judge, before the queue, when the round lets a disputed item reach three judges — the
page passes the round's ``max_overlap`` to the draw (it built its round without it, so a
disputed query never reached a further judge on this page)."""

from __future__ import annotations

from pathlib import Path

from judge_app.services import judging
from judge_app.services.queue import Rule
from judge_app.store import Store
from tests.app.signed_pages import page, shown
from tests.services.decided_pair import DATASET, tiny_store


def test_a_disputed_query_goes_to_a_third_judge_on_the_judge_page(tmp_path: Path,
                                                                   monkeypatch) -> None:
    db = tiny_store(tmp_path / "tiny.duckdb", stop=False)
    with Store(db) as store:
        dataset = store.dataset(DATASET)
        store.set_round(dataset, "a", "b", k=2, overlap=2, blind=False, by="test",
                        gold_every=0, max_overlap=3)
        for judge, favoured in (("ann", "a"), ("bob", "b")):
            store.invite_judge(judge)
            view = judging.side_by_side(store, dataset, "a", "b", "q5", 2, judge, False)
            choice = "left" if view.left_run == favoured else "right"
            assert judging.record_vote(store, dataset, view, choice, judge)
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = page(db, "cy", "app_pages/judge.py")
    captions = [shown(c.value) for c in at.caption]
    assert any(c.startswith("query q5 ·") for c in captions), captions
    assert shown(Rule.DISPUTED.sentence) in captions, captions
