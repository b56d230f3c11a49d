"""The dashboard's charts name what they show (issue 25), on the page an admin sees (AppTest on
the demo store): the per-query delta chart's x axis is the query ids, in the order of their
deltas, and each bar's tooltip holds its query's whole text; the "cannot reach 0.5" table
holds every low query's whole text (it was a column cut at its width)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory) -> tuple[AppTest, dict[str, str]]:
    db = tmp_path_factory.mktemp("names") / "names.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        texts = dict(store.queries(store.dataset("cranfield"))[["query_id", "text"]]
                     .itertuples(index=False))
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("SXS_DB", str(db))
        patch.delenv("SXS_OPEN", raising=False)
        at = signed_in(AppTest.from_file(APP, default_timeout=120), db, "admin", admin=True)
        at.run()
        at.switch_page("app_pages/dashboard.py").run()
        assert not at.exception
        yield at, texts


def charts(at: AppTest) -> list:
    return [e for e in at.main if getattr(e, "type", "") in ("vega_lite_chart",
                                                                "arrow_vega_lite_chart")]


def chart_rows(chart) -> list[dict]:
    (dataset,) = chart.proto.datasets
    return pa.ipc.open_stream(dataset.data.data).read_all().to_pylist()


def test_the_delta_chart_names_each_query_and_its_text_on_hover(dashboard) -> None:
    at, texts = dashboard
    (delta,) = [c for c in charts(at) if "per query" in json.loads(c.proto.spec)["title"]]
    spec = json.loads(delta.proto.spec)
    x, tooltip = spec["encoding"]["x"], spec["encoding"]["tooltip"]
    assert x["field"] == "query_id" and "axis" in x and x["axis"] is not None
    assert x["title"].startswith("query id")
    assert [t["field"] for t in tooltip] == ["query_id", "text", "delta"]
    rows = chart_rows(delta)
    assert len(rows) == len(texts)
    assert all(row["text"] == texts[row["query_id"]] for row in rows)
    ordered = sorted(rows, key=lambda row: row["position"])
    assert x["sort"] == [row["query_id"] for row in ordered]  # bars in the order of delta
    deltas = [row["delta"] for row in ordered]
    assert deltas == sorted(deltas)


def test_the_low_ceiling_table_shows_whole_query_texts(dashboard) -> None:
    at, texts = dashboard
    (table,) = at.table
    shown = table.value
    assert len(shown) > 10
    longest = max(shown.index, key=lambda query: len(texts[query]))
    assert len(texts[longest]) > 150  # a text a column of the old width cut
    # the table reads Markdown, so the text is escaped; unescaped it is the query's whole text
    assert shown.loc[longest, "text"].replace("\\", "") == texts[longest].replace("\\", "")
