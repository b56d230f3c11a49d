"""``sxs backup`` / ``sxs restore``: every table (whatever migrations added it), every row and
every sequence's position come back; a backup killed half-way leaves the previous one as it
was; a served store is backed up by the process that serves it."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import SxsError
from judge_app.services import backups
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from judge_app.store.serving import lock_path
from tests.votes import vote

EVALUATE = ["evaluate", "-d", "cranfield", "--run", "bm25", "--run", "title", "--filled",
            "--format", "csv"]


def fill(store: Store) -> None:
    """The demo plus expert labels, votes with reasons, a retraction and a replaced grade."""
    build_demo_store(store)
    dataset = store.dataset("cranfield")
    store.add_expert_label(dataset, "1", "184", 4, "ann", "l1", note="on topic")
    store.add_expert_label(dataset, "1", "184", 2, "ann", "l2")
    store.add_expert_label(dataset, "2", "12", 1, "bob", "l3")
    for token, choice in enumerate(["left", "right", "tie"]):
        vote(store, dataset, str(token + 1), "bm25", "title", "title", choice, "ann",
             reason=f"reason {token}")
    votes = store.preferences(dataset)
    store.retract_preference(dataset, int(votes["preference_id"].iloc[0]), "ann", "r0")
    first = store.judgments(dataset).iloc[0]
    store.put_judgments(dataset, pd.DataFrame({
        "query_id": [first["query_id"]], "doc_id": [first["doc_id"]],
        "grade": [(int(first["grade"]) + 1) % 4]}), "fix.qrels", on_conflict="last")


@pytest.fixture(scope="module")
def full_db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("backup") / "full.duckdb"
    with Store(path) as store:
        fill(store)
    return path


def snapshot(path: Path) -> tuple[dict[str, int], dict[str, int]]:
    with Store(path, create=False) as store:
        return store.table_counts(), store.sequence_positions()


def sxs(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "judge_app.cli", *args], capture_output=True,
                          text=True, timeout=300, env={**os.environ, **(env or {})})


def test_backup_then_restore_gives_every_table_and_the_same_evaluation(full_db: Path,
                                                                       tmp_path: Path) -> None:
    runner = CliRunner()
    out = tmp_path / "full.backup"
    backed = runner.invoke(main, ["backup", str(out), "--db", str(full_db)])
    assert backed.exit_code == 0, backed.output
    new = tmp_path / "restored.duckdb"
    restored = runner.invoke(main, ["restore", str(out), "--db", str(new)])
    assert restored.exit_code == 0, restored.output
    counts, sequences = snapshot(full_db)
    assert snapshot(new) == (counts, sequences)
    # the tables this test knows of are there, non-empty, and so is whatever was added since
    assert {"datasets", "runs", "run_results", "documents", "queries", "judgments",
            "expert_labels", "preferences", "preference_retractions", "grade_scale",
            "judgment_history", "sxs_migrations"} <= set(counts)
    assert counts["preference_retractions"] == 1 and counts["judgment_history"] == 1
    assert counts["expert_labels"] == 3 and counts["preferences"] == 3
    with duckdb.connect(str(new), read_only=True) as con:
        reasons = con.execute("SELECT reason FROM preferences ORDER BY preference_id").fetchall()
    assert reasons == [("reason 0",), ("reason 1",), ("reason 2",)]
    before = runner.invoke(main, [*EVALUATE, "--db", str(full_db)])
    after = runner.invoke(main, [*EVALUATE, "--db", str(new)])
    assert before.exit_code == 0 and before.output == after.output
    assert "full.backup" in backed.output and "restored.duckdb" in restored.output
    with Store(new, create=False) as store:  # ids continue where the original's stopped
        dataset = store.dataset("cranfield")
        vote(store, dataset, "9", "bm25", "title", "bm25", "left", "zoe")
        assert store.preferences(dataset)["preference_id"].max() == sequences[
            "preference_ids"]


def test_restore_refuses_to_overwrite_a_store(full_db: Path, tmp_path: Path) -> None:
    out = tmp_path / "b.backup"
    with Store(full_db, create=False) as store:
        backups.backup_store(store, out)
    existing = tmp_path / "existing.duckdb"
    existing.write_bytes(b"precious")
    result = CliRunner().invoke(main, ["restore", str(out), "--db", str(existing)])
    assert result.exit_code == 2
    assert result.output.strip() == (f"Error: {existing} exists: restore writes a new store "
                                     "only; pick another --db or move it away")
    assert existing.read_bytes() == b"precious"
    not_a_backup = tmp_path / "x.backup"
    not_a_backup.write_text("hello")
    result = CliRunner().invoke(main, ["restore", str(not_a_backup), "--db",
                                       str(tmp_path / "n.duckdb")])
    assert result.exit_code == 2 and "is not an sxs backup" in result.output
    assert not (tmp_path / "n.duckdb").exists()


def test_a_backup_never_replaces_the_store_itself(full_db: Path) -> None:
    before = full_db.stat().st_mtime_ns, full_db.stat().st_size
    result = CliRunner().invoke(main, ["backup", str(full_db), "--db", str(full_db)])
    assert result.exit_code == 2
    assert result.output.strip() == (f"Error: {full_db} is the store itself: name another "
                                     "file for the backup")
    assert (full_db.stat().st_mtime_ns, full_db.stat().st_size) == before


def test_a_backup_killed_half_way_leaves_the_previous_one_intact(full_db: Path,
                                                                 tmp_path: Path) -> None:
    db = tmp_path / "live.duckdb"
    db.write_bytes(full_db.read_bytes())
    out = tmp_path / "nightly.backup"
    assert sxs("backup", str(out), "--db", str(db)).returncode == 0
    previous = out.read_bytes()
    with Store(db, create=False) as store:
        store.add_expert_label(store.dataset("cranfield"), "3", "5", 3, "cy", "later")
    paused = tmp_path / "paused"
    child = subprocess.Popen([sys.executable, "-m", "judge_app.cli", "backup", str(out),
                              "--db", str(db)], env={**os.environ,
                                                     backups.PAUSE_ENV: str(paused)},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not paused.exists():
        assert child.poll() is None, "the backup ended before its pause"
        assert time.monotonic() < deadline, "the backup never reached its pause"
        threading.Event().wait(0.05)
    half = Path(paused.read_text())
    assert half.exists() and half.parent == out.parent and half.name != out.name
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    assert out.read_bytes() == previous  # untouched, and still a good backup
    restored = tmp_path / "again.duckdb"
    assert sxs("restore", str(out), "--db", str(restored)).returncode == 0
    counts, _ = snapshot(restored)
    assert counts["expert_labels"] == 3
    # the next backup completes, and clears the half-written file the killed one left
    assert sxs("backup", str(out), "--db", str(db)).returncode == 0
    assert not half.exists()
    assert [p.name for p in tmp_path.iterdir() if "nightly" in p.name] == ["nightly.backup"]
    newer = tmp_path / "newer.duckdb"
    assert sxs("restore", str(out), "--db", str(newer)).returncode == 0
    assert snapshot(newer)[0]["expert_labels"] == 4


def test_backup_of_a_served_store_says_how_to_get_one(full_db: Path, tmp_path: Path) -> None:
    with lock_path(full_db).open("a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        handle.write("4242")
        handle.flush()
        try:
            result = CliRunner().invoke(main, ["backup", str(tmp_path / "b"), "--db",
                                               str(full_db)])
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    lock_path(full_db).unlink()
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"Error: {full_db} is being served by sxs serve (pid 4242), which alone can read it: "
        "press Back up now on the app's Settings page, or serve it with "
        "--backup-every 15m --backup-dir DIR"]
    assert not (tmp_path / "b").exists()


def test_backups_into_a_folder_keep_the_last_n(full_db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "backups"
    with Store(full_db, create=False) as store:
        made = [backups.backup_into_folder(store, folder, keep=2).path for _ in range(4)]
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in made[-2:])
    assert len(set(made)) == 4


def test_the_schedule_backs_up_in_the_background_until_stopped(full_db: Path,
                                                               tmp_path: Path) -> None:
    folder = tmp_path / "every"
    with Store(full_db, create=False) as store:
        schedule = backups.BackupSchedule(store, folder, every=0.01, keep=3)
        schedule.start()
        try:
            assert schedule.wait_for(4, timeout=120), schedule.last_error
        finally:
            schedule.stop()
        assert not schedule.is_alive()
    assert len(list(folder.glob("*.duckdb"))) == 3


@pytest.mark.parametrize(("text", "seconds"), [("15m", 900), ("90s", 90), ("2h", 7200),
                                               ("1d", 86400), ("45", 45)])
def test_intervals(text: str, seconds: float) -> None:
    assert backups.parse_interval(text) == seconds


@pytest.mark.parametrize("text", ["", "m", "0m", "-5m", "5 weeks", "1.5.2h"])
def test_bad_intervals_are_one_line(text: str) -> None:
    with pytest.raises(SxsError, match="--backup-every"):
        backups.parse_interval(text)


def test_backups_taken_while_judges_write_are_consistent_snapshots(full_db: Path,
                                                                  tmp_path: Path) -> None:
    """The served case: the app's threads keep writing while its backup thread copies."""
    db = tmp_path / "busy.duckdb"
    db.write_bytes(full_db.read_bytes())
    done = threading.Event()
    errors: list[BaseException] = []
    with Store(db, create=False) as store:
        dataset = store.dataset("cranfield")

        def judge() -> None:
            n = 0
            try:
                while not done.is_set():
                    store.add_expert_label(dataset, "1", f"d{n}", n % 5, "busy", f"b{n}")
                    vote(store, dataset, str(n % 225 + 1), "bm25", "title", "bm25", "left",
                         "busy", reason=f"r{n}")
                    n += 1
            except BaseException as error:
                errors.append(error)

        writer = threading.Thread(target=judge)
        writer.start()
        try:
            reports = [backups.backup_store(store, tmp_path / f"b{i}.duckdb") for i in range(3)]
        finally:
            done.set()
            writer.join(60)
        assert not errors, errors
        live = store.table_counts()
    for i, report in enumerate(reports):
        restored = tmp_path / f"r{i}.duckdb"
        backups.restore_store(report.path, restored)
        counts, _ = snapshot(restored)
        assert counts == report.counts
        # each label was written just before its vote: a snapshot has as many, or one more
        assert counts["expert_labels"] - 3 - (counts["preferences"] - 3) in (0, 1)
        assert counts["expert_labels"] <= live["expert_labels"]
