"""Load: 20 judges at once — threads through the store layer the app uses, while real AppTest
sessions vote — cast 4,000 votes (one per judge and query) and 10,000 grades (every 10th
submitted twice).  Afterwards none
is lost or duplicated, every history row is what its judge wrote, and the app still answers.
"""

from __future__ import annotations

import threading
import time
import traceback
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from judge_app.ui import state

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")
JUDGES, VOTES, GRADES = 20, 4_000, 10_000
APP_SESSIONS, APP_VOTES = 3, 3
TOKENS: dict[str, str] = {}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    db = tmp_path_factory.mktemp("load") / "load.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        # a round that lets every judge vote on every query (the load, not the overlap)
        store.set_round(dataset, "title", "bm25", k=10, overlap=JUDGES + APP_SESSIONS + 2,
                        blind=True, by="test")
        for number in range(JUDGES):
            store.typed_judge(f"judge{number:02d}")
        TOKENS.update({f"app{n}": store.invite_judge(f"app{n}") for n in range(APP_SESSIONS)})
        TOKENS["late"] = store.invite_judge("late")
    return db


def test_twenty_judges_at_once(loaded: Path, monkeypatch) -> None:
    from judge_app.ui.resources import open_store

    monkeypatch.setenv("SXS_DB", str(loaded))
    store = open_store(str(loaded))  # the very store object the app sessions use
    dataset = store.dataset("cranfield")
    queries = list(store.queries(dataset)["query_id"])
    errors: list[BaseException] = []
    per_judge_votes, per_judge_grades = VOTES // JUDGES, GRADES // JUDGES

    def judge(number: int) -> None:
        name = f"judge{number:02d}"
        try:
            for i in range(per_judge_votes):
                token = f"{name}-vote-{i}"
                view = store.issue_view(dataset, queries[i % len(queries)], "title", "bm25",
                                        "bm25" if i % 2 else "title", 10, name, True)
                for _ in range(2 if i % 10 == 0 else 1):  # double submits
                    store.cast_vote(dataset, view.view_id,
                                    ("left", "right", "tie", "both_bad")[i % 4], name, token)
            for i in range(per_judge_grades):
                token = f"{name}-grade-{i}"
                for _ in range(2 if i % 10 == 0 else 1):
                    store.add_expert_label(dataset, queries[i % len(queries)], str(i % 1400 + 1),
                                           i % 5, name, token, note=token)
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    def app_sessions() -> None:
        # AppTest sessions take turns in one thread (AppTest itself is not made to be driven
        # from several threads at once); they still run while the 20 judges write.
        try:
            for number in range(APP_SESSIONS):
                at = AppTest.from_file(APP, default_timeout=120)
                at.session_state[state.SESSION] = store.sign_in(TOKENS[f"app{number}"])[1]
                at.run()
                for _ in range(APP_VOTES):
                    # a judge who read the query: outside the page's double-click window
                    at.session_state[state.VOTED_AT] = float("-inf")
                    next(b for b in at.button if b.key == "vote:tie").click().run()
                    assert not at.exception, at.exception
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=judge, args=(n,)) for n in range(JUDGES)]
    threads.append(threading.Thread(target=app_sessions))
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - start
    assert not errors, ["".join(traceback.format_exception(e)) for e in errors[:2]]

    votes = store.preferences(dataset)
    labels = store.expert_label_history(dataset)
    thread_votes = votes[votes["judge"].str.startswith("judge")].assign(
        judge=lambda f: f["judge"].str.removesuffix(" (unverified)"))
    thread_labels = labels[labels["judge"].str.startswith("judge")].assign(
        judge=lambda f: f["judge"].str.removesuffix(" (unverified)"))
    assert len(thread_votes) == VOTES and thread_votes["reason"].is_unique
    assert len(thread_labels) == GRADES and thread_labels["note"].is_unique
    assert (thread_votes["reason"].str.split("-vote-").str[0] == thread_votes["judge"]).all()
    assert (thread_labels["note"].str.split("-grade-").str[0] == thread_labels["judge"]).all()
    index = thread_labels["note"].str.split("-grade-").str[1].astype(int)
    assert (thread_labels["grade"].to_numpy() == (index % 5).to_numpy()).all()
    app_votes = votes[votes["judge"].str.startswith("app")]
    assert len(app_votes) == APP_SESSIONS * APP_VOTES
    assert (app_votes.groupby("judge").size() == APP_VOTES).all()

    after = AppTest.from_file(APP, default_timeout=120)  # the app still answers
    after.session_state[state.SESSION] = store.sign_in(TOKENS["late"])[1]
    after.run()
    assert not after.exception and after.session_state[state.VIEW] is not None
    print(f"\nload: {JUDGES} judges + {APP_SESSIONS} app sessions, {VOTES:,} votes and "
          f"{GRADES:,} grades in {seconds:.1f} s ({(VOTES + GRADES) / seconds:,.0f} writes/s);"
          " 0 lost, 0 duplicated")
