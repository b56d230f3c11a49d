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


# every table emptied but the migrations', every sequence back at its start
_RESET = """
DO $reset$ BEGIN
  EXECUTE (SELECT 'TRUNCATE ' || string_agg(quote_ident(tablename), ', ') || ' CASCADE'
           FROM pg_tables WHERE schemaname = current_schema()
             AND tablename <> 'sxs_migrations');
  EXECUTE coalesce((SELECT string_agg('ALTER SEQUENCE ' || quote_ident(sequencename)
                                      || ' RESTART', '; ')
                    FROM pg_sequences WHERE schemaname = current_schema()), 'SELECT 1');
END $reset$;
"""


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
        self._free: list[str] = []
        self._made: list[str] = []
        self._migrations: list[str] = []
        self._tables = 0
        self._templates: dict[str, str] = {}

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
        with Store(address) as store:
            self._migrations = sorted(store.migrations())
            self._tables = len(store.table_names())
        PostgresBackend.close_all(address)
        self._template_name = name
        self._template_ready = True

    def fresh(self) -> str:
        """A database holding a migrated, empty store; its address.  Databases are reused:
        one given back (:meth:`drop`) is emptied (TRUNCATE, sequences restarted), which is
        far quicker than creating one."""
        self._template()
        while self._free:
            address = self._free.pop()
            try:
                with self._psycopg.connect(address, autocommit=True) as conn:
                    conn.execute(_RESET)
                return address
            except self._psycopg.Error:
                self._discard(address)
        name = f"sxs_test_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{self._template_name}" '
                    "STRATEGY FILE_COPY")
        address = database_address(self.address, name)
        self._made.append(address)
        return address

    def copy_of(self, key: str, build) -> str:
        """A new database copied from one ``build(store)`` filled once per session."""
        from judge_app.store import Store
        from judge_app.store.postgres import PostgresBackend

        template = self._templates.get(key)
        if template is None:
            source = self.fresh()
            with Store(source) as store:
                build(store)
            PostgresBackend.close_all(source)
            self._made.remove(source)
            self._templates[key] = template = source.rsplit("/", 1)[1]
        name = f"sxs_test_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}" TEMPLATE "{template}" STRATEGY FILE_COPY')
        address = database_address(self.address, name)
        self._made.append(address)
        return address

    def empty(self) -> str:
        """A new database with nothing in it (for migration tests); its address."""
        name = f"sxs_test_{uuid.uuid4().hex[:12]}"
        self._admin(f'CREATE DATABASE "{name}"')
        address = database_address(self.address, name)
        self._made.append(address)
        return address

    def drop(self, address: str) -> None:
        """Give a database back: reused by the next test if its schema is the template's.
        This process's pools on it close first (the test may have reached it through another
        address, e.g. with a password written in)."""
        from judge_app.store.postgres import PostgresBackend

        PostgresBackend.close_all(address)
        with self._psycopg.connect(address, autocommit=True) as conn:
            names = [r[0] for r in conn.execute(
                "SELECT name FROM sxs_migrations ORDER BY name").fetchall()] if conn.execute(
                "SELECT to_regclass('sxs_migrations')").fetchone()[0] else []
            tables = conn.execute("SELECT count(*) FROM pg_tables "
                                  "WHERE schemaname = current_schema()").fetchone()[0]
        if names == self._migrations and tables == self._tables:
            self._free.append(address)
        else:
            self._discard(address)

    def _discard(self, address: str) -> None:
        from judge_app.store.postgres import PostgresBackend

        PostgresBackend.close_all(address)
        name = address.rsplit("/", 1)[1]
        self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if address in self._made:
            self._made.remove(address)

    def close(self) -> None:
        from judge_app.store.postgres import PostgresBackend

        PostgresBackend.close_all()
        for address in list(self._made):
            self._discard(address)
        for name in self._templates.values():
            self._admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
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
