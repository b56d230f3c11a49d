"""Load: 20 judges at once — threads through the store layer the app uses, while real AppTest
sessions vote — cast 2,000 votes and 4,000 grades, interleaved, every 10th submitted twice: once
by its judge and once, at the same moment, by another thread (a double click landing in a second
script run).  Afterwards each submission was accepted exactly once (the store said True once
and False for the copy), none is lost or duplicated, every history row is what its judge wrote,
and the app still answers.

Where the time goes: each write is its own committed DuckDB transaction behind the store's one
write lock, about 4 ms of CPU each; the 20 threads and the app take turns on that lock, so wall
time is the number of writes times that cost.  What finds a concurrency bug is the number of
writes that follow a write of another thread on the same store (about 70% of them here) and the
number of duplicate submissions that race; both kinds of write and the app's reads are mixed for
the whole run rather than votes first and grades after.
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
JUDGES, VOTES, GRADES = 20, 2_000, 4_000
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
    steps = per_judge_votes + per_judge_grades
    accepted: dict[str, list[bool]] = {}  # token -> what the store answered, per submission
    won_by_copy: list[str] = []  # doubled submissions the other thread stored first

    views: dict[tuple[str, int], str] = {}
    view_lock = threading.Lock()

    def view_for(name: str, i: int, query: str) -> str:
        """The view a judge's i-th vote is cast on, drawn once: its double submission (from
        either thread) is a second vote on the same view."""
        with view_lock:
            if (name, i) not in views:
                views[(name, i)] = store.issue_view(
                    dataset, query, "title", "bm25", "bm25" if i % 2 else "title", 10, name,
                    True).view_id
            return views[(name, i)]

    def submit(number: int, step: int, copy: bool = False) -> None:
        """The judge's ``step``-th submission: a vote on every third step, else a grade."""
        name = f"judge{number:02d}"
        kind, i = ("vote", step // 3) if step % 3 == 0 else ("grade", step - step // 3 - 1)
        token = f"{name}-{kind}-{i}"
        query = queries[i % len(queries)]
        if kind == "vote":
            stored = store.cast_vote(dataset, view_for(name, i, query),
                                     ("left", "right", "tie", "both_bad")[i % 4], name, token)
        else:
            stored = store.add_expert_label(dataset, query, str(i % 1400 + 1), i % 5, name,
                                            token, note=token)
        accepted.setdefault(token, []).append(stored)  # dict and list ops are atomic
        if copy and stored:
            won_by_copy.append(token)

    def judge(number: int) -> None:
        try:
            for step in range(steps):
                submit(number, step)
                if step % 10 == 0:  # the neighbour's double click, racing the neighbour
                    submit((number + 1) % JUDGES, step, copy=True)
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
                    next(b for b in at.button if str(b.key).startswith("vote:tie:")).click().run()
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

    assert len(accepted) == VOTES + GRADES
    doubled = [answers for answers in accepted.values() if len(answers) == 2]
    assert len(doubled) == JUDGES * len(range(0, steps, 10))
    assert all(answers.count(True) == 1 for answers in accepted.values())

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
          " 0 lost, 0 duplicated;"
          f" {len(won_by_copy)} of {len(doubled)} double submits stored from the other thread")
