"""The dashboard's Judges section (issue 23) through Streamlit's AppTest over the simulated
judges' store (tests/cli/test_judges_trust.py): an admin sees the per-judge table with the
flags, a judge does not see the section; the Exclude form excludes a judge and the section
says so; the Settle form settles the most disputed item, which fills it as ``adjudicated``."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.store import Store
from tests.cli.test_judges_trust import build_store
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


@pytest.fixture(scope="module")
def sim_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("panel")
    db = folder / "sim.duckdb"
    build_store(db, folder)
    with Store(db) as store:
        store.set_round(store.dataset("sim"), "A", "B", k=3, overlap=1, blind=True, by="x")
    return db


def dashboard(db: Path, monkeypatch, name: str, admin: bool) -> AppTest:
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = signed_in(AppTest.from_file(APP, default_timeout=120), db, name, admin=admin)
    at.run()
    at.switch_page("app_pages/dashboard.py").run()
    assert not at.exception, at.exception
    return at


def test_admins_act_on_the_judges_from_the_dashboard(sim_db, monkeypatch) -> None:
    at = dashboard(sim_db, monkeypatch, "boss", admin=True)
    assert "Judges" in [h.value for h in at.header]
    table = next(f.value for f in at.dataframe if "flags" in f.value.columns)
    assert table.loc["always-left", "flags"] == "side_bias"
    assert table.loc["careful-1", "flags"] == ""
    assert "No judge is excluded." in [c.value for c in at.caption]
    form = next(s for s in at.selectbox if s.label == "Judge")
    form.set_value("random")
    next(b for b in at.button if b.label == "Exclude").click().run()
    assert not at.exception, at.exception
    assert "Left out of every figure: judges random (excluded)" in [
        w.value.replace("\\", "") for w in at.warning]  # shown escaped (plain())
    disputes = next(f.value for f in at.dataframe if "dispute" in f.value.columns)
    first = (disputes.iloc[0]["query_id"], disputes.iloc[0]["doc_id"])
    next(s for s in at.selectbox if s.label == "Grade").set_value(3)
    next(b for b in at.button if b.label == "Settle").click().run()
    assert not at.exception, at.exception
    with Store(sim_db) as store:
        filled = store.filled_judgments(store.dataset("sim")).set_index(["query_id", "doc_id"])
        assert store.excluded_judges(store.dataset("sim")) == ["random"]
    assert (filled.loc[first, "grade"], filled.loc[first, "source"]) == (3, "adjudicated")


def test_a_judge_does_not_see_the_section(sim_db, monkeypatch) -> None:
    at = dashboard(sim_db, monkeypatch, "careful-1", admin=False)
    assert "Judges" not in [h.value for h in at.header]
