"""The judging app on a PostgreSQL store (issue 15): every page renders for an admin, and a
vote on the judge page writes one preference — the same app, only ``SXS_DB`` differs."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.demo import build_demo_store
from judge_app.ui import state
from tests.app.test_pages import APP, PAGES
from tests.postgres import require
from tests.signin import signed_in


@pytest.fixture(scope="module")
def demo_address(postgres_cluster):
    cluster = require(postgres_cluster)
    address = cluster.copy_of("demo", build_demo_store)
    yield address
    cluster.drop(address)


@pytest.fixture
def admin_app(demo_address: str, monkeypatch) -> AppTest:
    monkeypatch.setenv("SXS_DB", demo_address)
    monkeypatch.delenv("SXS_OPEN", raising=False)
    return signed_in(AppTest.from_file(APP, default_timeout=60), demo_address, "admin",
                     admin=True)


def test_every_page_renders_on_postgresql(admin_app: AppTest) -> None:
    admin_app.run()
    assert not admin_app.exception, admin_app.exception
    for page in PAGES:
        admin_app.switch_page(page).run()
        assert not admin_app.exception, (page, admin_app.exception)


def test_a_vote_on_the_judge_page_writes_one_preference(admin_app: AppTest,
                                                        demo_address: str) -> None:
    from judge_app.ui.resources import open_store

    store = open_store(demo_address)
    dataset = store.dataset("cranfield")
    before = len(store.preferences(dataset))
    admin_app.run()
    view = admin_app.session_state[state.VIEW]
    assert view is not None
    next(b for b in admin_app.button if b.key == f"vote:left:{view.view_id}").click().run()
    votes = store.preferences(dataset)
    assert len(votes) == before + 1
    assert votes.iloc[-1]["query_id"] == view.query_id
    assert votes.iloc[-1]["judge"] == "admin"


def test_no_page_shows_a_password_written_in_the_address(demo_address: str,
                                                         monkeypatch) -> None:
    """The Settings page names the store: with a password in the address (the test cluster
    trusts 127.0.0.1, so it is accepted and ignored) every page shows it masked."""
    from judge_app.addresses import redact

    secret = re.sub(r"//([^:@/]+)(:[^@/]*)?@", r"//\1:s3cret@", demo_address, count=1)
    monkeypatch.setenv("SXS_DB", secret)
    monkeypatch.delenv("SXS_OPEN", raising=False)
    app = signed_in(AppTest.from_file(APP, default_timeout=60), secret, "admin", admin=True)
    app.run()
    shown = []
    for page in PAGES:
        app.switch_page(page).run()
        assert not app.exception, (page, app.exception)
        shown += [str(e.value) for kind in ("caption", "markdown", "error", "warning", "info",
                                            "success", "code", "text")
                  for e in getattr(app, kind)]
    unescaped = [text.replace("\\", "") for text in shown]  # markdown escapes (plain())
    assert any(redact(secret) in text for text in unescaped)  # the Settings page's caption
    assert [text for text in unescaped if "s3cret" in text] == []
