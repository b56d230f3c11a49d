"""The dashboard's "Sessions replayed" section under AppTest, on the click demo
(``sxs demo --clicks``): shown for a dataset with a click log, absent for one without."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.demo import build_clicks_demo, build_demo_store
from judge_app.store import Store
from judge_app.ui import state
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("clicks-app") / "demo.duckdb"
    with Store(path) as store:
        build_demo_store(store)
        build_clicks_demo(store)
    return path


def dashboard_of(demo_db: Path, monkeypatch, dataset: str, run_a: str, run_b: str) -> AppTest:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    at = signed_in(AppTest.from_file(APP, default_timeout=120), demo_db, "ann", admin=True)
    at.session_state[state.DATASET] = dataset
    at.session_state[state.RUN_A] = run_a
    at.session_state[state.RUN_B] = run_b
    at.run()
    at.switch_page("app_pages/dashboard.py").run()
    assert not at.exception, at.exception
    return at


def test_the_section_renders_on_the_click_demo(demo_db: Path, monkeypatch) -> None:
    at = dashboard_of(demo_db, monkeypatch, "esci-ubi", "logged", "clicks-oracle")
    assert "Sessions replayed" in [h.value for h in at.header]
    assert "Three witnesses per query" in [h.value for h in at.subheader]
    assert any("ΔMRR" in m.value and "sessions" in m.value for m in at.markdown)


def test_no_section_without_click_data(demo_db: Path, monkeypatch) -> None:
    at = dashboard_of(demo_db, monkeypatch, "cranfield", "title", "bm25")
    assert "Sessions replayed" not in [h.value for h in at.header]
