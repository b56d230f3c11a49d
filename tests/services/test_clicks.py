"""Click logs wired into the product: the store round trip, all-or-nothing imports, the
query-matching report, replay through the store, COEC labels as the clicks:coec witness, the
dashboard's "Sessions replayed" section, and the commands end to end on the real UBI sample.

Expected values are counted from the files with plain ``json``/``csv`` or worked out by hand
in the comments, never read back from the code under test.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.cli import main
from judge_app.errors import InputError, SxsError
from judge_app.services import clicks
from judge_app.store import Dataset, Store
from metrics.replay import replay
from metrics.scale import ESCI
from tests.votes import vote

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "esci-ubi" / "ubi_queries_events.ndjson"

# A hand-made table log.  Dataset queries: q1 "red shoes", q2 "Blue Shirt".
#  s1 searched "Red  SHOES" (matches q1 by text), saw d1 at 1 and d2 at 2, clicked d2;
#  s2 searched "green hat" (matches nothing), saw d9, clicked it;
#  s3 logged query id q2 (matches q2 by id), saw d5 at 1, d6 at 2, put d6 in the cart.
LOG = [("s1", "Red  SHOES", "", "d1", 1, "impression"),
       ("s1", "Red  SHOES", "", "d2", 2, "impression"),
       ("s1", "Red  SHOES", "", "d2", 2, "click"),
       ("s2", "green hat", "", "d9", 1, "impression"),
       ("s2", "green hat", "", "d9", 1, "click"),
       ("s3", "", "q2", "d5", 1, "impression"),
       ("s3", "", "q2", "d6", 2, "impression"),
       ("s3", "", "q2", "d6", 2, "add_to_cart")]


def write_log(path: Path, minute: int = 0) -> Path:
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["session_id", "query", "query_id", "doc_id", "position", "action",
                      "timestamp"])
        for i, row in enumerate(LOG):
            out.writerow([*row, f"2024-01-01T00:{minute:02d}:{i:02d}Z"])
    return path


def small_store(tmp_path: Path) -> tuple[Store, Dataset, Path]:
    store = Store(tmp_path / "clicks.duckdb")
    dataset = store.create_dataset("shop", ESCI)
    store.put_queries(dataset, pd.DataFrame({"query_id": ["q1", "q2"],
                                             "text": ["red shoes", "Blue Shirt"]}))
    return store, dataset, write_log(tmp_path / "log.csv")


def put_run(store: Store, dataset: Dataset, name: str, rows: list[tuple[str, str]]) -> None:
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id"])
    frame["rank"] = frame.groupby("query_id").cumcount() + 1
    store.put_run(dataset, name, frame.assign(score=float("nan"), line=range(1, len(rows) + 1)),
                  name, trust_rank=True)


def test_a_hand_made_log_reports_its_matches_and_stores_every_row(tmp_path: Path) -> None:
    store, dataset, log = small_store(tmp_path)
    with store:
        report = clicks.import_clicks(store, dataset, log, as_run="logged")
        # log queries: "red shoes" by text, q2 by id, "green hat" unmatched; sessions s1, s3
        # of s1..s3 matched; 6 of 8 rows matched
        assert (report.match.log_queries, report.match.matched_by_id,
                report.match.matched_by_text, report.match.unmatched) == (3, 1, 1, 1)
        assert (report.match.sessions, report.match.sessions_matched) == (3, 2)
        assert (report.match.rows, report.match.rows_matched) == (8, 6)
        record = store.click_imports(dataset).iloc[0]
        assert (record.impressions, record.events, record.sessions, record.sessions_matched,
                record.log_queries, record.queries_matched) == (5, 3, 3, 2, 3, 2)
        assert record.logged_run == "logged"
        assert record.weights == "add_to_cart=2, click=1, purchase=3"
        impressions = store.click_rows(dataset, "impressions")
        assert len(impressions) == 5  # unmatched rows are kept, with no dataset query
        assert impressions["query_id"].isna().sum() == 1
        matched = store.click_rows(dataset, "impressions", matched_only=True)
        assert sorted(zip(matched["query_id"], matched["doc_id"], matched["rank"],
                          strict=True)) == [("q1", "d1", 1), ("q1", "d2", 2), ("q2", "d5", 1),
                                            ("q2", "d6", 2)]
        events = store.click_rows(dataset, "events", matched_only=True)
        assert sorted(zip(events["session_id"], events["log_query_id"].fillna(""),
                          events["action"], strict=True)) == [
            ("s1", "", "click"), ("s3", "q2", "add_to_cart")]
        logged = store.run(dataset, "logged")
        assert list(zip(logged["query_id"], logged["doc_id"], logged["rank"], strict=True)) == [
            ("q1", "d1", 1), ("q1", "d2", 2), ("q2", "d5", 1), ("q2", "d6", 2)]
        with pytest.raises(SxsError, match="run 'logged' already exists"):
            clicks.import_clicks(store, dataset, write_log(tmp_path / "again.csv", 1),
                                 as_run="logged")
        assert len(store.click_imports(dataset)) == 1  # the clash stored no second import
        replaced = clicks.import_clicks(store, dataset, write_log(tmp_path / "again.csv", 1),
                                        as_run="logged", replace=True)
        assert replaced.run_rows == 4  # (ids may skip: a sequence does not roll back)
        assert store.click_imports(dataset)["import_id"].tolist() == [1, replaced.import_id]
        assert len(store.run(dataset, "logged")) == 4
        with pytest.raises(SxsError, match="already in dataset 'shop'"):
            clicks.import_clicks(store, dataset, log)
        assert len(store.click_imports(dataset)) == 2


def test_the_real_sample_round_trips_with_the_files_counts(tmp_path: Path) -> None:
    impressions = others = 0
    index = None
    with SAMPLE.open(encoding="utf-8") as handle:
        for line in handle:
            document = json.loads(line)
            if "index" in document:
                index = document["index"]["_index"]
            elif index == "ubi_events":
                if document["action_name"] == "impression":
                    impressions += 1
                else:
                    others += 1
    assert (impressions, others) == (1999, 1449)
    with Store(tmp_path / "sample.duckdb") as store:
        dataset = store.create_dataset("esci", ESCI)
        store.put_queries(dataset, pd.DataFrame({"query_id": ["x"], "text": ["iphone"]}))
        clicks.import_clicks(store, dataset, SAMPLE)
        record = store.click_imports(dataset).iloc[0]
        assert (record.impressions, record.events) == (impressions, others)
        assert len(store.click_rows(dataset, "impressions")) == impressions
        stored = store.click_rows(dataset, "events")
        assert len(stored) == others
        assert stored["action"].value_counts()["add_to_cart"] == 234


def test_a_malformed_line_stores_nothing_and_names_file_and_line(tmp_path: Path) -> None:
    store, dataset, _ = small_store(tmp_path)
    bad = tmp_path / "bad.ndjson"
    good = {"action_name": "impression", "query_id": "q1", "session_id": "s1",
            "timestamp": "2024-01-01T00:00:00Z",
            "event_attributes": {"object": {"object_id": "d1"}, "position": {"ordinal": 0}}}
    bad.write_text("\n".join([json.dumps({"index": {"_index": "ubi_events"}}), json.dumps(good),
                              json.dumps({"index": {"_index": "ubi_events"}}),
                              '{"action_name": "click", "query_id": '])
                   + "\n")
    with store:
        with pytest.raises(InputError) as caught:
            clicks.import_clicks(store, dataset, bad, as_run="logged")
        message = str(caught.value)
        assert "\n" not in message and str(bad) in message and "line 4" in message
        assert store.click_imports(dataset).empty
        assert store.click_rows(dataset, "events").empty
        assert store.run_names(dataset) == []
    result = CliRunner().invoke(main, ["import", "clicks", "-d", "shop", str(bad), "--db",
                                       str(tmp_path / "clicks.duckdb")])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "line 4" in result.output


def test_replay_through_the_store_equals_metrics_replay_on_the_same_frames(tmp_path: Path
                                                                            ) -> None:
    store, dataset, log = small_store(tmp_path)
    with store:
        clicks.import_clicks(store, dataset, log, as_run="logged")
        put_run(store, dataset, "swapped", [("q1", "d2"), ("q1", "d1"), ("q2", "d6"),
                                            ("q2", "d5")])
        stored = clicks.replay_runs(store, dataset, "logged", "swapped", seed=4,
                                    permutations=500)
    # s1 engaged d2 (click, weight 1): rank 2 under logged, 1 swapped -> MRR 0.5 -> 1;
    # s3 engaged d6 (add_to_cart, weight 2): the same; "green hat" is no dataset query.
    events = pd.DataFrame({"session_id": ["s1", "s3"], "query_id": ["q1", "q2"],
                           "doc_id": ["d2", "d6"], "action": ["click", "add_to_cart"]})
    runs = [pd.DataFrame({"query_id": ["q1", "q1", "q2", "q2"], "doc_id": docs,
                          "rank": [1, 2, 1, 2]})
            for docs in (["d1", "d2", "d5", "d6"], ["d2", "d1", "d6", "d5"])]
    direct = replay(events, *runs, seed=4, permutations=500)
    assert stored.summary == direct.summary
    assert stored.basis == direct.basis
    pd.testing.assert_frame_equal(stored.per_query.reset_index(drop=True),
                                  direct.per_query.reset_index(drop=True), check_dtype=False)
    assert stored.summary.delta == pytest.approx(0.5)
    assert (stored.basis.sessions, stored.basis.queries, stored.basis.engagements) == (2, 2, 2)


def test_coec_grades_are_the_clicks_witness_counted_only_when_asked(tmp_path: Path) -> None:
    store, dataset, log = small_store(tmp_path)
    with store:
        clicks.import_clicks(store, dataset, log)
        graded = clicks.grade_clicks(store, dataset, min_impressions=1)
        # the curve is over every query of the log ("green hat" too, though it matched no
        # dataset query): rank 1 shows d1 (q1), d9 (green hat), d5 (q2), d9 clicked: ctr(1)
        # = 1/3; rank 2 shows d2 (q1), d6 (q2), d2 clicked (the add_to_cart is no click):
        # ctr(2) = 1/2.  (q1, d2): 1 click / 0.5 expected = COEC 2 -> ESCI thresholds
        # 0.5, 1, 2 -> grade 3; d1, d5 (0 / 1/3) and d6 (0 / 0.5): COEC 0 -> grade 0;
        # green hat's d9 is no dataset pair: not graded.
        labels = store.current_expert_labels(dataset)
        assert list(zip(labels["query_id"], labels["doc_id"], labels["grade"],
                        labels["judge"], labels["witness"], strict=True)) == [
            ("q1", "d1", 0, "clicks:coec", "clicks"), ("q1", "d2", 3, "clicks:coec", "clicks"),
            ("q2", "d5", 0, "clicks:coec", "clicks"), ("q2", "d6", 0, "clicks:coec", "clicks")]
        note = json.loads(labels["note"].iloc[1])
        assert note["coec"] == pytest.approx(2.0) and note["imports"] == [1]
        assert note["thresholds"] == [0.5, 1.0, 2.0] and note["min_impressions"] == 1
        assert note["curve"] == ("CTR by rank over 5 impressions of the log (1 of them of "
                                 "queries outside the dataset) and their 2 clicks")
        assert graded.added == 4
        assert clicks.grade_clicks(store, dataset, min_impressions=1).added == 0
        assert store.judgments(dataset).empty  # never dataset judgments
        assert store.filled_judgments(dataset, basis="experts").empty
        with_clicks = store.filled_judgments(dataset, basis="experts+clicks")
        assert list(zip(with_clicks["query_id"], with_clicks["doc_id"], with_clicks["grade"],
                        strict=True)) == [("q1", "d1", 0), ("q1", "d2", 3), ("q2", "d5", 0),
                                          ("q2", "d6", 0)]
        assert store.filled_judgments(dataset, basis="experts+llm").empty


def test_the_sessions_replayed_section_puts_three_witnesses_side_by_side(tmp_path: Path
                                                                         ) -> None:
    store, dataset, log = small_store(tmp_path)
    with store:
        assert clicks.sessions_replayed(store, dataset, "a", "b") is None  # no clicks yet
        clicks.import_clicks(store, dataset, log, as_run="logged")
        put_run(store, dataset, "swapped", [("q1", "d2"), ("q1", "d1"), ("q2", "d6"),
                                            ("q2", "d5")])
        # q1: d2 is Exact, d1 Irrelevant -> swapped puts the Exact doc first: label delta > 0
        store.put_judgments(dataset, pd.DataFrame({"query_id": ["q1", "q1"],
                                                   "doc_id": ["d1", "d2"], "grade": [0, 3]}),
                            "test")
        # ann prefers B (swapped) on q1, A on q2; "tie" on q2 by bob is not decided
        for i, (query, left, choice, judge) in enumerate([
                ("q1", "swapped", "left", "ann"), ("q2", "swapped", "right", "ann"),
                ("q2", "logged", "tie", "bob")]):
            vote(store, dataset, query, "logged", "swapped", left, choice, judge,
                 reason=f"vote-{i}")
        section = clicks.sessions_replayed(store, dataset, "logged", "swapped",
                                           permutations=200)
    assert section is not None
    rows = section.witnesses.set_index("query_id")
    # q1: label +, experts 1/1 for B, replay +0.5 -> agree
    assert rows.loc["q1", "label_delta"] > 0 and rows.loc["q1", "expert_win_rate"] == 1.0
    assert rows.loc["q1", "replay_delta"] == pytest.approx(0.5)
    assert rows.loc["q1", "signs"] == "agree"
    # q2: no label, experts 0/1 for B, replay +0.5 -> disagree
    assert pd.isna(rows.loc["q2", "label_delta"]) and rows.loc["q2", "expert_win_rate"] == 0.0
    assert rows.loc["q2", "votes"] == 1 and rows.loc["q2", "signs"] == "disagree"
    assert list(section.counts.values()) == [1, 2, 2, 2, 1]
    assert section.chart["delta"].tolist() == pytest.approx([0.5, 0.5])
    assert "Sessions replayed" in render_section(section)


def render_section(section: clicks.SessionsReplayed) -> str:
    from judge_app.services.report import sessions_replayed_html

    return sessions_replayed_html(section)


def test_the_commands_end_to_end_on_the_real_sample(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.duckdb")
    runner = CliRunner()
    first = runner.invoke(main, ["demo", "--clicks", "--no-serve", "--db", db])
    assert first.exit_code == 0, first.output
    assert "stored the logged ranking as run 'logged'" in first.output
    again = runner.invoke(main, ["demo", "--clicks", "--no-serve", "--db", db])
    assert again.exit_code == 0 and "already in" in again.output
    out = tmp_path / "sessions.csv"
    result = runner.invoke(main, ["replay", "logged", "clicks-oracle", "-d", "esci-ubi",
                                  "--db", db, "-o", str(out), "--permutations", "500"])
    assert result.exit_code == 0, result.output
    with out.open(newline="") as handle:
        sessions = list(csv.DictReader(handle))
    assert f"sessions replayed: {len(sessions)} over " in result.output
    queries = {row["query_id"] for row in sessions}
    assert f" over {len(queries)} queries" in result.output
    # the oracle puts each query's most engaged docs first: some session must gain
    assert any(float(row["delta"]) > 0 for row in sessions)
    same = runner.invoke(main, ["replay", "logged", "clicks-oracle", "-d", "esci-ubi", "--db",
                                db, "--permutations", "500"])
    assert same.output.splitlines()[1:] == result.output.splitlines()[2:]  # seeded
    graded = runner.invoke(main, ["clicks", "grade", "-d", "esci-ubi", "--db", db,
                                  "--min-impressions", "3"])
    assert graded.exit_code == 0 and "clicks:coec" in graded.output
    listed = runner.invoke(main, ["clicks", "list", "-d", "esci-ubi", "--db", db])
    assert "1,999 impressions" in listed.output
    basis = runner.invoke(main, ["evaluate", "-d", "esci-ubi", "--db", db, "--run", "logged",
                                 "--filled", "--witness", "clicks", "-m", "ndcg@10"])
    assert basis.exit_code == 0, basis.output
    unlabelled = runner.invoke(main, ["evaluate", "-d", "esci-ubi", "--db", db, "--run",
                                      "logged", "--filled", "-m", "ndcg@10"])
    assert unlabelled.exit_code == 2 and "no judgments" in unlabelled.output
    for args in (["replay", "logged", "nope", "-d", "esci-ubi"],
                 ["replay", "title", "bm25", "-d", "cranfield"],
                 ["replay", "logged", "clicks-oracle", "-d", "esci-ubi", "--weights", "click"],
                 ["clicks", "grade", "-d", "esci-ubi", "--thresholds", "1,2"]):
        failed = runner.invoke(main, [*args, "--db", db])
        assert failed.exit_code == 2, (args, failed.output)
        assert failed.output.strip().count("\n") == 0 and "Traceback" not in failed.output
    report = tmp_path / "report.html"
    written = runner.invoke(main, ["report", "logged", "clicks-oracle", str(report), "-d",
                                   "esci-ubi", "--db", db])
    assert written.exit_code == 0, written.output
    assert "<h2>Sessions replayed</h2>" in report.read_text(encoding="utf-8")
    with Store(db) as store:
        board_section = clicks.sessions_replayed(store, store.dataset("esci-ubi"), "logged",
                                                 "clicks-oracle", permutations=200)
    assert board_section is not None and "Sessions replayed" in render_section(board_section)


@st.composite
def table_logs(draw: st.DrawFn) -> list[tuple[str, str, str, int, str]]:
    """Small logs: (session, query text, doc, position, action) rows, some queries unknown."""
    rows = []
    for session in range(draw(st.integers(1, 6))):
        query = draw(st.sampled_from(["red shoes", "RED shoes", "blue shirt", "green hat"]))
        docs = draw(st.lists(st.sampled_from(["d1", "d2", "d3", "d4"]), min_size=1,
                             max_size=4, unique=True))
        for position, doc in enumerate(docs, start=1):
            rows.append((f"s{session}", query, doc, position, "impression"))
            action = draw(st.sampled_from(["", "click", "add_to_cart", "purchase", "hover"]))
            if action:
                rows.append((f"s{session}", query, doc, position, action))
    return rows


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=table_logs())
def test_any_log_stores_its_counts_and_replays_as_metrics_does(tmp_path_factory, rows) -> None:
    folder = tmp_path_factory.mktemp("prop")
    log = folder / "log.csv"
    with log.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["session_id", "query", "doc_id", "position", "action"])
        out.writerows(rows)
    with Store(folder / "p.duckdb") as store:
        dataset = store.create_dataset("shop", ESCI)
        store.put_queries(dataset, pd.DataFrame({"query_id": ["q1", "q2"],
                                                 "text": ["red shoes", "blue shirt"]}))
        known = [r for r in rows if r[1].lower() in ("red shoes", "blue shirt")]
        if not known:
            with pytest.raises(SxsError, match="matches a query"):
                clicks.import_clicks(store, dataset, log)
            assert store.click_imports(dataset).empty
            return
        clicks.import_clicks(store, dataset, log, as_run="logged")
        shown = sum(r[4] == "impression" for r in rows)
        assert len(store.click_rows(dataset, "impressions")) == shown
        assert len(store.click_rows(dataset, "events")) == len(rows) - shown
        put_run(store, dataset, "reversed", [
            (q, d) for q, docs in store.run(dataset, "logged").groupby("query_id")["doc_id"]
            for d in reversed(docs.tolist())])
        qid = {"red shoes": "q1", "blue shirt": "q2"}
        events = pd.DataFrame([(s, qid[t.lower()], d, a) for s, t, d, _, a in known
                               if a != "impression"],
                              columns=["session_id", "query_id", "doc_id", "action"])
        runs = [store.run(dataset, name) for name in ("logged", "reversed")]
        try:
            direct = replay(events, *runs, permutations=200, seed=1)
        except ValueError:
            with pytest.raises(SxsError):
                clicks.replay_runs(store, dataset, "logged", "reversed", permutations=200,
                                   seed=1)
            return
        stored = clicks.replay_runs(store, dataset, "logged", "reversed", permutations=200,
                                    seed=1)
    assert stored.basis == direct.basis
    assert stored.summary.delta == pytest.approx(direct.summary.delta, nan_ok=True)
