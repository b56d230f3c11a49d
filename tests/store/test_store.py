"""The DuckDB store: migrations, locking, append-only history, idempotent writes, threads."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from judge_app.errors import InputError, SchemaTooNew, StoreLocked, SxsError
from judge_app.store import Store
from judge_app.store.migrations import MIGRATIONS
from metrics import ESCI, WANDS
from tests.votes import ensure_runs


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def test_a_new_store_has_every_migration_and_reopening_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as first:
        assert first.migrations() == [m.name for m in MIGRATIONS]
        first.create_dataset("p", ESCI)
    with Store(path) as again:
        assert again.migrations() == [m.name for m in MIGRATIONS]
        assert again.dataset("p").scale == ESCI


def test_a_store_from_a_newer_sxs_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    Store(path).close()
    con = duckdb.connect(str(path))
    con.execute("INSERT INTO sxs_migrations (name) VALUES ('9999_from_the_future')")
    con.close()
    with pytest.raises(SchemaTooNew, match=r"newer sxs.*9999_from_the_future"):
        Store(path)


def test_an_older_store_is_upgraded(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "s.duckdb"
    Store(path).close()

    def add_column(con):
        con.execute("ALTER TABLE datasets ADD COLUMN description TEXT")

    from judge_app.store import migrations
    monkeypatch.setattr(migrations, "MIGRATIONS", [*MIGRATIONS,
                                                   migrations.Migration("0099_test", add_column)])
    with Store(path) as upgraded:
        assert upgraded.migrations()[-1] == "0099_test"


def test_a_second_process_gets_a_clear_lock_error_and_the_first_keeps_working(
        tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path) as store:
        dataset = store.create_dataset("p", ESCI)
        script = textwrap.dedent(f"""
            from judge_app.store import Store
            from judge_app.errors import StoreLocked
            try:
                Store({str(path)!r})
            except StoreLocked as error:
                print(error)
        """)
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=120)
        assert f"{path} is in use by another sxs process" in done.stdout
        assert store.add_expert_label(dataset, "q", "d", 2, "ann", "t1")
        assert len(store.expert_label_history(dataset)) == 1


def test_locked_error_type_is_raised_in_process_too(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    # the holder keeps the file open until the test closes its stdin
    holder = subprocess.Popen(
        [sys.executable, "-c", f"import duckdb, sys; c = duckdb.connect({str(path)!r}); "
         "print('open', flush=True); sys.stdin.readline(); c.close(); print('closed')"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(StoreLocked, match="in use"):
            Store(path)
    finally:
        released, _ = holder.communicate(timeout=60)  # closes stdin: the holder lets go
    assert released.strip() == "closed" and holder.returncode == 0
    Store(path).close()  # and the file opens again


def test_expert_labels_are_append_only_and_the_latest_is_current(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    assert store.add_expert_label(dataset, "q1", "d1", 1, "ann", "t1")
    assert store.add_expert_label(dataset, "q1", "d1", 3, "ann", "t2", note="on reflection")
    assert store.add_expert_label(dataset, "q1", "d1", 2, "bob", "t3")
    assert not store.add_expert_label(dataset, "q1", "d1", 0, "ann", "t2")  # double submit
    history = store.expert_label_history(dataset)
    assert list(history["grade"]) == [1, 3, 2]
    current = store.current_expert_labels(dataset).set_index("judge")
    assert current.loc["ann", "grade"] == 3 and current.loc["bob", "grade"] == 2
    with pytest.raises(SxsError, match="not on the scale"):
        store.add_expert_label(dataset, "q1", "d1", 7, "ann", "t9")


def test_preferences_record_the_side_assignment_once(store: Store) -> None:
    dataset = store.create_dataset("p", WANDS)
    store.typed_judge("ann")
    ensure_runs(store, dataset, "base", "cand")
    view = store.issue_view(dataset, "q1", "base", "cand", "cand", 10, "ann", True)
    assert store.cast_vote(dataset, view.view_id, "left", "ann", "fewer rugs", 5300)
    assert not store.cast_vote(dataset, view.view_id, "left", "ann")  # the same view again
    votes = store.preferences(dataset)
    assert len(votes) == 1
    assert votes.iloc[0][["left_run", "choice", "preferred_run", "ms_spent"]].tolist() == [
        "cand", "left", "cand", 5300]
    with pytest.raises(SxsError, match="neither"):
        store.issue_view(dataset, "q1", "base", "cand", "other", 10, "ann", True)
    with pytest.raises(SxsError, match="choice must be"):
        store.cast_vote(dataset, view.view_id, "up", "ann")


def test_a_failed_run_import_stores_nothing(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    good = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "b"], "rank": [1, 2],
                         "score": [2.0, 1.0], "line": [1, 2]})
    store.put_run(dataset, "r", good, "good.txt")
    bad = pd.DataFrame({"query_id": ["q"] * 2, "doc_id": ["a", "a"], "rank": [1, 2],
                        "score": [2.0, 1.0], "line": [1, 2]})
    with pytest.raises(InputError, match="appears twice"):
        store.put_run(dataset, "r", bad, "bad.txt", replace=True)
    assert list(store.run(dataset, "r")["doc_id"]) == ["a", "b"]  # the old run survives
    with pytest.raises(SxsError, match="already exists"):
        store.put_run(dataset, "r", good, "good.txt")


def test_threads_write_through_one_store(store: Store) -> None:
    dataset = store.create_dataset("p", ESCI)
    errors = []

    def judge(name: str) -> None:
        try:
            for i in range(50):
                store.add_expert_label(dataset, f"q{i % 5}", f"d{i}", i % 4, name, f"{name}-{i}")
                store.current_expert_labels(dataset)
        except Exception as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=judge, args=(f"j{n}",)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(store.expert_label_history(dataset)) == 300


def test_dataset_scales_are_kept_and_checked(store: Store) -> None:
    store.create_dataset("p", ESCI)
    assert store.create_dataset("p", ESCI).scale == ESCI  # idempotent
    with pytest.raises(SxsError, match="exists with scale"):
        store.create_dataset("p", WANDS)
    with pytest.raises(SxsError, match=r"no dataset 'x'.*datasets: p"):
        store.dataset("x")


def test_an_upgrade_drops_the_judgments_foreign_key_and_keeps_every_row(
        tmp_path: Path, monkeypatch) -> None:
    """0012 rebuilds ``judgments`` without its foreign key on DuckDB (the index DuckDB keeps
    for it was half of a large qrels import): a store written before it keeps every
    judgment, column for column."""
    from judge_app.store import migrations
    path = tmp_path / "s.duckdb"
    before = [m for m in MIGRATIONS if m.name != "0012_judgments_without_foreign_key"]
    monkeypatch.setattr(migrations, "MIGRATIONS", before)
    with Store(path) as old:
        dataset = old.create_dataset("p", ESCI)
        old.put_judgments(dataset, pd.DataFrame({"query_id": ["q1", "q1", "q2"],
                                                 "doc_id": ["d1", "d2", "d1"],
                                                 "grade": [3, 0, 2]}), source="a.qrels")
        written = old.judgments(dataset).sort_values(["query_id", "doc_id"], ignore_index=True)
    monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)
    with Store(path) as upgraded:
        assert upgraded.migrations()[-1] == "0012_judgments_without_foreign_key"
        dataset = upgraded.dataset("p")
        kept = upgraded.judgments(dataset).sort_values(["query_id", "doc_id"],
                                                       ignore_index=True)
        pd.testing.assert_frame_equal(kept, written)
    con = duckdb.connect(str(path))
    keys = con.execute("SELECT count(*) FROM duckdb_constraints() WHERE table_name = "
                       "'judgments' AND constraint_type = 'FOREIGN KEY'").fetchone()[0]
    columns = con.execute("SELECT column_name, data_type, is_nullable FROM "
                          "information_schema.columns WHERE table_name = 'judgments' "
                          "ORDER BY ordinal_position").fetchall()
    con.close()
    assert keys == 0
    assert columns == [("dataset_id", "INTEGER", "NO"), ("query_id", "VARCHAR", "NO"),
                       ("doc_id", "VARCHAR", "NO"), ("grade", "INTEGER", "NO"),
                       ("source", "VARCHAR", "NO"), ("imported_at", "TIMESTAMP WITH TIME ZONE",
                                                     "NO")]
