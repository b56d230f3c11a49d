"""Backups: a whole store into one file, safely, by whoever has the store open.

* :func:`backup_store` writes ``<out>`` through a hidden temporary name in the same folder
  (``.<out>.<pid>.partial``): the copy (see :mod:`judge_app.store.backup`), fsync, atomic
  rename, fsync of the folder.  A process killed at any point leaves the previous ``<out>``
  as it was; the next backup removes the partial file a killed one left.  An existing
  ``<out>`` is replaced only when it is an earlier sxs backup (marked as one when written);
  any other file — a store, notes, a backup of another tool — is refused, left as it was.
* :func:`restore_store` writes a new store from a backup, never over an existing file.
* While ``sxs serve`` runs, only its app process may open the store, so the backups are taken
  there: :class:`BackupSchedule` (``sxs serve --backup-every 15m --backup-dir DIR --keep N``)
  and the Settings page's button call :func:`backup_into_folder`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from judge_app.addresses import describe_address
from judge_app.errors import SxsError
from judge_app.store import Store
from judge_app.store.backup import backup_counts, is_backup
from judge_app.store.model import store_address

PAUSE_ENV = "SXS_TEST_BACKUP_PAUSE"  # tests only: write the partial path there, then stop
# How ``sxs serve`` tells its app process to back up (seconds, folder, how many to keep).
EVERY_ENV, FOLDER_ENV, KEEP_ENV = "SXS_BACKUP_EVERY", "SXS_BACKUP_DIR", "SXS_BACKUP_KEEP"
BACKUP_SUFFIX = ".duckdb"
DEFAULT_KEEP = 10
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


@dataclass(frozen=True)
class BackupReport:
    path: Path | str  # a file, or a PostgreSQL address as messages show it
    counts: dict[str, int]
    seconds: float

    def __str__(self) -> str:
        rows = sum(self.counts.values())
        size = (f"{self.path.stat().st_size / 1e6:,.1f} MB, "
                if isinstance(self.path, Path) and self.path.is_file() else "")
        return (f"{self.path}: {len(self.counts)} tables, {rows:,} rows "
                f"({size}{self.seconds:.1f} s)")


def partial_name(out: Path, pid: int | None = None) -> Path:
    """Where a backup to ``out`` is written before it is renamed to ``out``."""
    return out.with_name(f".{out.name}.{pid if pid is not None else os.getpid()}.partial")


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _clear_partials(out: Path) -> None:
    """Remove the partial files that killed backups to ``out`` left (not a live one's)."""
    for stale in out.parent.glob(f".{out.name}.*.partial"):
        pid = stale.name.removeprefix(f".{out.name}.").removesuffix(".partial")
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        for path in (stale, stale.with_name(stale.name + ".wal")):
            path.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _pause_for_tests(partial: Path) -> None:
    """Where a test kills the backup: the copy is written, not yet renamed."""
    marker = os.environ.get(PAUSE_ENV)
    if marker:  # written under another name, then renamed: a test never reads it half-written
        staged = Path(f"{marker}.{os.getpid()}.tmp")
        staged.write_text(str(partial))
        os.replace(staged, marker)
        threading.Event().wait()


def backup_store(store: Store, out: str | Path) -> BackupReport:
    """Back the whole open store up into the file ``out``; an existing ``out`` is replaced
    atomically, and only if it is an earlier sxs backup (SxsError otherwise)."""
    start = time.perf_counter()
    address = store_address(out)
    if isinstance(address, str):
        raise SxsError(f"{describe_address(address)} is a database address: a backup is a "
                       "file; copy a store into a database with sxs copy")
    out = Path(out)
    if out.is_dir():
        raise SxsError(f"{out} is a folder: name the backup file")
    if isinstance(store.path, Path) and out.resolve() in (
            store.path.resolve(), Path(f"{store.path.resolve()}.wal")):
        raise SxsError(f"{out} is the store itself: name another file for the backup")
    if out.exists() and not is_backup(out):
        raise SxsError(f"{out} exists and is not an sxs backup: name a new file (a backup "
                       "replaces only an earlier backup)")
    out.parent.mkdir(parents=True, exist_ok=True)
    _clear_partials(out)
    partial = partial_name(out)
    for path in (partial, partial.with_name(partial.name + ".wal")):
        path.unlink(missing_ok=True)
    try:
        counts = store.copy_to(partial)
        if partial.with_name(partial.name + ".wal").exists():
            raise SxsError(f"the backup {partial} was left with a write-ahead log")
        _fsync(partial)
        _pause_for_tests(partial)
        os.replace(partial, out)
        _fsync(out.parent)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return BackupReport(out, counts, time.perf_counter() - start)


def restore_store(backup: str | Path, new: str | Path) -> BackupReport:
    """A new store at ``new`` from ``backup``; refuses to write over any existing file, and
    into a folder that does not exist (a mistyped path is refused, not created: restoring is
    a recovery step, and a store restored where nobody looks is lost again).

    The backup is checked (an sxs store), copied under a temporary name, opened once (an
    older schema is migrated), its rows counted against the backup's, then linked to ``new``
    — a link fails rather than replace a file that appeared meanwhile."""
    start = time.perf_counter()
    if not isinstance(store_address(new), Path):  # a database's address, not a file
        return _restore_into_database(Path(backup), str(new), start)
    backup, new = Path(backup), Path(new)
    if new.exists():
        raise SxsError(f"{new} exists: restore writes a new store only; pick another --db "
                       "or move it away")
    if not backup.is_file():
        raise SxsError(f"no backup at {backup}")
    folder = new.parent
    if not folder.is_dir():
        raise SxsError(f"no folder {folder} for {new.name}: restore creates no folders; "
                       "create it first or pick another --db" if not folder.exists() else
                       f"{folder} is not a folder: pick another --db")
    expected = backup_counts(backup)
    partial = partial_name(new)
    try:
        shutil.copyfile(backup, partial)
        with Store(partial) as store:
            store.clear_backup_mark()
            counts = store.table_counts()
        lost = sorted(t for t, n in expected.items() if counts.get(t) != n)
        if lost:
            raise SxsError(f"{backup}: table {lost[0]} restored with {counts.get(lost[0])} "
                           f"rows, not {expected[lost[0]]}")
        _fsync(partial)
        try:
            os.link(partial, new)
        except FileExistsError:
            raise SxsError(f"{new} exists: restore writes a new store only; pick another "
                           "--db or move it away") from None
        _fsync(new.parent)
    finally:
        for path in (partial, partial.with_name(partial.name + ".wal")):
            path.unlink(missing_ok=True)
    return BackupReport(new, counts, time.perf_counter() - start)


def _restore_into_database(backup: Path, address: str, start: float) -> BackupReport:
    """A backup restored into an empty PostgreSQL store at ``address`` (one transaction)."""
    if not backup.is_file():
        raise SxsError(f"no backup at {backup}")
    expected = backup_counts(backup)
    partial = partial_name(backup.with_name(backup.name + ".restore"))
    try:
        shutil.copyfile(backup, partial)
        with Store(partial) as source, Store(address) as target:
            counts = source.copy_rows_into(target)
        lost = sorted(t for t, n in expected.items() if counts.get(t) != n)
        if lost:
            raise SxsError(f"{backup}: table {lost[0]} restored with {counts.get(lost[0])} "
                           f"rows, not {expected[lost[0]]}")
    finally:
        for path in (partial, partial.with_name(partial.name + ".wal")):
            path.unlink(missing_ok=True)
    return BackupReport(describe_address(address), counts, time.perf_counter() - start)


def default_backup_folder(store_path: Path) -> Path:
    """``<store>.backups`` beside the store (a PostgreSQL store's: ``./sxs.backups``)."""
    if not isinstance(store_path, Path):
        return Path("sxs.backups")
    return store_path.with_name(store_path.name + ".backups")


def backup_folder(store_path: Path) -> Path:
    """Where the app's backups go: ``sxs serve --backup-dir``, else ``<store>.backups``."""
    folder = os.environ.get(FOLDER_ENV)
    return Path(folder) if folder else default_backup_folder(store_path)


def backup_keep() -> int:
    """How many backups the app keeps: ``sxs serve --keep``, else :data:`DEFAULT_KEEP`."""
    keep = os.environ.get(KEEP_ENV, "")
    return int(keep) if keep.isdigit() and int(keep) > 0 else DEFAULT_KEEP


def serve_env(every: float | None, folder: Path, keep: int) -> dict[str, str]:
    """The environment that tells the served app to back up every ``every`` seconds."""
    env = {FOLDER_ENV: str(folder.resolve()), KEEP_ENV: str(keep)}
    if every is not None:
        env[EVERY_ENV] = repr(every)
    return env


def schedule_from_env(store: Store) -> BackupSchedule | None:
    """Start the app's backup thread if ``sxs serve --backup-every`` asked for one."""
    every = os.environ.get(EVERY_ENV)
    if not every:
        return None
    schedule = BackupSchedule(store, backup_folder(store.path), float(every), backup_keep())
    schedule.start()
    return schedule


def backup_into_folder(store: Store, folder: str | Path, keep: int = DEFAULT_KEEP
                       ) -> BackupReport:
    """A new timestamped backup in ``folder`` (``sxs-<UTC time>.duckdb``); then only the
    ``keep`` newest backups there are kept."""
    if keep < 1:
        raise SxsError(f"--keep must be at least 1; got {keep}")
    folder = Path(folder)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    report = backup_store(store, folder / f"sxs-{stamp}{BACKUP_SUFFIX}")
    ours = sorted(folder.glob(f"sxs-*{BACKUP_SUFFIX}"))
    for old in ours[:-keep]:
        old.unlink(missing_ok=True)
    return report


def parse_interval(text: str) -> float:
    """Seconds in ``15m``, ``90s``, ``2h``, ``1d`` or a bare number of seconds."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smhd]?)\s*", text)
    seconds = float(found[1]) * _UNITS[found[2] or "s"] if found else 0.0
    if seconds <= 0:
        raise SxsError(f"--backup-every must be a positive time such as 15m, 90s, 2h or 1d; "
                       f"got {text!r}")
    return seconds


class BackupSchedule(threading.Thread):
    """A daemon thread backing ``store`` up into ``folder`` every ``every`` seconds (the first
    after one interval), keeping the ``keep`` newest.  A failed backup is remembered in
    ``last_error`` and tried again at the next turn; the store is never touched otherwise."""

    def __init__(self, store: Store, folder: str | Path, every: float,
                 keep: int = DEFAULT_KEEP) -> None:
        super().__init__(name="sxs-backups", daemon=True)
        self.store, self.folder, self.every, self.keep = store, Path(folder), every, keep
        self.taken = 0
        self.last: BackupReport | None = None
        self.last_error: str | None = None
        self._halt = threading.Event()
        self._changed = threading.Condition()

    def run(self) -> None:
        while not self._halt.wait(self.every):
            try:
                report = backup_into_folder(self.store, self.folder, self.keep)
                self.last, self.last_error = report, None
            except Exception as error:  # a server's backup thread reports, never dies
                self.last_error = f"{type(error).__name__}: {error}"
            with self._changed:
                self.taken += 1
                self._changed.notify_all()

    def wait_for(self, turns: int, timeout: float) -> bool:
        """Wait until ``turns`` backups were attempted; False if ``timeout`` ran out first."""
        with self._changed:
            return self._changed.wait_for(lambda: self.taken >= turns, timeout)

    def stop(self, timeout: float = 60) -> None:
        self._halt.set()
        with contextlib.suppress(RuntimeError):
            self.join(timeout)
