"""Issue 24: the Export page offers the side-by-side votes (the same service as
``sxs export votes``), in each of its file formats."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from judge_app.services import demo, judging
from judge_app.store import Store

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


def test_the_export_page_downloads_the_votes(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "v.duckdb"
    with Store(path) as store:
        demo.build_demo_store(store)
        dataset = store.dataset("cranfield")
        token = store.invite_judge("admin", admin=True)
        view = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "admin")
        judging.record_vote(store, dataset, view, "left", "admin", "=clear win")
    monkeypatch.setenv("SXS_DB", str(path))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["token"] = token
    at.run()
    at.switch_page("app_pages/export_data.py").run()
    at.radio[0].set_value("votes").run()
    at.radio[1].set_value("jsonl").run()
    assert not at.exception, at.exception
    button = at.get("download_button")[0]
    assert button.proto.label == "Download 1 rows"
    assert button.proto.url  # the file itself is served from the media store, not the proto
