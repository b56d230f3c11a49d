"""Review findings on imports (issue 12's "never silently wrong").

1. The degenerate-result guard does not exist: qrels whose doc ids are zero-padded while the
   run's are not import with exit 0 and no word (zero overlap), a file whose grades are all equal
   imports silently, and ``--normalize-ids`` / ``--force`` are unknown options.
2. ``import judgments``/``import docs`` strip leading and trailing spaces from ids, so an id
   such as `` d4`` becomes ``d4`` (``import labels`` keeps it): ids do not round-trip.
"""

from __future__ import annotations

from pathlib import Path

import duckdb
import pandas as pd
from click.testing import CliRunner

from judge_app.cli import main


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def setup_padded(tmp_path: Path) -> tuple[Path, Path]:
    db = tmp_path / "s.duckdb"
    run = tmp_path / "r.trec"
    run.write_text("1 Q0 12 1 3 r\n1 Q0 35 2 2 r\n2 Q0 7 1 1 r\n")
    qrels = tmp_path / "zp.qrels"
    qrels.write_text("1 0 0012 1\n1 0 0035 2\n2 0 0007 0\n")
    assert sxs(db, "dataset", "create", "g", "--scale", "0=a,1=b,2=c").exit_code == 0
    assert sxs(db, "import", "run", "-d", "g", str(run), "--name", "r").exit_code == 0
    return db, qrels


def test_zero_padded_qrels_with_no_overlap_are_refused_naming_the_fix(tmp_path: Path) -> None:
    db, qrels = setup_padded(tmp_path)
    result = sxs(db, "import", "qrels", "-d", "g", str(qrels))
    assert result.exit_code == 2, result.output
    assert "overlap" in result.output and "--normalize-ids" in result.output
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("select count(*) from judgments").fetchone() == (0,)


def test_normalize_ids_strip_zeros_fixes_the_padding(tmp_path: Path) -> None:
    db, qrels = setup_padded(tmp_path)
    result = sxs(db, "import", "qrels", "-d", "g", str(qrels), "--normalize-ids", "strip-zeros")
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        docs = sorted(d for (d,) in con.execute("select doc_id from judgments").fetchall())
    assert docs == ["12", "35", "7"]


def test_every_grade_equal_is_refused_unless_forced(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    qrels = tmp_path / "same.qrels"
    qrels.write_text("1 0 12 1\n1 0 35 1\n2 0 7 1\n2 0 8 1\n")
    assert sxs(db, "dataset", "create", "g", "--scale", "0=a,1=b,2=c").exit_code == 0
    refused = sxs(db, "import", "qrels", "-d", "g", str(qrels))
    assert refused.exit_code == 2 and "--force" in refused.output, refused.output
    forced = sxs(db, "import", "qrels", "-d", "g", str(qrels), "--force")
    assert forced.exit_code == 0, forced.output


def test_ids_with_leading_and_trailing_spaces_are_kept(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    path = tmp_path / "j.parquet"
    pd.DataFrame({"query_id": ["q1", "q1", " q2"], "doc_id": [" d4", "d5 ", "a"],
                  "grade": [2, 1, 0]}).to_parquet(path)
    assert sxs(db, "dataset", "create", "u", "--scale", "esci").exit_code == 0
    result = sxs(db, "import", "judgments", "-d", "u", str(path))
    assert result.exit_code == 0, result.output
    with duckdb.connect(str(db), read_only=True) as con:
        got = sorted(con.execute("select query_id, doc_id from judgments").fetchall())
    assert got == [(" q2", "a"), ("q1", " d4"), ("q1", "d5 ")]


def test_the_import_page_offers_the_same_id_normalizations_and_force(tmp_path: Path,
                                                                      monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    from judge_app.io.ids import ID_NORMALIZATIONS
    from judge_app.store import Store
    from judge_app.ui import state
    from judge_app.ui.resources import open_store

    db = tmp_path / "s.duckdb"
    assert sxs(db, "dataset", "create", "g", "--scale", "0=a,1=b,2=c").exit_code == 0
    with Store(db) as store:
        token = store.invite_judge("admin", admin=True)
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    app = AppTest.from_file(str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" /
                                "app.py"), default_timeout=60)
    app.session_state[state.SESSION] = open_store(str(db)).sign_in(token)[1]
    app.run()
    app.switch_page("app_pages/import_data.py").run()
    assert not app.exception, app.exception
    ids = next(box for box in app.selectbox if box.key == "import:normalize_ids")
    assert tuple(ids.options[1:]) == ID_NORMALIZATIONS
    assert any(box.key == "import:force" for box in app.checkbox)
