"""Migrations are frozen text, and every store ends with the same schema.

* each migration's SQL, on each backend, is pinned by its digest: a shipped migration is never
  edited (a change fails here; a new migration adds its digest);
* the migration modules import no vocabulary and nothing else whose text may change later, and
  build their SQL from their own literals;
* a store migrated by any earlier sxs — every prefix of today's list, the sets ``main`` held
  while branches merged, and the texts some migrations had before they were edited in place —
  upgrades to the schema a fresh store has (tables, columns and types, constraints, views,
  indexes, sequences, macros and functions), on DuckDB and PostgreSQL;
* the schema speaks today's vocabularies (label policies, witnesses, label bases): a new one
  fails here until a migration redefines the views.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pandas as pd
import pytest

from judge_app.policies import LABEL_BASES, LabelPolicy, Witness, witness_of
from judge_app.store import Store, migrations
from judge_app.store.migrations import (
    MIGRATIONS,
    Migration,
    apply_migrations,
    frozen,
    m0001_initial,
    m0003_label_and_vote_views,
    m0011_judging_slots,
)
from metrics import ESCI
from tests.postgres import require

BACKENDS = ("duckdb", "postgresql")
FOLDER = Path(migrations.__file__).parent
NAMES = [m.name for m in MIGRATIONS]

# sha256 of each migration's SQL with its whitespace collapsed, per backend
PINNED = {
    "0001_initial": {
        "duckdb": "7dd0e39a07e6735f4d0a43f80799c70c15fe9de85d98a1bcf06610dcb737e863",
        "postgresql": "ca380450b8a34861bfd2245c7a8f5b5a8ea292441ca142788553cda24ef79199"},
    "0002_preference_retractions": {
        "duckdb": "0246b06bb74b4775fe2dd754c45eca8ca52bc10e532bddbc321f70365dfa0695",
        "postgresql": "0246b06bb74b4775fe2dd754c45eca8ca52bc10e532bddbc321f70365dfa0695"},
    "0003_label_and_vote_views": {
        "duckdb": "f0313f434037ab4394aaec7fd0867b180822f66b9c83f28cfde044126b4c0a00",
        "postgresql": "c362a55ebb4c2e4223a50576072f1e01e15b6023b1e301c0a54c668ebbd5b3b8"},
    "0005_judges_and_votes": {
        "duckdb": "4aec8f659f609a1c5a87adec714ad3ba14f2888ca77077647e9c860a1e2951d1",
        "postgresql": "789a1f1b503a2c66853343489fe30f0884682d4e9a1ae256530504b36114e4b1"},
    "0006_clicks": {
        "duckdb": "d38a08a3eb2442bfa4e0887bfb40a6896e2c498c132b00bb226aed622d5dddb1",
        "postgresql": "d38a08a3eb2442bfa4e0887bfb40a6896e2c498c132b00bb226aed622d5dddb1"},
    "0007_llm": {
        "duckdb": "21ef24228e2c6fc29ce32eb3973e01b68d88432d142877fc6e16f79082f217c3",
        "postgresql": "38326171f823c0d7c8022c01ac9812401206facf5ac609efd769b025b8f31e78"},
    "0008_judgment_history": {
        "duckdb": "babefe33a40d1c42330d3f4de327681f0282e0201b6148c3cffd5738d2d092e4",
        "postgresql": "babefe33a40d1c42330d3f4de327681f0282e0201b6148c3cffd5738d2d092e4"},
    "0011_judging_slots": {
        "duckdb": "25a7eb1635619f026a76144dd8e7279729aca258f34289ac6f845ba9633480d1",
        "postgresql": "fbbe9eb046c21a4a23502d54a4085047e470675b021e58efb0584ae6303cc49e"},
    "0012_judgments_without_foreign_key": {
        "duckdb": "a154295bc052bd0a525755939a1160e3924d85447d26ec1d7c957c2c298db9c5",
        "postgresql": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    "0013_label_views_restated": {
        "duckdb": "0f997432fb5e46106a62cb671697f729d7775185f612985c21982c8a2f8cbfaa",
        "postgresql": "0ad3d46ea2229baf4c51edce72c611be518b5f8638bf6a47cebde3f854a9c747"},
    "0014_view_queue_rule": {
        "duckdb": "bce73bd3467179363bcc3d6688165b90b9a0996e021f277c94d1e3facc4c3e20",
        "postgresql": "bce73bd3467179363bcc3d6688165b90b9a0996e021f277c94d1e3facc4c3e20"},
    "0015_gold_items": {
        "duckdb": "5d700d27bee08f704c880b904afb9784e56a81e1851250c66efa271f4d52d3c4",
        "postgresql": "5d700d27bee08f704c880b904afb9784e56a81e1851250c66efa271f4d52d3c4"},
    "0016_judge_exclusions": {
        "duckdb": "1ed699b3b588253a022c261f124dae9435ad6ed09b7dfffe4585cc4f9658f5ae",
        "postgresql": "636e65fb39adf615404df75e71ed70ae7fe18aaaef0dde48d0939731d9cab315"},
    "0017_dawid_skene_labels": {
        "duckdb": "b10fe39004b9bf5dff6a5363533b6d6a6c740bd0839c9e099bd8555713ea9713",
        "postgresql": "531f5a3e625fbce8d6a4398bd33fbcbf63e6d318744c95337c6317a9373dda2a"},
    "0018_judging_policy": {
        "duckdb": "d2e89f100d1f3dea6ec0d1d0bf119c179aab91d48a04606822ad879626ced514",
        "postgresql": "d2e89f100d1f3dea6ec0d1d0bf119c179aab91d48a04606822ad879626ced514"},
    "0019_round_stop_when_decided": {
        "duckdb": "16409e9fcda77975c932c2de9d915c00d8cc8b1dc2438881b1dc1aa90c045766",
        "postgresql": "16409e9fcda77975c932c2de9d915c00d8cc8b1dc2438881b1dc1aa90c045766"},
    "0020_gold_queue_and_adjudications": {
        "duckdb": "e7afaf99974d0eca2ae93ebcbc4875c279301ffeeb0e4f6b14e1208bfa0e928f",
        "postgresql": "6e835a429099ce2062d167767d6bee8f07699b0d2c68ea39640663361368e45e"},
    "0021_round_queue_policy": {
        "duckdb": "c7c6f208988e943e57fd316872fd330de4eb48e3c0b719f0ecb49127a5661f59",
        "postgresql": "c7c6f208988e943e57fd316872fd330de4eb48e3c0b719f0ecb49127a5661f59"},
    "0022_sign_in_lifetime": {
        "duckdb": "9b1db38798e88131aaad991adf5f419722678cfeb85cf362520cc13afce35b99",
        "postgresql": "9b1db38798e88131aaad991adf5f419722678cfeb85cf362520cc13afce35b99"},
    "0023_round_backfill_policy": {
        "duckdb": "46f7249e0e9c85a0564becfdf2c57201c2f27769d9840c88fdf9718803288431",
        "postgresql": "46f7249e0e9c85a0564becfdf2c57201c2f27769d9840c88fdf9718803288431"},
}


# -- reaching a store's database without the store --------------------------------------------

class _PgConnection:
    """What the migration runner needs of a PostgreSQL connection: the migrations' texts run
    as written (the store cursor's rewriting of DuckDB SQL is not applied, so a text that
    needs it fails here); only the runner's own statement takes a value (``?``)."""

    dialect = SimpleNamespace(name="postgresql")

    def __init__(self, conn) -> None:
        self._conn = conn

    def execute(self, sql: str, params: list | None = None):
        return self._conn.execute(sql.replace("?", "%s") if params else sql, params)


@contextmanager
def connection(address: Path | str, read_only: bool = False) -> Iterator:
    if isinstance(address, Path):
        con = duckdb.connect(str(address), read_only=read_only)
        try:
            yield con
        finally:
            con.close()
    else:
        import psycopg

        with psycopg.connect(address, autocommit=True) as conn:
            yield _PgConnection(conn)


def rows(address: Path | str, sql: str) -> list[tuple]:
    with connection(address, read_only=True) as con:
        return [tuple(r) for r in con.execute(sql).fetchall()]


def new_address(backend: str, request, tmp_path: Path) -> Path | str:
    """An empty database on ``backend`` (a PostgreSQL one is dropped when the session ends)."""
    if backend == "duckdb":
        tmp_path.mkdir(parents=True, exist_ok=True)
        return tmp_path / "s.duckdb"
    return require(request.getfixturevalue("postgres_cluster")).empty()


def migrate(address: Path | str, applied: list[Migration], monkeypatch) -> None:
    """Run the migration runner over ``applied`` only, as an sxs that knew no more did."""
    monkeypatch.setattr(migrations, "MIGRATIONS", applied)
    try:
        with connection(address) as con:
            apply_migrations(con, str(address))
    finally:
        monkeypatch.setattr(migrations, "MIGRATIONS", MIGRATIONS)


def upgrade(address: Path | str) -> None:
    """Open the store with today's sxs (which applies the rest) and let it go."""
    Store(address).close()
    if not isinstance(address, Path):
        from judge_app.store.postgres import PostgresBackend

        PostgresBackend.close_all(address)


# -- the schema, read from the catalog ----------------------------------------------------------

DUCKDB_CATALOG = {
    "tables": """SELECT table_name, sql FROM duckdb_tables()
                 WHERE database_name = current_database() AND NOT temporary""",
    "columns": """SELECT table_name, column_index, column_name, data_type, is_nullable,
                         column_default
                  FROM duckdb_columns() WHERE database_name = current_database()""",
    "constraints": """SELECT table_name, constraint_type, constraint_text
                      FROM duckdb_constraints() WHERE database_name = current_database()""",
    "views": """SELECT view_name, sql FROM duckdb_views()
                WHERE database_name = current_database() AND NOT internal AND NOT temporary""",
    "indexes": """SELECT table_name, index_name, sql FROM duckdb_indexes()
                  WHERE database_name = current_database()""",
    "sequences": """SELECT sequence_name, start_value, min_value, max_value, increment_by, cycle
                    FROM duckdb_sequences() WHERE database_name = current_database()""",
    "macros": """SELECT function_name, function_type, parameters, macro_definition
                 FROM duckdb_functions()
                 WHERE database_name = current_database() AND NOT internal""",
}
POSTGRES_CATALOG = {
    "tables": """SELECT table_name::text, table_type::text FROM information_schema.tables
                 WHERE table_schema = current_schema()""",
    "columns": """SELECT table_name::text, column_name::text, data_type::text,
                         is_nullable::text, column_default::text,
                         row_number() OVER (PARTITION BY table_name ORDER BY ordinal_position)
                  FROM information_schema.columns WHERE table_schema = current_schema()""",
    "constraints": """SELECT conrelid::regclass::text, conname::text, pg_get_constraintdef(oid)
                      FROM pg_constraint
                      WHERE connamespace = current_schema()::regnamespace""",
    "views": """SELECT viewname::text, definition FROM pg_views
                WHERE schemaname = current_schema()""",
    "indexes": """SELECT tablename::text, indexname::text, indexdef FROM pg_indexes
                  WHERE schemaname = current_schema()""",
    "sequences": """SELECT sequencename::text, data_type::text, start_value, min_value,
                           max_value, increment_by, cycle
                    FROM pg_sequences WHERE schemaname = current_schema()""",
    "functions": """SELECT proname::text, pg_get_function_identity_arguments(oid),
                           pg_get_functiondef(oid)
                    FROM pg_proc WHERE pronamespace = current_schema()::regnamespace""",
}


def _normal(value: object) -> object:
    return " ".join(value.split()) if isinstance(value, str) else repr(value)


def schema(address: Path | str) -> dict[str, list[tuple]]:
    """Everything a migration defines, per kind, in a stable order; texts with their
    whitespace collapsed."""
    catalog = DUCKDB_CATALOG if isinstance(address, Path) else POSTGRES_CATALOG
    with connection(address, read_only=True) as con:
        return {kind: sorted(tuple(_normal(v) for v in row)
                             for row in con.execute(sql).fetchall())
                for kind, sql in catalog.items()}


@pytest.fixture(scope="module")
def fresh_schemas(request, tmp_path_factory) -> Iterator[dict]:
    """The schema of a new store, per backend, read once."""
    found: dict[str, dict] = {}

    def of(backend: str) -> dict:
        if backend not in found:
            if backend == "duckdb":
                address = tmp_path_factory.mktemp("fresh") / "fresh.duckdb"
                Store(address).close()
                found[backend] = schema(address)
            else:
                cluster = require(request.getfixturevalue("postgres_cluster"))
                address = cluster.fresh()
                found[backend] = schema(address)
                cluster.drop(address)
        return found[backend]

    yield of


# -- every earlier store upgrades to the fresh schema -----------------------------------------

# the sets of migrations main held while branches merged: 0006, 0007 and 0008 came in before
# 0005, registered before them (23fc59e), so those stores took 0005 after 0008
MERGED = [
    ["0001_initial", "0002_preference_retractions", "0003_label_and_vote_views",
     "0006_clicks"],
    ["0001_initial", "0002_preference_retractions", "0003_label_and_vote_views",
     "0006_clicks", "0007_llm"],
    ["0001_initial", "0002_preference_retractions", "0003_label_and_vote_views",
     "0006_clicks", "0007_llm", "0008_judgment_history"],
]
# 0019 and 0022 came in before 0018 (judging policy), registered before them: those stores
# take 0018 after 0022
_TO_0017 = [n for n in NAMES if n < "0018"]
MERGED += [[*_TO_0017, "0019_round_stop_when_decided"],
           [*_TO_0017, "0019_round_stop_when_decided", "0022_sign_in_lifetime"]]
# 0022 came in before 0021 (the round's queue policy), registered after it: those stores take
# 0021 after 0022
MERGED += [[n for n in NAMES if n != "0021_round_queue_policy" and n < "0023"]]
APPLIED = [NAMES[:k] for k in range(1, len(NAMES) + 1)] + MERGED


@pytest.mark.parametrize("applied", APPLIED, ids=lambda names: "+".join(n[:4] for n in names))
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_store_upgraded_from_an_earlier_schema_equals_a_fresh_one(
        backend, applied, fresh_schemas, request, tmp_path, monkeypatch) -> None:
    address = new_address(backend, request, tmp_path)
    migrate(address, [m for m in MIGRATIONS if m.name in applied], monkeypatch)
    upgrade(address)
    assert schema(address) == fresh_schemas(backend)


# Texts some migrations ran before they were edited in place (from git history), each with the
# names a store holding it had applied.
JUDGMENTS_WITHOUT_KEY = """
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );  -- one row per (dataset, query, doc): kept by Store.put_judgments"""
# 186fe87: judgments keyed by (dataset, query, doc)
JUDGMENTS_WITH_KEY = """
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (dataset_id, query_id, doc_id)
        );"""
# 0f5f6ef: the label views before witnesses and label bases
VIEWS_BEFORE_WITNESSES = """
        CREATE VIEW current_expert_labels AS
            SELECT dataset_id, query_id, doc_id, judge, grade, label_id, created_at, note
            FROM expert_labels
            QUALIFY row_number() OVER (PARTITION BY dataset_id, judge, query_id, doc_id
                                       ORDER BY label_id DESC) = 1;
        CREATE VIEW expert_consensus AS
            SELECT dataset_id, query_id, doc_id,
                   quantile_disc(grade, 0.5) AS median_grade,
                   arg_max(grade, label_id) AS latest_grade,
                   count(*) AS judges
            FROM current_expert_labels GROUP BY dataset_id, query_id, doc_id;
        CREATE VIEW label_sources AS
            SELECT dataset_id, query_id, doc_id, d.grade AS dataset_grade,
                   e.median_grade, e.latest_grade, coalesce(e.judges, 0) AS judges
            FROM judgments d FULL OUTER JOIN expert_consensus e
                USING (dataset_id, query_id, doc_id);
        CREATE VIEW filled_labels AS
            SELECT dataset_id, 'median' AS policy, query_id, doc_id,
                   coalesce(median_grade, dataset_grade) AS grade,
                   CASE WHEN median_grade IS NULL THEN 'dataset'
                        WHEN dataset_grade IS NULL THEN 'expert'
                        ELSE 'expert_override' END AS source, judges
            FROM label_sources
            UNION ALL
            SELECT dataset_id, 'latest' AS policy, query_id, doc_id,
                   coalesce(latest_grade, dataset_grade) AS grade,
                   CASE WHEN latest_grade IS NULL THEN 'dataset'
                        WHEN dataset_grade IS NULL THEN 'expert'
                        ELSE 'expert_override' END AS source, judges
            FROM label_sources
            UNION ALL
            SELECT dataset_id, 'dataset_first' AS policy, query_id, doc_id,
                   coalesce(dataset_grade, median_grade) AS grade,
                   CASE WHEN dataset_grade IS NULL THEN 'expert' ELSE 'dataset' END AS source,
                   judges
            FROM label_sources;
        CREATE VIEW current_votes AS
            SELECT p.* FROM preferences p
            WHERE NOT EXISTS (SELECT 1 FROM preference_retractions r
                              WHERE r.preference_id = p.preference_id);
        CREATE VIEW ranked_labels AS
            SELECT r.run_id, u.dataset_id, r.query_id, r.doc_id, r.rank, l.dataset_grade,
                   l.median_grade, coalesce(l.judges, 0) AS judges,
                   coalesce(l.dataset_grade >= 0, false) OR coalesce(l.judges, 0) > 0
                       AS labelled
            FROM run_results r JOIN runs u USING (run_id)
            LEFT JOIN label_sources l
                ON l.dataset_id = u.dataset_id AND l.query_id = r.query_id
                   AND l.doc_id = r.doc_id;
"""


def _replaced(text: str, old: str, new: str) -> str:
    assert old in text, "the historical text no longer fits today's: rebuild it from git"
    return text.replace(old, new)


def _postgres_before_bddd398() -> str:
    """0003 on PostgreSQL on branch h15pg before bddd398 and b87998e: ``label_sources`` and
    ``ranked_labels`` as DuckDB's."""
    views = m0003_label_and_vote_views
    text = views.SQL["postgresql"]
    for body in (views.LABEL_SOURCES, views.RANKED_LABELS):
        text = _replaced(text, body["postgresql"], body["duckdb"])
    return text


def _history(backend: str, variant: str) -> list[Migration]:
    """The migrations a store of ``variant`` took, today's but where history differs."""
    if variant == "186fe87":  # judgments with a primary key; 0012 rebuilds it without
        old = {"0001_initial": _replaced(m0001_initial.SQL[backend], JUDGMENTS_WITHOUT_KEY,
                                         JUDGMENTS_WITH_KEY)}
        names = NAMES[:1]
    elif variant == "0f5f6ef":
        old = {"0003_label_and_vote_views": VIEWS_BEFORE_WITNESSES}
        names = NAMES[:3]
    else:  # h15pg, PostgreSQL only: slower views, and 0011 without its lookup indexes
        old = {"0003_label_and_vote_views": _postgres_before_bddd398(),
               "0011_judging_slots": m0011_judging_slots.TABLE}
        names = NAMES[:NAMES.index("0011_judging_slots") + 1]
    return [frozen(m.name, {backend: old[m.name]}) if m.name in old else m
            for m in MIGRATIONS if m.name in names]


@pytest.mark.parametrize("backend, variant", [("duckdb", "186fe87"), ("duckdb", "0f5f6ef"),
                                              ("postgresql", "h15pg")])
def test_a_store_given_an_older_text_of_a_migration_upgrades_to_the_fresh_schema(
        backend, variant, fresh_schemas, request, tmp_path, monkeypatch) -> None:
    """(PostgreSQL stores came after 186fe87 and 0f5f6ef.)"""
    history = _history(backend, variant)
    reference = new_address(backend, request, tmp_path / "r")
    address = new_address(backend, request, tmp_path)
    migrate(reference, [m for m in MIGRATIONS if m.name in {h.name for h in history}],
            monkeypatch)
    migrate(address, history, monkeypatch)
    assert schema(address) != schema(reference)  # the old text did leave a different schema
    upgrade(address)
    assert schema(address) == fresh_schemas(backend)


# -- frozen text ----------------------------------------------------------------------------

class _Recorder:
    """A connection that keeps what a migration runs."""

    def __init__(self, backend: str) -> None:
        self.dialect = SimpleNamespace(name=backend)
        self.sql: list[str] = []

    def execute(self, sql: str, params: list | None = None) -> _Recorder:
        self.sql.append(sql)
        return self


def digest(migration: Migration, backend: str) -> str:
    recorder = _Recorder(backend)
    migration.apply(recorder)
    return hashlib.sha256(" ".join(" ".join(recorder.sql).split()).encode()).hexdigest()


def test_no_migration_changes_its_text() -> None:
    got = {m.name: {backend: digest(m, backend) for backend in BACKENDS} for m in MIGRATIONS}
    gone = [name for name in PINNED if name not in got]
    assert not gone, f"{gone}: a shipped migration is never removed (stores have it applied)"
    changed = [name for name in PINNED if got[name] != PINNED[name]]
    assert not changed, (f"{changed}: a shipped migration's SQL is never edited (stores "
                         "migrated before keep the old text): add a new migration instead")
    new = {name: got[name] for name in got if name not in PINNED}
    assert not new, f"pin the new migrations' digests in PINNED: {new}"


def _imports(tree: ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add(node.module or "")
    return found


MODULES = sorted(FOLDER.glob("m[0-9][0-9][0-9][0-9]_*.py"))


def test_every_migration_module_is_registered_in_order() -> None:
    assert [p.stem[1:] for p in MODULES] == NAMES


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.stem)
def test_a_migration_reads_nothing_but_its_own_text_and_older_migrations(path: Path) -> None:
    """No vocabulary, dialect piece or other live value: a migration imports only older
    migrations, and calls nothing but ``str.join``, ``str.replace`` and ``dict.items`` over
    its literals (no ``__import__``, ``getattr``, ``open``, …)."""
    tree = ast.parse(path.read_text())
    older = {f"judge_app.store.migrations.{p.stem}" for p in MODULES if p.stem < path.stem}
    assert _imports(tree) <= {"__future__"} | older
    calls = {ast.unparse(node.func) if not isinstance(node.func, ast.Attribute)
             else node.func.attr for node in ast.walk(tree) if isinstance(node, ast.Call)}
    assert calls <= {"join", "replace", "items"}


def test_the_migrations_package_imports_no_vocabulary() -> None:
    tree = ast.parse((FOLDER / "__init__.py").read_text())
    assert _imports(tree) <= {"__future__", "collections.abc", "dataclasses", "importlib",
                              "duckdb", "judge_app.errors"}


def test_postgresql_texts_need_no_rewriting_by_the_store_cursor() -> None:
    """The store's PostgreSQL cursor rewrites DuckDB SQL; the migrations' texts are already
    PostgreSQL's, so it leaves them as they are."""
    from judge_app.store.dialect import POSTGRES

    for m in MIGRATIONS:
        recorder = _Recorder("postgresql")
        m.apply(recorder)
        for sql in recorder.sql:
            assert POSTGRES.translate(sql, None)[0] == sql, m.name


# -- today's vocabularies are in the schema ---------------------------------------------------

def test_the_schema_speaks_todays_vocabularies(store_address) -> None:
    """Every label policy has its filled label set, every label basis its consensus counting
    the witnesses it names, every witness its judges (by name prefix).  A vocabulary changed
    in judge_app/policies.py fails here until a new migration redefines the views."""
    judges = [f"{w.prefix}someone" for w in Witness]
    with Store(store_address) as store:
        dataset = store.create_dataset("p", ESCI)
        store.put_judgments(dataset, pd.DataFrame({"query_id": ["q"], "doc_id": ["d"],
                                                   "grade": [1]}), source="a.qrels")
        for i, judge in enumerate(judges):
            store.add_expert_label(dataset, "q", "d", 2, judge, f"t{i}")
    address = store_address  # a file, or a PostgreSQL database
    witnesses = dict(rows(address, "SELECT judge, witness FROM current_expert_labels"))
    assert witnesses == {judge: witness_of(judge).value for judge in judges}
    counted = dict(rows(address, "SELECT basis, judges FROM expert_consensus"))
    assert counted == {basis: sum(witness_of(j) is Witness.EXPERT
                                  or witness_of(j).value in basis.split("+") for j in judges)
                       for basis in LABEL_BASES}
    assert {r[0] for r in rows(address, "SELECT basis FROM label_sources")} == set(LABEL_BASES)
    assert {r[0] for r in rows(address, "SELECT policy FROM filled_labels")} == {
        p.value for p in LabelPolicy}
