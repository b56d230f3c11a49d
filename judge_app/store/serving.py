"""Who is serving a store: ``sxs serve`` holds an exclusive lock on ``<store>.serve.lock`` for
as long as it runs, so a second ``sxs serve`` or an ``sxs import`` on the same file fails at
once with a clear message — even before the app has opened the store for its first visitor.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judge_app.errors import StoreLocked

SERVED_ENV = "SXS_SERVED_BY_PARENT"
OPEN_ENV = "SXS_OPEN"  # "1": sxs serve --open, people may also type a name (unverified)


def lock_path(store: Path) -> Path:
    return store.with_name(store.name + ".serve.lock")


def served_by(store: Path) -> str | None:
    """The pid of the ``sxs serve`` holding ``store`` (``?`` if unknown), or None if no one
    serves it — or we are its app."""
    if not isinstance(store, Path):  # a PostgreSQL store: many replicas, no file lock
        return None
    path = lock_path(store)
    if os.environ.get(SERVED_ENV) == str(store.resolve()) or not path.exists():
        return None
    with path.open("a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            return handle.read().strip() or "?"
        fcntl.flock(handle, fcntl.LOCK_UN)
    return None


def check_not_served(store: Path) -> None:
    """Raise StoreLocked if an ``sxs serve`` process holds the store (unless we are its app)."""
    holder = served_by(store)
    if holder is not None:
        raise StoreLocked(f"{store} is being served by sxs serve (pid {holder}); stop it, "
                          "or import through the app's admin page")


@contextmanager
def serving(store: Path) -> Iterator[None]:
    """Hold the serve lock of ``store`` for the duration (StoreLocked if someone else does);
    a PostgreSQL store takes none (its replicas share it)."""
    if not isinstance(store, Path):
        yield
        return
    check_not_served(store)
    path = lock_path(store)
    handle = path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise StoreLocked(f"{store} is being served by another sxs serve") from None
    previous = os.environ.get(SERVED_ENV)
    try:
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        os.environ[SERVED_ENV] = str(store.resolve())  # this process (and its app) may open it
        yield
    finally:
        if previous is None:
            os.environ.pop(SERVED_ENV, None)
        else:
            os.environ[SERVED_ENV] = previous
        fcntl.flock(handle, fcntl.LOCK_UN)
        handle.close()
