"""The judging app under streamlit.testing.v1.AppTest, on a demo store in a temporary file."""

from __future__ import annotations

import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services import importing
from judge_app.services.demo import build_demo_store
from judge_app.services.next_query import Focus
from judge_app.services.queue import Rule
from judge_app.store import Store
from judge_app.ui import state
from tests.signin import signed_in as sign_in_as

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")
PAGES = ["app_pages/judge.py", "app_pages/backfill.py", "app_pages/my_work.py",
         "app_pages/dashboard.py",
         "app_pages/import_data.py",
         "app_pages/export_data.py", "app_pages/settings.py", "app_pages/llm_judge.py",
         "app_pages/judges.py"]


TOKENS: dict[str, str] = {}


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("app") / "demo.duckdb"
    with Store(path) as store:
        build_demo_store(store)
        TOKENS["ann"] = store.invite_judge("ann")
        TOKENS["admin"] = store.invite_judge("admin", admin=True)
    return path


def signed_in(at: AppTest, demo_db: Path, name: str) -> AppTest:
    """The session a sign-in link gives (what the cookie carries on a reload): a link signs
    in once, so each session gets the judge's next one."""
    store = store_of(demo_db)
    _judge, session = store.sign_in(store.invite_judge(name, admin=name == "admin"))
    at.session_state[state.SESSION] = session
    return at


@pytest.fixture
def app(demo_db: Path, monkeypatch) -> AppTest:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    return signed_in(AppTest.from_file(APP, default_timeout=60), demo_db, "ann")


def store_of(demo_db: Path) -> Store:
    from judge_app.ui.resources import open_store
    return open_store(str(demo_db))


def test_in_open_mode_a_new_judge_is_asked_for_a_name(demo_db: Path, monkeypatch) -> None:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    monkeypatch.setenv("SXS_OPEN", "1")
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    assert at.text_input[0].label == "Your name"
    at.text_input[0].input("zoe")
    at.button[0].click().run()
    assert at.query_params["judge"] == ["zoe"] or at.query_params["judge"] == "zoe"
    assert at.session_state[state.JUDGE] == "zoe"
    assert not at.session_state[state.IDENTITY].verified


def test_without_open_mode_nobody_gets_in_by_name(demo_db: Path, monkeypatch) -> None:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["judge"] = "admin"
    at.session_state[state.JUDGE] = "admin"  # what a stale session might hold
    at.run()
    assert not at.exception
    assert not at.text_input and "Sign in with the link" in at.info[0].value
    assert state.JUDGE not in at.session_state
    at.switch_page("app_pages/settings.py").run()
    assert [t.value for t in at.title] == ["sxs judging"]  # still the sign-in page


def test_in_open_mode_a_typed_admin_name_is_refused(demo_db: Path, monkeypatch) -> None:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    monkeypatch.setenv("SXS_OPEN", "1")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["judge"] = "admin"
    at.run()
    assert "taken" in at.error[0].value
    assert state.JUDGE not in at.session_state


def test_a_sign_in_link_signs_in_and_leaves_the_url(demo_db: Path, monkeypatch) -> None:
    monkeypatch.setenv("SXS_DB", str(demo_db))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["token"] = store_of(demo_db).invite_judge("admin", admin=True)
    at.run()
    assert not at.exception
    assert "token" not in at.query_params
    assert at.session_state[state.IDENTITY].admin
    at.switch_page("app_pages/settings.py").run()
    assert not at.exception


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_for_an_admin(app: AppTest, demo_db: Path, page: str) -> None:
    signed_in(app, demo_db, "admin")
    app.run()
    app.switch_page(page).run()
    assert not app.exception, app.exception


def test_a_non_admin_sees_no_admin_page(app: AppTest) -> None:
    app.run()
    assert not app.exception
    for page in ("app_pages/import_data.py", "app_pages/export_data.py",
                 "app_pages/settings.py", "app_pages/llm_judge.py", "app_pages/judges.py"):
        with pytest.raises(ValueError, match="Could not find a navigation page"):
            app.switch_page(page)


def test_one_vote_writes_one_preference_with_the_side_assignment(app: AppTest,
                                                                 demo_db: Path) -> None:
    store = store_of(demo_db)
    dataset = store.dataset("cranfield")
    before = len(store.preferences(dataset))
    app.run()
    view = app.session_state[state.VIEW]
    assert view is not None and view.left_run in ("bm25", "title")
    vote = next(b for b in app.button if str(b.key).startswith("vote:left:"))
    vote.click().run()
    votes = store.preferences(dataset)
    assert len(votes) == before + 1
    row = votes.iloc[-1]
    assert row["query_id"] == view.query_id and row["judge"] == "ann"
    assert row["left_run"] == view.left_run and row["choice"] == "left"
    assert row["ms_spent"] >= 0
    assert app.session_state[state.VIEW].query_id != view.query_id  # the next query loads


def test_a_double_submit_writes_once(app: AppTest, demo_db: Path) -> None:
    from judge_app.services import judging

    store = store_of(demo_db)
    dataset = store.dataset("cranfield")
    app.run()
    view = app.session_state[state.VIEW]
    before = len(store.preferences(dataset))
    assert judging.record_vote(store, dataset, view, "tie", "ann")
    assert not judging.record_vote(store, dataset, view, "tie", "ann")  # same view again
    assert len(store.preferences(dataset)) == before + 1
    assert judging.undo_last_vote(store, dataset, "ann", view.run_a, view.run_b, "u-1")


def grid_data_sent(app: AppTest) -> dict:
    """What the judge page sent to its results grid (judge_app/ui/results_grid.py)."""
    (grid,) = app.get("bidi_component")
    assert grid.proto.component_name == "sxs.results_grid" and not grid.proto.html_content
    return json.loads(grid.proto.json)


def test_the_results_grid_is_sent_the_view_on_screen(app: AppTest) -> None:
    """Grade clicks and their storage are tested in a real browser (test_browser.py), where
    the grid's script runs; here, what it is sent."""
    app.run()
    view = app.session_state[state.VIEW]
    data = grid_data_sent(app)
    assert data["view"] == view.view_id
    depth = max(len(view.left), len(view.right))
    assert [[c and c["doc"] for c in pair] for pair in data["rows"]] == [
        [rows[i].doc_id if i < len(rows) else None for rows in (view.left, view.right)]
        for i in range(depth)]
    assert data["heads"] is None  # a blind round: the columns are simply left and right


def test_a_script_title_reaches_the_grid_as_data_not_markup(app: AppTest, demo_db: Path
                                                             ) -> None:
    import pandas as pd

    store = store_of(demo_db)
    dataset = store.dataset("cranfield")
    app.run()
    view = app.session_state[state.VIEW]
    doc = view.left[0].doc_id
    original = store.documents(dataset, [doc])
    store.put_documents(dataset, pd.DataFrame({"doc_id": [doc],
                                               "title": ["<script>alert('x')</script> **b**"]}))
    try:
        app.session_state[state.VIEW] = None
        app.session_state[state.FOCUS] = Focus(view.query_id, Rule.REDRAWN)
        app.run()
        first = grid_data_sent(app)["rows"][0][0]
        assert first["title"] == "<script>alert('x')</script> **b**"  # drawn as textContent
        assert not [m.value for m in app.markdown if "<script>" in m.value]
    finally:
        store.put_documents(dataset, original.assign(
            text=[f.get("text", "") for f in original["fields"]]).drop(columns="fields"))


def test_the_dashboard_shows_check_results(app: AppTest) -> None:
    app.run()
    app.switch_page("app_pages/dashboard.py").run()
    assert not app.exception
    rules = app.text_area[0]
    rules.input("[[rule]]\nquery = '1'\nexpect = 'doc_not_in_top'\ndoc = 'nope'\ntop = 3\n"
                "[[rule]]\nquery = '1'\nexpect = 'min_ndcg_f'\nmin = 1.1\n")
    next(b for b in app.button if b.label == "Run checks").click().run()
    assert not app.exception
    assert any("1 of 2 rules passed" in e.value for e in app.error)


def test_the_export_page_shows_a_user_error_instead_of_crashing(tmp_path: Path,
                                                                 monkeypatch) -> None:
    """Quepid matches queries by text: a judged query with no text is the user's to fix, so
    the page says so with st.error (it used to crash: only ValueError was caught)."""
    path = tmp_path / "e.duckdb"
    with Store(path) as store:
        importing.create_dataset(store, "p", "binary")
        qrels = tmp_path / "q.txt"
        qrels.write_text("q1 0 d1 1\n")
        importing.import_qrels(store, store.dataset("p"), qrels)
        token = store.invite_judge("admin", admin=True)
    monkeypatch.setenv("SXS_DB", str(path))
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["token"] = token
    at.run()
    at.switch_page("app_pages/export_data.py").run()
    at.radio[0].set_value("quepid").run()
    assert not at.exception, at.exception
    assert "has no text in the store" in at.error[0].value


def test_the_export_page_keeps_a_hostile_dataset_name_inside_its_folder(
        tmp_path: Path, monkeypatch) -> None:
    """A dataset named ../../x used to be written outside the export folder."""
    path = tmp_path / "h.duckdb"
    with Store(path) as store:
        importing.create_dataset(store, "../../x", "binary")
        qrels = tmp_path / "q.txt"
        qrels.write_text("q1 0 d1 1\n")
        importing.import_qrels(store, store.dataset("../../x"), qrels)
    monkeypatch.setenv("SXS_DB", str(path))
    monkeypatch.setenv("SXS_ADMINS", "admin")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    monkeypatch.setattr(tempfile, "tempdir", str(deep))  # the page's export folder goes here
    at = sign_in_as(AppTest.from_file(APP, default_timeout=60), path, "admin", admin=True)
    at.run()
    at.switch_page("app_pages/export_data.py").run()
    assert not at.exception, at.exception
    button = at.get("download_button")[0]
    assert button.proto.label == "Download 1 rows"
    assert not list(deep.iterdir())  # the export folder is gone ...
    assert not list(tmp_path.rglob("*x-trec*"))  # ... and nothing was written beside it


def _all_text(at: AppTest) -> list[str]:
    """Every text the page shows: markdown, captions, metrics, alerts and table cells."""
    texts = [str(e.value) for kind in ("markdown", "caption", "header", "subheader", "title",
                                       "info", "error", "success")
             for e in getattr(at, kind)]
    texts += [f"{m.label} {m.value}" for m in at.metric]
    for frame in at.dataframe:
        value = frame.value
        texts += [str(v) for v in value.index] + [str(v) for v in value.to_numpy().ravel()]
    return texts


def test_the_dashboard_takes_exponential_gain_with_reciprocal_discount(app: AppTest) -> None:
    """The combination that crashed with a KeyError; and no raw nan/None anywhere."""
    app.run()
    app.switch_page("app_pages/dashboard.py").run()
    controls = {b.label: b for b in app.get("button_group")}
    controls["Gain"].set_value("exponential").run()
    {b.label: b for b in app.get("button_group")}["Discount"].set_value("reciprocal").run()
    assert not app.exception, app.exception
    texts = _all_text(app)
    assert any("gain=exponential, discount=reciprocal" in t for t in texts)
    assert any("ndcg(discount='reciprocal',gain='exponential')@10" in t for t in texts)
    bad = [t for t in texts if re.search(r"\b(nan|NaN|None|<NA>)\b", t)]
    assert not bad, bad
    per_run = app.dataframe[1].value  # after the Decision panel's table (issue 22)
    assert list(per_run.index) == ["title", "bm25"] and per_run.columns[0] == "queries"


def test_the_backfill_grade_keys_run_lowest_grade_first(app: AppTest) -> None:
    scale = store_of(Path(os.environ["SXS_DB"])).dataset("cranfield").scale
    app.run()
    app.switch_page("app_pages/backfill.py").run()
    assert not app.exception, app.exception
    grades = [b for b in app.button if str(b.key).startswith("bf:")]
    assert [(b.key, b.label, b.proto.shortcut) for b in grades] == [
        (f"bf:{value}", name, str(n)) for n, (value, name) in enumerate(scale.grades, 1)]
    assert grades[0].label == "No interest" and grades[0].proto.shortcut == "1"


def test_grade_keys_follow_the_scale_order_on_any_scale() -> None:
    from judge_app.ui.components import grade_shortcuts
    from metrics.scale import GradeScale

    scale = GradeScale.from_mapping({-1: "junk", 0: "bad", 1: "ok", 2: "good"})
    assert grade_shortcuts(scale) == [(-1, "junk", "1"), (0, "bad", "2"), (1, "ok", "3"),
                                      (2, "good", "4")]
    ten = GradeScale.from_mapping({v: f"g{v}" for v in range(10)})
    assert [key for *_, key in grade_shortcuts(ten)] == [*"123456789", None]


def test_full_text_shows_more_of_each_result(app: AppTest) -> None:
    app.run()
    view = app.session_state[state.VIEW]
    row = max(view.left, key=lambda r: len(r.fields.get("text", "")))
    assert len(row.fields["text"]) > 450
    card = grid_data_sent(app)["rows"][row.rank - 1][0]
    assert not grid_data_sent(app)["full"]
    app.toggle(key=state.FULL_TEXT).set_value(True).run()
    assert not app.exception, app.exception
    full = grid_data_sent(app)["rows"][row.rank - 1][0]
    assert grid_data_sent(app)["full"]  # titles unclamped (the grid's style)
    assert full["doc"] == card["doc"] and len(full["snippet"]) > len(card["snippet"])
    app.toggle(key=state.FULL_TEXT).set_value(False).run()


def test_an_admin_invites_lists_and_revokes_judges_on_the_judges_page(
        app: AppTest, demo_db: Path) -> None:
    signed_in(app, demo_db, "admin")
    app.run()
    app.switch_page("app_pages/judges.py").run()
    assert not app.exception
    app.text_input[0].input("invitee")
    app.checkbox[0].check()
    next(b for b in app.button if b.label == "Invite").click().run()
    assert not app.exception, app.exception
    assert "invitee is an admin" in app.success[0].value
    link = app.code[0].value
    assert re.match(r"^https?://[^/]+/\?token=[0-9A-Za-z_-]{22,}$", link)
    listed = app.dataframe[0].value
    row = listed[listed["judge"] == "invitee"].iloc[0]
    assert row["signs in"] == "invite link" and bool(row["admin"]) and row["revoked"] == ""
    store = store_of(demo_db)
    judge, session = store.sign_in(link.split("?token=")[1])  # the link signs in
    assert judge.admin

    app.run()  # the link is shown once: the next run has none
    assert not app.code
    revoke = next(box for box in app.selectbox if box.label == "Judge")
    assert "admin" not in revoke.options  # an admin never revokes themselves here
    revoke.select("invitee")
    next(b for b in app.button if b.label == "Revoke").click().run()
    assert not app.exception, app.exception
    assert "Revoked invitee" in app.success[0].value
    listed = app.dataframe[0].value
    assert listed.loc[listed["judge"] == "invitee", "revoked"].iloc[0] != ""
    assert store.session_judge(session) is None


def test_an_admin_sets_the_sign_in_lifetime_on_the_judges_page(app: AppTest,
                                                               demo_db: Path) -> None:
    signed_in(app, demo_db, "admin")
    app.run()
    app.switch_page("app_pages/judges.py").run()
    assert any("unused for 3 days ends" in m.value for m in app.markdown)
    next(n for n in app.number_input if n.label == "End sessions unused for").set_value(36)
    next(s for s in app.selectbox if s.label == "Unit").select("hours")
    next(b for b in app.button if b.label == "Save").click().run()
    assert not app.exception, app.exception
    assert "sessions now end after 36 hours without use" in app.success[0].value
    assert any("unused for 36 hours ends" in m.value for m in app.markdown)
    assert store_of(demo_db).session_idle_seconds() == 36 * 3600
    store_of(demo_db).set_session_idle(3 * 86400)  # the module's store, as it was


def test_the_judges_page_refuses_an_empty_name_in_one_line(app: AppTest,
                                                          demo_db: Path) -> None:
    signed_in(app, demo_db, "admin")
    app.run()
    app.switch_page("app_pages/judges.py").run()
    next(b for b in app.button if b.label == "Invite").click().run()
    assert not app.exception
    assert "a judge needs a name" in app.error[0].value


def captions(app: AppTest) -> list[str]:
    """The captions shown, as the judge reads them (markdown escapes removed)."""
    return [re.sub(r"\\(.)", r"\1", str(c.value)) for c in app.caption]


def progress_of(app: AppTest) -> tuple[int, int]:
    shown = next(m.value for m in app.markdown if "judged by you" in m.value)
    done, total = re.match(r"\*\*(\d+) of (\d+) queries\*\*", shown).groups()
    return int(done), int(total)


def test_the_kept_queue_follows_votes_undo_and_queries_others_took(demo_db: Path,
                                                                   monkeypatch) -> None:
    from judge_app.services import judging

    monkeypatch.setenv("SXS_DB", str(demo_db))
    monkeypatch.delenv("SXS_OPEN", raising=False)
    store = store_of(demo_db)
    dataset = store.dataset("cranfield")
    app = sign_in_as(AppTest.from_file(APP, default_timeout=60), demo_db, "queue-keeper").run()
    assert not app.exception
    done, total = progress_of(app)
    first = app.session_state[state.VIEW]
    assert first.rule is not None and first.rule.sentence in captions(app)  # why it came now
    queue = app.session_state[state.PLAN][2].queue  # queries before `first` are leased
    taken = queue[queue.index(first.query_id) + 1]  # another judge votes on the next one
    store.invite_judge("queue-taker")
    other = judging.side_by_side(store, dataset, first.run_a, first.run_b, taken, 10,
                                 "queue-taker", overlap=1)
    assert judging.record_vote(store, dataset, other, "tie", "queue-taker")

    next(b for b in app.button if str(b.key).startswith("vote:left:")).click().run()
    assert not app.exception
    drawn = app.session_state[state.VIEW]
    assert drawn.query_id not in (first.query_id, taken)  # the store refused the taken one
    recomputed = judging.plan_from(store, dataset, judging.query_order(
        store, dataset, first.run_a, first.run_b, 10), first.run_a, first.run_b,
        "queue-keeper", 1)
    assert progress_of(app) == (done + 1, recomputed.total) == (done + 1, total - 1)

    next(b for b in app.button if b.label == "Undo last vote").click().run()
    assert not app.exception
    assert progress_of(app) == (done, total - 1)
    assert app.session_state[state.VIEW].query_id == first.query_id  # the query is back
    assert Rule.UNDONE.sentence in captions(app)


def test_the_import_page_names_each_kind_as_sxs_import_does(app: AppTest, demo_db: Path
                                                            ) -> None:
    from judge_app.cli import main

    signed_in(app, demo_db, "admin").run()
    app.switch_page("app_pages/import_data.py").run()
    assert not app.exception, app.exception
    (kinds,) = app.radio
    commands = list(main.commands["import"].commands)
    assert sorted(kinds.options) == sorted(name for name in commands if name != "clicks")
    assert "clicks" in commands  # imported by the CLI only
    assert kinds.value == "qrels"
    kinds.set_value("run").run()
    assert [box.label for box in app.text_input] == ["Run name"]


def test_settings_opens_with_the_judging_round(app: AppTest, demo_db: Path) -> None:
    """The judging round is what an admin comes to Settings for: it comes first, above the
    datasets, a new dataset and backups (at 1366x768 it used to be below the fold)."""
    signed_in(app, demo_db, "admin").run()
    app.switch_page("app_pages/settings.py").run()
    assert not app.exception, app.exception
    headings = [h.value for h in app.subheader]
    assert headings[0].startswith("Judging round on ")
    assert headings[1:] == ["Datasets", "New dataset", "Backup"]


def test_no_page_script_has_a_bare_string_that_streamlit_would_draw() -> None:
    """Streamlit's "magic" writes a bare expression of a page script onto the page: a string
    meant as an attribute's doc showed on every page.  Only the module docstring may stand
    alone (Streamlit leaves that one out)."""
    import ast

    root = Path(APP).parent
    scripts = [Path(APP), *sorted((root / "app_pages").glob("*.py"))]
    bare = [f"{path.name}:{node.lineno}" for path in scripts
            for node in ast.parse(path.read_text()).body[1:]
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)]
    assert bare == []
