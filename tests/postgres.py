"""PostgreSQL for the tests: one cluster per session, a fresh database per test.

The cluster is ``$SXS_TEST_POSTGRES`` (an address of its maintenance database, set by
``.ci/run``) or, when that is unset, a throw-away cluster this module starts in a temporary
folder (``initdb``/``pg_ctl``: as ``nobody`` when running as root, on 127.0.0.1, a free port,
trust authentication) and stops at the end of the session.  When neither is possible the
PostgreSQL tests are skipped — or fail when ``$CI`` is set, so CI never passes by skipping.

Each test gets ``CREATE DATABASE … TEMPLATE`` of a database migrated once per session, so a
fresh store costs a file copy, not eight migrations.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ENV = "SXS_TEST_POSTGRES"
TEMPLATE = "sxs_test_template"


def _bin(tool: str) -> str | None:
    found = shutil.which(tool)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{tool}"))
    return candidates[-1] if candidates else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def throwaway_cluster() -> Iterator[str]:
    """Start a PostgreSQL cluster in a temporary folder; yields its maintenance address."""
    initdb, pg_ctl = _bin("initdb"), _bin("pg_ctl")
    if initdb is None or pg_ctl is None:
        raise RuntimeError("PostgreSQL's initdb/pg_ctl are not installed")
    folder = Path(tempfile.mkdtemp(prefix="sxs-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses root
        as_user = ["runuser", "-u", "nobody", "--"]
        shutil.chown(folder, "nobody")
    data, port = folder / "data", _free_port()
    try:
        subprocess.run([*as_user, initdb, "-D", str(data), "-A", "trust", "-U", "postgres",
                        "-E", "UTF8", "--no-sync"], check=True, capture_output=True)
        options = (f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off "
                   "-c synchronous_commit=off -c full_page_writes=off -c max_connections=200")
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-l", str(folder / "log"), "-w",
                        "-o", options, "start"], check=True, capture_output=True)
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_user, pg_ctl, "-D", str(data), "-m", "immediate", "stop"],
                       capture_output=True, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def database_address(cluster: str, name: str) -> str:
    """The address of database ``name`` on the cluster of maintenance address ``cluster``."""
    return cluster.rsplit("/", 1)[0] + "/" + name


class Cluster:
    """A cluster the tests make databases on."""

    def __init__(self, address: str) -> None:
        import psycopg

        self.address = address
        self._psycopg = psycopg
        self._template_ready = False

    def _admin(self, sql: str) -> None:
        with self._psycopg.connect(self.address, autocommit=True) as conn:
            conn.execute(sql)

    def _template(self) -> None:
        if self._template_ready:
            return
        from judge_app.store import Store
        from judge_app.store.postgres import PostgresBackend

        name = f"{TEMPLATE}_{os.getpid()}"
        self._admin(f'DROP DATABASE IF EXISTS "{name}"')
        self._admin(f'CREATE DATABASE "{name}"')
        address = database_address(self.address, name)
        Store(address).close()
        PostgresBackend.close_all(address)
        self._template_name = name
        self._template_ready = True

    def fresh(self) -> str:
        """A new database holding a migrated, empty store; its address."""
        self._template()
        name = f"sxs_test_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self._template_name}"')
        return database_address(self.address, name)

    def empty(self) -> str:
        """A new database with nothing in it (for migration tests); its address."""
        name = f"sxs_test_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}"')
        return database_address(self.address, name)

    def drop(self, address: str) -> None:
        from judge_app.store.postgres import PostgresBackend

        PostgresBackend.close_all(address)
        name = address.rsplit("/", 1)[1]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def close(self) -> None:
        if self._template_ready:
            self._admin(f'DROP DATABASE IF EXISTS "{self._template_name}" WITH (FORCE)')


@contextmanager
def session_cluster() -> Iterator[Cluster | None]:
    """The session's cluster, or None (tests skip) when PostgreSQL is unavailable."""
    try:
        import psycopg  # noqa: F401
    except ImportError:
        yield _unavailable("psycopg is not installed (pip install -e '.[test]')")
        return
    given = os.environ.get(ENV)
    if given:
        cluster = Cluster(given)
        try:
            yield cluster
        finally:
            cluster.close()
        return
    try:
        started = throwaway_cluster()
        address = started.__enter__()
    except (RuntimeError, OSError, subprocess.CalledProcessError) as error:
        yield _unavailable(f"cannot start a PostgreSQL cluster: {error}")
        return
    cluster = Cluster(address)
    try:
        yield cluster
    finally:
        started.__exit__(None, None, None)


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}")
    return None


def require(cluster: Cluster | None) -> Cluster:
    if cluster is None:
        pytest.skip("PostgreSQL is not available here (set SXS_TEST_POSTGRES)")
    return cluster
