"""While ``sxs serve`` runs, the serving side takes the backups: one at start, then the app
process every interval and on the Settings page's button; ``sxs backup`` says so."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from streamlit.testing.v1 import AppTest

from judge_app.services import backups
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.reliability.test_lock_and_crash import free_port, healthy
from tests.signin import signed_in

APP = str(Path(__file__).resolve().parents[2] / "judge_app" / "ui" / "app.py")


def demo(path: Path) -> Path:
    with Store(path) as store:
        build_demo_store(store)
    return path


def test_a_served_store_is_backed_up_at_start_and_refuses_sxs_backup(tmp_path: Path) -> None:
    db = demo(tmp_path / "served.duckdb")
    folder = tmp_path / "bak"
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "serve", "--db", str(db), "--port", str(port),
         "--backup-every", "1h", "--backup-dir", str(folder), "--keep", "2"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 90
        while not healthy(f"http://127.0.0.1:{port}"):
            assert server.poll() is None and time.monotonic() < deadline, "no server"
            threading.Event().wait(0.2)
        taken = sorted(folder.glob("sxs-*.duckdb"))
        assert len(taken) == 1
        refused = subprocess.run([sys.executable, "-m", "judge_app.cli", "backup",
                                  str(tmp_path / "b.duckdb"), "--db", str(db)],
                                 capture_output=True, text=True, timeout=120)
        assert refused.returncode == 2
        assert refused.stderr.startswith(f"Error: {db} is being served by sxs serve (pid ")
        assert refused.stderr.strip().endswith(
            "press Back up now on the app's Settings page, or serve it with "
            "--backup-every 15m --backup-dir DIR")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    restored = tmp_path / "restored.duckdb"
    backups.restore_store(taken[0], restored)
    with Store(db) as original, Store(restored) as copy:
        assert copy.table_counts() == original.table_counts()


def test_the_settings_page_backs_up_now_and_the_app_on_schedule(tmp_path: Path,
                                                               monkeypatch) -> None:
    db = demo(tmp_path / "app.duckdb")
    folder = tmp_path / "app-backups"
    monkeypatch.setenv("SXS_DB", str(db))
    monkeypatch.setenv("SXS_ADMINS", "admin")
    monkeypatch.setenv(backups.FOLDER_ENV, str(folder))
    monkeypatch.setenv(backups.KEEP_ENV, "3")
    monkeypatch.setenv(backups.EVERY_ENV, "0.05")
    at = signed_in(AppTest.from_file(APP, default_timeout=60), db, "admin", admin=True)
    at.run()
    at.switch_page("app_pages/settings.py").run()
    assert not at.exception, at.exception
    [button] = [b for b in at.button if b.label == "Back up now"]
    button.click().run()
    assert not at.exception, at.exception
    assert any("Backed up" in s.value for s in at.success)
    from judge_app.ui.resources import backup_schedule
    schedule = backup_schedule(str(db))
    assert schedule is not None
    try:
        assert schedule.wait_for(3, timeout=120), schedule.last_error
        assert schedule.last_error is None
    finally:
        schedule.stop()
    assert len(list(folder.glob("sxs-*.duckdb"))) == 3
