"""Issue 11 in the store, without a browser: judges and sign-in links, votes bound to the view
that was shown, order-free pairs, stale votes after a run is replaced, leases for "judges per
query", blind rounds, retractions and withdrawals that keep history, and the migration of a
store written with the old schema."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import duckdb
import numpy as np
import pandas as pd
import pytest

from judge_app.errors import SxsError
from judge_app.services import judging, next_query
from judge_app.services.dashboard import Settings, dashboard
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from judge_app.store.judges import SignInRefused, token_hash
from judge_app.store.migrations import MIGRATIONS
from judge_app.store.votes import QueryFull, StaleView
from metrics import ESCI
from metrics.agreement import vote_for_b
from tests.postgres import require
from tests.votes import ensure_runs


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


@pytest.fixture(scope="module")
def demo_path(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    with Store(path) as opened:
        build_demo_store(opened)
    return path


@pytest.fixture(params=["duckdb", "postgresql"])
def demo(request, demo_path: Path, tmp_path: Path):
    """The demo store on each backend (PostgreSQL: a copy of a database built once)."""
    if request.param == "duckdb":
        address = tmp_path / "demo.duckdb"
        address.write_bytes(demo_path.read_bytes())
    else:
        cluster = require(request.getfixturevalue("postgres_cluster"))
        address = cluster.copy_of("demo", build_demo_store)
        request.addfinalizer(lambda: cluster.drop(address))
    with Store(address) as opened:
        yield opened, opened.dataset("cranfield")


def rows(store: Store, sql: str) -> list[tuple]:
    return store.backend.cursor().execute(sql).fetchall()


# -- identity ---------------------------------------------------------------------------------

def test_an_invite_token_is_random_enough_and_only_its_hash_is_stored(store: Store) -> None:
    token = store.invite_judge("alice", admin=True)
    assert len(token) * 6 >= 128  # url-safe base64: 6 bits a character
    assert token != store.invite_judge("bob")
    stored = rows(store, "SELECT * FROM judges")
    assert token not in repr(stored) and token_hash(token) in repr(stored)
    judge, session = store.sign_in(token)
    assert (judge.name, judge.admin, judge.verified) == ("alice", True, True)
    assert session not in repr(rows(store, "SELECT * FROM sign_ins"))
    assert store.session_judge(session) == judge  # a reload: the session still holds
    assert store.session_judge("made-up") is None
    with pytest.raises(SignInRefused, match="not valid"):
        store.sign_in(token + "x")


def test_revoking_ends_the_link_and_every_session_but_keeps_the_votes(demo) -> None:
    store, dataset = demo
    token = store.invite_judge("alice")
    _, session = store.sign_in(token)
    view = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "alice")
    assert judging.record_vote(store, dataset, view, "left", "alice")
    store.revoke_judge("alice")
    assert store.session_judge(session) is None
    with pytest.raises(SignInRefused):
        store.sign_in(token)
    with pytest.raises(SignInRefused):
        judging.side_by_side(store, dataset, "title", "bm25", "2", 10, "alice")
    assert len(store.preferences(dataset)) == 1


def test_typed_names_are_unverified_and_cannot_take_an_invited_name(store: Store) -> None:
    store.invite_judge("alice", admin=True)
    with pytest.raises(SignInRefused, match="taken"):
        store.typed_judge("alice")
    for machine in ("llm:gpt", "clicks:coec"):
        with pytest.raises(SxsError, match="may not start with"):
            store.typed_judge(machine)
        with pytest.raises(SxsError, match="may not start with"):
            store.invite_judge(machine)
    typed = store.typed_judge("zoe")
    assert (typed.admin, typed.verified, typed.shown) == (False, False, "zoe (unverified)")


def test_unverified_judges_are_marked_in_every_output(demo) -> None:
    store, dataset = demo
    store.invite_judge("alice")
    store.typed_judge("zoe")
    for judge, query in (("alice", "1"), ("zoe", "2")):
        view = judging.side_by_side(store, dataset, "title", "bm25", query, 10, judge)
        judging.record_vote(store, dataset, view, "left", judge)
        judging.record_grade(store, dataset, view.view_id, query, view.left[0].doc_id, 2, judge)
    assert set(store.preferences(dataset)["judge"]) == {"alice", "zoe (unverified)"}
    assert set(store.current_expert_labels(dataset)["judge"]) == {"alice", "zoe (unverified)"}
    assert set(store.expert_label_history(dataset)["judge"]) == {"alice", "zoe (unverified)"}
    board = dashboard(store, dataset, "title", "bm25", Settings(k=10), permutations=200)
    assert "zoe (unverified)" in board.experts.index and "alice" in board.experts.index


# -- votes bound to the view ------------------------------------------------------------------

def test_the_same_view_twice_and_a_second_tab_each_store_one_vote(demo) -> None:
    store, dataset = demo
    store.typed_judge("ann")
    first = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann")
    second_tab = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann")
    assert first.view_id != second_tab.view_id
    assert judging.record_vote(store, dataset, first, "left", "ann")
    assert not judging.record_vote(store, dataset, first, "left", "ann")  # double click
    assert not judging.record_vote(store, dataset, second_tab, "right", "ann")  # second tab
    assert len(store.preferences(dataset)) == 1
    assert store.preferences(dataset).iloc[0]["choice"] == "left"


def test_a_judge_cannot_vote_on_or_undo_another_judges_vote(demo) -> None:
    store, dataset = demo
    store.typed_judge("ann")
    store.typed_judge("bob")
    view = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann")
    with pytest.raises(SignInRefused, match="another judge"):
        judging.record_vote(store, dataset, view, "right", "bob")
    assert judging.record_vote(store, dataset, view, "left", "ann")
    assert judging.undo_last_vote(store, dataset, "bob", "title", "bm25", "u1") is None
    (vote_id,) = store.preferences(dataset)["preference_id"]
    with pytest.raises(SxsError, match="their own"):
        store.retract_preference(dataset, int(vote_id), "bob", "u2")
    assert len(store.preferences(dataset)) == 1
    assert judging.undo_last_vote(store, dataset, "ann", "bm25", "title", "u3") == "1"
    assert len(store.preferences(dataset)) == 0
    assert len(store.preferences(dataset, include_retracted=True)) == 1  # history kept


def test_a_stale_view_is_refused_when_the_ranking_or_the_query_changed(demo) -> None:
    store, dataset = demo
    store.typed_judge("ann")
    view = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann")
    run = store.run(dataset, "bm25")
    swapped = run.assign(score=run["score"].where(run["query_id"] != "1", -run["score"]),
                         line=range(1, len(run) + 1))
    store.put_run(dataset, "bm25", swapped, "bm25-v2", replace=True)
    with pytest.raises(StaleView, match="this query changed"):
        judging.record_vote(store, dataset, view, "left", "ann", "my reason")
    assert len(store.preferences(dataset)) == 0
    again = judging.side_by_side(store, dataset, "title", "bm25", "2", 10, "ann")
    store.put_queries(dataset, pd.DataFrame({"query_id": ["2"], "text": ["a new text"]}))
    with pytest.raises(StaleView):
        judging.record_vote(store, dataset, again, "left", "ann")


def test_votes_are_keyed_by_the_unordered_pair_and_name_the_preferred_run(demo) -> None:
    store, dataset = demo
    store.typed_judge("ann")
    store.typed_judge("bob")
    for judge, (a, b), query, choice in (("ann", ("title", "bm25"), "1", "left"),
                                         ("bob", ("bm25", "title"), "1", "right"),
                                         ("ann", ("bm25", "title"), "2", "tie")):
        view = judging.side_by_side(store, dataset, a, b, query, 10, judge)
        judging.record_vote(store, dataset, view, choice, judge)
    one, other = (store.preferences(dataset, a, b) for a, b in (("title", "bm25"),
                                                                 ("bm25", "title")))
    assert len(one) == len(other) == 3
    assert set(one["run_a"]) == {"title"} and set(other["run_a"]) == {"bm25"}
    decided = one[one["choice"] != "tie"]
    for row in decided.itertuples():
        other_run = "bm25" if row.left_run == "title" else "title"
        assert row.preferred_run == (row.left_run if row.choice == "left" else other_run)
    assert one[one["choice"] == "tie"]["preferred_run"].isna().all()
    for votes in (one, other):  # the statistics read the vote as the stored column says
        stored = np.where(votes["preferred_run"] == votes["run_b"], 1,
                          np.where(votes["preferred_run"] == votes["run_a"], -1, 0))
        assert vote_for_b(votes).tolist() == stored.tolist() != [0, 0, 0]
    assert store.vote_counts(dataset, "title", "bm25", "ann").equals(
        store.vote_counts(dataset, "bm25", "title", "ann"))


def test_dashboard_counts_are_the_same_in_either_order_and_deltas_flip(demo) -> None:
    store, dataset = demo
    for n, query in enumerate(["1", "2", "3", "4", "5", "6"]):
        judge = f"j{n % 2}"
        if judge not in set(store.judges()["name"]):
            store.typed_judge(judge)
        view = judging.side_by_side(store, dataset, "title", "bm25", query, 10, judge)
        judging.record_vote(store, dataset, view, ("left", "right", "tie")[n % 3], judge)
    forward, backward = (dashboard(store, dataset, a, b, Settings(k=10), permutations=200)
                         for a, b in (("title", "bm25"), ("bm25", "title")))
    total = forward.experts.loc["all"]
    back = backward.experts.loc["all"]
    assert total["wins_a"] + total["wins_b"] + total["ties"] == 6
    assert (total["wins_b"], total["wins_a"], total["ties"]) == (
        back["wins_a"], back["wins_b"], back["ties"])
    measure = forward.comparison.index[0]
    assert forward.comparison.loc[measure, "delta"] == pytest.approx(
        -backward.comparison.loc[measure, "delta"])


def test_votes_on_a_replaced_ranking_stay_marked_stale_and_are_counted_apart(demo) -> None:
    store, dataset = demo
    store.typed_judge("ann")
    for query in ("1", "2"):
        view = judging.side_by_side(store, dataset, "title", "bm25", query, 10, "ann")
        judging.record_vote(store, dataset, view, "left", "ann")
    run = store.run(dataset, "bm25")
    changed = run.assign(score=run["score"].where(run["query_id"] != "1", -run["score"]),
                         line=range(1, len(run) + 1))
    store.put_run(dataset, "bm25", changed, "bm25-v2", replace=True)
    votes = store.preferences(dataset)
    assert dict(zip(votes["query_id"], votes["stale"], strict=True)) == {"1": True, "2": False}
    assert len(store.preferences(dataset, include_stale=False)) == 1
    board = dashboard(store, dataset, "title", "bm25", Settings(k=10), permutations=200)
    assert board.stale_votes == 1
    counted = board.experts.loc["all"]
    assert counted["wins_a"] + counted["wins_b"] + counted["ties"] + counted["both_bad"] == 1
    # the query can be judged again on its new ranking
    assert "1" not in set(store.vote_counts(dataset, "title", "bm25", "ann")["query_id"])


def test_the_voters_a_vote_checks_are_the_counted_votes_views(demo) -> None:
    """cast_vote and issue_view count a query's judges without the counted_votes view (it
    hashes every vote row): the same judges, over votes at two depths, a retracted vote, a
    vote without a recorded hash, and votes made stale at one depth but not the other."""
    from judge_app.store.votes import _counted_voters, _ranking_hash, pair

    store, dataset = demo
    for judge, k in (("ann", 10), ("bob", 5), ("cy", 10), ("dan", 5), ("eve", 10)):
        store.typed_judge(judge)
        view = judging.side_by_side(store, dataset, "title", "bm25", "1", k, judge)
        judging.record_vote(store, dataset, view, "left", judge)
    judging.undo_last_vote(store, dataset, "cy", "title", "bm25", "u-cy")
    with store.backend.transaction() as cur:  # a vote from before ranking hashes were recorded
        cur.execute("UPDATE preferences SET ranking_hash = NULL WHERE judge = 'eve'")
    run_1, run_2 = pair("title", "bm25")
    keys = {"d": dataset.dataset_id, "q": "1", "r1": run_1, "r2": run_2}

    def both(k: int) -> tuple[set[str], set[str]]:
        with store.backend.transaction() as cur:
            mine = _counted_voters(cur, keys, k, _ranking_hash(cur, keys, k))
            view = {r[0] for r in cur.execute(
                "SELECT DISTINCT judge FROM counted_votes WHERE dataset_id = $d "
                "AND query_id = $q AND run_1 = $r1 AND run_2 = $r2", keys).fetchall()}
        return mine, view

    assert both(10) == both(5) == ({"ann", "bob", "dan", "eve"},) * 2
    run = store.run(dataset, "bm25")  # ranks 7 and 8 of query 1 swap: the top 5 stay
    at = {rank: run.index[(run["query_id"] == "1") & (run["rank"] == rank)][0]
          for rank in (7, 8)}
    scores = run["score"].copy()
    scores[at[7]], scores[at[8]] = run.loc[at[8], "score"], run.loc[at[7], "score"]
    store.put_run(dataset, "bm25", run.assign(score=scores, line=range(1, len(run) + 1)),
                  "bm25-v2", replace=True)
    assert both(10) == both(5) == ({"bob", "dan", "eve"},) * 2


# -- overlap: leases and closing --------------------------------------------------------------

def test_a_query_is_leased_to_at_most_n_judges_and_closed_after_n_votes(demo) -> None:
    store, dataset = demo
    for name in ("ann", "bob", "cy"):
        store.typed_judge(name)
    ann = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann", overlap=1)
    assert ann is not None
    assert judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "bob",
                                overlap=1) is None
    two = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "bob", overlap=2)
    assert two is not None
    assert judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "cy",
                                overlap=2) is None
    next_query.skip(store, ann, "ann")  # ann skips: bob still holds it
    assert judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "cy",
                                overlap=1) is None
    next_query.skip(store, two, "bob")  # and bob: the query is free again
    assert judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "cy",
                                overlap=1) is not None


def test_a_lease_expires_and_a_late_vote_on_a_closed_query_is_refused(demo) -> None:
    store, dataset = demo
    for name in ("ann", "bob"):
        store.typed_judge(name)
    ann = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann", overlap=1,
                               lease_seconds=1)
    deadline = time.monotonic() + 30
    bob = None
    while bob is None and time.monotonic() < deadline:  # poll until ann's lease expires
        bob = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "bob",
                                   overlap=1)
    assert bob is not None
    assert judging.record_vote(store, dataset, bob, "left", "bob")
    with pytest.raises(QueryFull, match="already has its 1 judge"):
        judging.record_vote(store, dataset, ann, "right", "ann")
    assert len(store.preferences(dataset)) == 1


def test_ten_judges_drawing_at_once_get_one_lease_with_n_1(demo) -> None:
    store, dataset = demo
    names = [f"j{n}" for n in range(10)]
    for name in names:
        store.typed_judge(name)
    got: dict[str, object] = {}
    start = threading.Barrier(len(names))

    def draw(name: str) -> None:
        start.wait()
        got[name] = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, name,
                                         overlap=1)

    threads = [threading.Thread(target=draw, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    issued = [name for name, view in got.items() if view is not None]
    assert len(issued) == 1
    view = got[issued[0]]
    votes = [threading.Thread(target=judging.record_vote,
                              args=(store, dataset, view, "left", issued[0]))
             for _ in range(5)]
    for t in votes:
        t.start()
    for t in votes:
        t.join()
    assert len(store.preferences(dataset)) == 1


# -- rounds, blind, grades --------------------------------------------------------------------

def test_the_round_is_stored_and_blind_goes_with_every_vote(demo) -> None:
    store, dataset = demo
    round_ = store.current_round(dataset)
    assert (round_.run_a, round_.run_b, round_.k, round_.overlap, round_.blind) == (
        "title", "bm25", 10, 1, True)
    store.set_round(dataset, "title", "bm25", k=5, overlap=2, blind=False, by="admin")
    assert store.current_round(dataset).overlap == 2
    store.typed_judge("ann")
    for query, blind in (("1", True), ("2", False)):
        view = judging.side_by_side(store, dataset, "title", "bm25", query, 5, "ann", blind)
        judging.record_vote(store, dataset, view, "tie", "ann")
    votes = store.preferences(dataset)
    assert dict(zip(votes["query_id"], votes["blind"], strict=True)) == {"1": True, "2": False}


def test_in_a_blind_round_a_judge_sees_their_grades_not_other_judges(demo) -> None:
    store, dataset = demo
    store.typed_judge("ann")
    store.typed_judge("bob")
    first = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "ann")
    unlabelled = [r.doc_id for r in first.left if r.grade is None]
    assert unlabelled, "the demo query 1 has unlabelled results"
    doc = unlabelled[0]
    judging.record_grade(store, dataset, first.view_id, "1", doc, 3, "ann")
    for blind, judge, expected in ((True, "bob", None), (True, "ann", 3), (False, "bob", 3)):
        view = judging.side_by_side(store, dataset, "title", "bm25", "1", 10, judge, blind)
        shown = {r.doc_id: r.grade for r in view.left + view.right}
        assert shown[doc] == expected, (blind, judge)


def test_the_labels_shown_for_a_view_are_read_in_one_go(demo) -> None:
    """Store.labels_shown: the dataset grade beside, blind, the judge's own current grade;
    not blind, the lower median of the experts' grades (1, 2 -> 1; 1, 2, 3 -> 2)."""
    store, dataset = demo
    for name in ("ann", "bob", "cat"):
        store.typed_judge(name)
    labelled = store.judgments(dataset)
    labelled = labelled[labelled["query_id"] == "1"]
    top = store.issue_view(dataset, "1", "bm25", "title", "bm25", 10, "ann", True).top
    doc = next(d for d in top["bm25"] + top["title"] if d not in set(labelled["doc_id"]))
    store.add_expert_label(dataset, "1", doc, 2, "ann", "grade:a")
    store.add_expert_label(dataset, "1", doc, 1, "bob", "grade:b")
    assert store.labels_shown(dataset, "1", "ann", blind=True)[doc] == (None, 2)
    assert store.labels_shown(dataset, "1", "bob", blind=True)[doc] == (None, 1)
    assert doc not in store.labels_shown(dataset, "1", "cat", blind=True)
    assert store.labels_shown(dataset, "1", "cat", blind=False)[doc] == (None, 1)
    store.add_expert_label(dataset, "1", doc, 3, "cat", "grade:c")
    assert store.labels_shown(dataset, "1", "cat", blind=False)[doc] == (None, 2)
    assert store.withdraw_label(dataset, "1", doc, "ann")
    assert doc not in store.labels_shown(dataset, "1", "ann", blind=True)
    shown = store.labels_shown(dataset, "1", "ann", blind=True)
    assert {d: g for d, (g, _) in shown.items()} == dict(
        zip(labelled["doc_id"], labelled["grade"].astype(int), strict=True))


def test_a_grade_can_be_withdrawn_and_the_history_stays(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    store.typed_judge("ann")
    ensure_runs(store, dataset, "A", "B")
    store.add_expert_label(dataset, "q1", "d1", 2, "ann", "grade:x")
    assert judging.withdraw_grade(store, dataset, "q1", "d1", "ann")
    assert store.current_expert_labels(dataset).empty
    history = store.expert_label_history(dataset)
    assert history["withdrawn"].tolist() == [True]
    assert not judging.withdraw_grade(store, dataset, "q1", "d1", "ann")  # nothing left


def test_writes_need_a_registered_judge(demo) -> None:
    store, dataset = demo
    with pytest.raises(SignInRefused, match="not a judge"):
        judging.side_by_side(store, dataset, "title", "bm25", "1", 10, "nobody")
    with pytest.raises(SignInRefused, match="not a judge"):
        judging.record_grade(store, dataset, "v", "1", "d", 1, "nobody")


# -- migration of an old store ----------------------------------------------------------------

def test_a_store_with_the_old_schema_is_converted(tmp_path: Path) -> None:
    path = tmp_path / "old.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE sxs_migrations (name TEXT PRIMARY KEY, "
                "applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp)")
    old = [m for m in MIGRATIONS if m.name < "0005"]  # 0001-0004: the schema before issue 11
    assert [m.name for m in old][:3] == ["0001_initial", "0002_preference_retractions",
                                         "0003_label_and_vote_views"]
    for m in old:
        m.apply(con)
        con.execute("INSERT INTO sxs_migrations (name) VALUES (?)", [m.name])
    con.execute("INSERT INTO datasets (name) VALUES ('p')")
    con.execute("INSERT INTO grade_scale VALUES (1, 0, 'bad'), (1, 1, 'good')")
    # old-style votes: per run order, as the README named the runs either way round
    con.executemany("""INSERT INTO preferences (dataset_id, query_id, run_a, run_b, left_run,
                                                choice, judge, client_token, reason)
                       VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)""", [
        ["q1", "base", "cand", "cand", "left", "ann", "vote:1", "clearer"],
        ["q2", "cand", "base", "cand", "right", "bob", "vote:2", None],
        ["q3", "cand", "base", "base", "tie", "ann", "vote:3", None],
        ["q4", "base", "cand", "base", "left", "ann", "vote:4", None]])
    con.execute("INSERT INTO preference_retractions VALUES (4, 'ann', now(), 'undo:1')")
    con.execute("""INSERT INTO expert_labels (dataset_id, query_id, doc_id, grade, judge,
                                              client_token)
                   VALUES (1, 'q1', 'd1', 1, 'cy', 'grade:v:q1:d1:0'),
                          (1, 'q1', 'd2', 0, 'llm:m', 'llm:1')""")
    con.close()
    with Store(path) as store:
        assert store.migrations() == [m.name for m in MIGRATIONS]  # 0005 and later applied
        dataset = store.dataset("p")
        votes = store.preferences(dataset, include_retracted=True)
        assert votes["preference_id"].tolist() == [1, 2, 3, 4]
        assert votes["retracted"].tolist() == [False, False, False, True]
        assert votes["preferred_run"].tolist()[:2] == ["cand", "base"]
        assert pd.isna(votes["preferred_run"].iloc[2])  # a tie prefers neither
        assert votes.iloc[0]["reason"] == "clearer"
        assert set(votes["judge"]) == {"ann (unverified)", "bob (unverified)"}
        assert not votes["stale"].any()
        forward = store.preferences(dataset, "base", "cand")
        backward = store.preferences(dataset, "cand", "base")
        assert len(forward) == len(backward) == 3
        assert set(forward["run_a"]) == {"base"} and set(backward["run_a"]) == {"cand"}
        judges = store.judges().set_index("name")
        assert set(judges.index) == {"ann", "bob", "cy"}  # not the llm witness
        assert not judges["verified"].any() and set(judges["via"]) == {"legacy"}
        # the legacy judges' votes still count per pair, and ann can undo her own
        assert store.last_vote(dataset, "ann", "cand", "base") == (3, "q3")
    with Store(path) as again:
        assert len(again.preferences(again.dataset("p"))) == 3
