"""Issue 22, item 2 on the pages (AppTest, the tiny store of :mod:`tests.services.decided_pair`):
the Settings round form chooses the round's "Queue order" among the
:class:`~judge_app.services.queue.QueuePolicy` members; the judge page then draws with it — the
"why this query" line says ``moves_decision``'s rule when it chose the query — and the vote
stored carries ``judging_policy`` ``moves_decision``."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_app.services import judging
from judge_app.services.queue import QueuePolicy, Rule
from tests.app.signed_pages import page, shown
from tests.services.decided_pair import DATASET, tiny_store


@pytest.fixture
def db(tmp_path: Path, monkeypatch) -> Path:
    path = tiny_store(tmp_path / "tiny.duckdb", stop=False)
    monkeypatch.setenv("SXS_DB", str(path))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    return path


def test_settings_chooses_the_queue_order_and_the_judge_page_draws_with_it(db: Path) -> None:
    from judge_app.ui.resources import open_store  # the app's own store: the file is held

    store = open_store(str(db))
    dataset = store.dataset(DATASET)
    assert store.current_round(dataset).queue_policy is None  # as before the setting

    at = page(db, "root", "app_pages/settings.py", admin=True)  # opening, root took q0
    order = next(s for s in at.selectbox if s.label == "Queue order")
    assert order.options == [p.value for p in QueuePolicy]
    assert order.value == "difference"  # a round without the setting reads as difference
    assert all(p.description in order.help for p in QueuePolicy)
    order.set_value("moves_decision")
    next(b for b in at.button if b.label == "Start this round").click().run()
    assert not at.exception, at.exception
    assert store.current_round(dataset).queue_policy == "moves_decision"
    assert next(s for s in at.selectbox if s.label == "Queue order").value == "moves_decision"

    # q0 is root's, q1 voted on (one judge per query): ann's queue starts q2 (unjudged: its
    # vote moves the decision) before q3 (judged), level on RBO, apart on unlabelled weight
    store.invite_judge("early")
    view = judging.side_by_side(store, dataset, "a", "b", "q1", 2, "early", False)
    judging.record_vote(store, dataset, view, "left", "early")
    judge = page(db, "ann", "app_pages/judge.py")
    assert any(shown(c.value) == shown(Rule.MOVES_DECISION.sentence) for c in judge.caption), (
        [c.value for c in judge.caption])
    next(b for b in judge.button if str(b.key).startswith("vote:left:")).click().run()
    assert not judge.exception, judge.exception
    votes = store.preferences(dataset, "a", "b")
    mine = votes[votes["judge"] == "ann"]
    assert list(mine["query_id"]) == ["q2"]
    assert list(mine["judging_policy"]) == ["moves_decision"]
