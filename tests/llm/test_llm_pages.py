"""The app's LLM parts under AppTest: the admin page starts a run against the real local
server and shows how it ended; the dashboard shows the LLM block, and only an admin can count
the LLM's labels (and the figures then say so)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.store import Store
from judge_app.ui import state
from tests.llm.conftest import API_KEY
from tests.llm.shop import build_shop
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


@pytest.fixture
def shop_db(tmp_path) -> Path:
    path = tmp_path / "pages.duckdb"
    with Store(path) as store:
        build_shop(store)
    return path


def app_for(db: Path, judge: str, monkeypatch) -> AppTest:
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.setenv("SXS_ADMINS", "admin")
    monkeypatch.setenv("SXS_TEST_LLM_KEY", API_KEY)
    return signed_in(AppTest.from_file(APP, default_timeout=60), db, judge,
                     admin=judge == "admin")


def wait_for_runs(timeout: float = 60.0) -> None:
    for thread in threading.enumerate():
        if thread.name.startswith("llm-judge "):
            thread.join(timeout)
            assert not thread.is_alive(), f"{thread.name} still running"


def test_the_admin_page_runs_the_llm_in_the_background(shop_db, fake, monkeypatch) -> None:
    at = app_for(shop_db, "admin", monkeypatch)
    at.run()
    at.switch_page("app_pages/llm_judge.py").run()
    assert not at.exception, at.exception
    at.radio(key="llm:task").set_value("prefer")
    at.number_input(key="llm:k").set_value(2)
    at.text_input(key="llm:base_url").input(fake.base_url)
    at.text_input(key="llm:model").input("judge-model")
    at.text_input(key="llm:key_env").input("SXS_TEST_LLM_KEY")
    next(b for b in at.button if b.label == "Start").click().run()
    assert not at.exception, at.exception
    wait_for_runs()
    assert len(fake.seen) == 7
    assert {seen.authorization for seen in fake.seen} == {f"Bearer {API_KEY}"}
    at.run()
    captions = [c.value.replace("\\", "") for c in at.caption]  # markdown escapes off
    assert any("llm:judge-model prefer: 3 answered, 1 failed" in c for c in captions), captions
    assert any("position bias" in c and "1 of 3" in c for c in captions), captions
    with _shared(shop_db) as store:
        counts = store.llm_call_counts(store.dataset("shop"))
    row = counts.iloc[0]
    assert (row["judge"], row["kind"], row["calls"], row["failed"], row["answered"]) == (
        "llm:judge-model", "prefer", 7, 1, 3)
    assert API_KEY not in at.main.__repr__()


def test_an_unreachable_endpoint_ends_the_run_with_one_line(shop_db, fake,
                                                            monkeypatch) -> None:
    closed = fake.base_url
    fake.stop()  # nothing listens there any more
    at = app_for(shop_db, "admin", monkeypatch)
    at.run()
    at.switch_page("app_pages/llm_judge.py").run()
    at.text_input(key="llm:base_url").input(closed)
    at.text_input(key="llm:model").input("gone-model")
    next(b for b in at.button if b.label == "Start").click().run()
    assert not at.exception, at.exception
    wait_for_runs()
    at.run()
    errors = [e.value.replace("\\", "") for e in at.error]
    assert any(e.startswith(f"cannot reach the LLM endpoint {closed} (") for e in errors), errors


class _shared:
    """The app's own cached store (a second connection to the file is not allowed)."""

    def __init__(self, path: Path) -> None:
        from judge_app.ui.resources import open_store

        self.store = open_store(str(path))

    def __enter__(self) -> Store:
        return self.store

    def __exit__(self, *_: object) -> None:
        pass


def test_the_dashboard_shows_the_llm_block_and_only_admins_count_its_labels(
        shop_db, fake, monkeypatch) -> None:
    from judge_app.services import llm_judging

    with Store(shop_db) as store:
        options = llm_judging.LlmOptions(fake.base_url, "judge-model",
                                         api_key_env="SXS_TEST_LLM_KEY")
        dataset = store.dataset("shop")
        llm_judging.grade(store, dataset, ["A", "B"], 2, options,
                          environ={"SXS_TEST_LLM_KEY": API_KEY})
        llm_judging.prefer(store, dataset, "A", "B", 2, options,
                           environ={"SXS_TEST_LLM_KEY": API_KEY})
        # the judging round an admin set: what a judge's dashboard shows
        store.set_round(dataset, "A", "B", k=2, overlap=1, blind=True, by="admin")

    judge = app_for(shop_db, "ann", monkeypatch)
    judge.run()
    judge.switch_page("app_pages/dashboard.py").run()
    assert not judge.exception, judge.exception
    toggle = judge.toggle(key=state.COUNT_LLM)
    assert toggle.disabled and not toggle.value
    headers = [h.value for h in judge.header]
    assert headers[-1] == "The LLM judge against the experts"
    captions = [c.value.replace("\\", "") for c in judge.caption]
    assert any("labels: experts" in c and "experts+llm" not in c for c in captions)

    admin = app_for(shop_db, "admin", monkeypatch)
    admin.run()
    admin.switch_page("app_pages/dashboard.py").run()
    admin.toggle(key=state.COUNT_LLM).set_value(True).run()
    assert not admin.exception, admin.exception
    assert any("labels: experts+llm" in c.value.replace("\\", "") for c in admin.caption)
    grades = next(df.value for df in admin.dataframe
                  if "weighted_kappa" in getattr(df.value, "columns", []))
    assert set(grades["versus"]) == {"ann", "bob", "expert consensus"}
