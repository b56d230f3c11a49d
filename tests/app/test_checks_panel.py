"""The dashboard's Checks panel (issue 25) on the demo store, under AppTest: the box opens with
rules written for the dataset on screen — every rule names a query of this dataset (it used to
show "red shoes" on Cranfield) — nothing runs before "Run checks" is clicked, and the shipped
example runs as it stands, each result explained (expected, found, offending docs); the
example of every run passes the two rules built from that run's own top result."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.io.rules import parse_rules
from judge_app.services.checks import example_rules, run_checks
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from judge_app.ui.checks_panel import RUN_BUTTON
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("checks") / "checks.duckdb"
    with Store(path) as store:
        build_demo_store(store)
    return path


def test_the_example_names_this_datasets_queries_and_runs_as_shipped(db: Path,
                                                                    monkeypatch) -> None:
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = signed_in(AppTest.from_file(APP, default_timeout=120), db, "checker")
    at.run()
    at.switch_page("app_pages/dashboard.py").run()
    assert not at.exception
    (box,) = at.text_area
    with Store(db) as store:
        queries = set(store.queries(store.dataset("cranfield"))["query_id"])
    rules = parse_rules(box.value)
    assert len(rules) >= 2
    assert all(rule.query in queries for rule in rules)
    assert "red shoes" not in box.value
    assert not at.dataframe or "expected" not in at.dataframe[-1].value.columns  # not run yet

    (run,) = [button for button in at.button if button.label == RUN_BUTTON]
    run.click().run()
    assert not at.exception
    (said,) = [*at.success, *at.error]
    shown = at.dataframe[-1].value
    assert list(shown.columns) == ["result", "rule", "expected", "found", "offending docs"]
    assert len(shown) == len(rules)
    # the rules built from the run's own top result pass as shipped
    assert shown["result"].tolist()[:2] == ["pass", "pass"]
    assert shown["expected"].tolist()[0] == f"doc {rules[0].doc!r} is in the top 3"
    assert "rules passed on bm25 (B)" in said.value.replace("\\", "")  # escaped Markdown
    assert any("Offending docs" in caption.value for caption in at.caption)


def test_the_example_of_every_run_passes_its_first_two_rules(db: Path) -> None:
    with Store(db) as store:
        dataset = store.dataset("cranfield")
        for run in store.run_names(dataset):
            results = run_checks(store, dataset, run, parse_rules(
                example_rules(store, dataset, run)), filled=True)
            assert [r.passed for r in results[:2]] == [True, True], run
