"""Issue 25, My work, under AppTest on the demo store: the page lists the judge's own votes and
grades newest first with a link to each query; following a link (``?query=``) opens the query
on the judge page, drawn by ``Rule.OPENED`` (the "why this query came" line says so), and a
vote there is a re-vote stored as a new row; a judge may not open a query they never worked
on; an admin's query search in the sidebar opens any query."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.demo import build_demo_store
from judge_app.services.queue import Rule
from judge_app.store import Store
from judge_app.ui import state
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("mywork") / "demo.duckdb"
    with Store(path) as store:
        build_demo_store(store)
    return path


@pytest.fixture
def app(demo_db: Path, monkeypatch) -> AppTest:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    return AppTest.from_file(APP, default_timeout=60)


def store_of(demo_db: Path) -> Store:
    from judge_app.ui.resources import open_store
    return open_store(str(demo_db))


def vote_button(app: AppTest, choice: str):
    return next(b for b in app.button if str(b.key).startswith(f"vote:{choice}:"))


def captions(app: AppTest) -> list[str]:
    return [re.sub(r"\\(.)", r"\1", str(c.value)) for c in app.caption]


def test_my_work_lists_the_vote_and_its_link_reopens_the_query_for_a_revote(
        app: AppTest, demo_db: Path) -> None:
    signed_in(app, demo_db, "worker").run()
    assert not app.exception, app.exception
    app.switch_page("app_pages/my_work.py").run()
    assert not app.exception, app.exception
    assert any("Nothing yet on cranfield" in i.value for i in app.info)

    app.switch_page("app_pages/judge.py").run()
    voted = app.session_state[state.VIEW]
    app.text_input(key=f"reason:{voted.view_id}").input("left answers it")
    vote_button(app, "left").click().run()
    assert not app.exception, app.exception

    app.switch_page("app_pages/my_work.py").run()
    assert not app.exception, app.exception
    assert any("1 vote and 0 grades" in c for c in captions(app))
    shown = [m.value for m in app.markdown]
    assert any("Left better" in m for m in shown)
    assert "left answers it" in captions(app) and "current" in captions(app)
    (link,) = [e for e in app.get("page_link")]
    assert link.proto.label.startswith(f"{voted.query_id} · ")
    assert link.proto.query_string == f"query={voted.query_id}"  # to the judge page
    assert not link.proto.external

    app.query_params["query"] = voted.query_id  # what the link carries
    app.switch_page("app_pages/judge.py").run()
    assert not app.exception, app.exception
    opened = app.session_state[state.VIEW]
    assert opened.query_id == voted.query_id and opened.rule is Rule.OPENED
    assert Rule.OPENED.sentence in captions(app)
    assert "query" not in app.query_params  # taken once
    app.session_state[state.VOTED_AT] = -1e9  # a judge who read it (the double-click guard)
    vote_button(app, "tie").click().run()
    assert not app.exception, app.exception

    app.switch_page("app_pages/my_work.py").run()
    assert any("2 votes and 0 grades" in c for c in captions(app))
    statuses = [c for c in captions(app) if c in ("current", "*replaced*")]
    assert statuses == ["current", "*replaced*"]
    votes = store_of(demo_db).preferences(store_of(demo_db).dataset("cranfield"),
                                          include_retracted=True)
    mine = votes[votes["judge"] == "worker"]
    assert mine["choice"].tolist() == ["left", "tie"]
    assert mine["retracted"].tolist() == [True, False]


def test_a_judge_cannot_open_a_query_they_never_worked_on(app: AppTest,
                                                          demo_db: Path) -> None:
    signed_in(app, demo_db, "newbie").run()
    app.query_params["query"] = "1"
    app.run()
    assert not app.exception, app.exception
    assert any("only the queries you voted on or graded" in e.value for e in app.error)
    assert app.session_state[state.VIEW].rule is not Rule.OPENED  # the queue went on
    assert not [t for t in app.text_input if t.key == "sxs.query_search"]  # admins only


def test_an_admin_finds_and_opens_a_query_from_the_sidebar(app: AppTest,
                                                           demo_db: Path) -> None:
    signed_in(app, demo_db, "boss", admin=True).run()
    assert not app.exception, app.exception
    app.text_input(key="sxs.query_search").input("9").run()
    opener = next(b for b in app.button if b.key == "open:9")
    opener.click().run()
    assert not app.exception, app.exception
    view = app.session_state[state.VIEW]
    assert (view.query_id, view.rule) == ("9", Rule.OPENED)
    assert Rule.OPENED.sentence in captions(app)
