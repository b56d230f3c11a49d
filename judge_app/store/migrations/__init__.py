"""Named schema migrations, applied in order, each in its own transaction, recorded in
``sxs_migrations``.  A store that records a migration this code does not know was written by a
newer sxs and is refused.

A migration is frozen text.  Its module (``mNNNN_<name>.py``) holds the SQL it runs on each
backend, ``SQL`` keyed by the dialect's name, with every value it depends on written out as it
was when the migration was written: the label policies, the witnesses and their judge-name
prefixes, the label bases.  A migration imports no vocabulary, no dialect piece and nothing else
whose text may change later (it may reuse an older migration's text, frozen as well), so a
store migrated today and one migrated long ago hold the same schema.  Never edit a migration
that has shipped: a new policy, witness or basis, or a faster view on one backend, is a new
migration that redefines what it must.  ``tests/store/test_migrations.py`` pins every
migration's text, checks what these modules import, and upgrades a store from every earlier
schema to compare it with a fresh one on both backends.

The PostgreSQL texts are PostgreSQL's own (no DuckDB function for the cursor to rewrite), so the
store's translation of DuckDB SQL cannot change them either.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module

import duckdb

from judge_app.errors import SchemaTooNew


@dataclass(frozen=True)
class Migration:
    name: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]


def backend_of(con: object) -> str:
    """The name of the backend a migration's connection is on: PostgreSQL's cursor names its
    dialect; a DuckDB connection has none."""
    dialect = getattr(con, "dialect", None)
    return dialect.name if dialect is not None else "duckdb"


def frozen(name: str, sql: Mapping[str, str]) -> Migration:
    """The migration ``name`` that runs ``sql[backend]`` (nothing where that text is empty)."""

    def apply(con: duckdb.DuckDBPyConnection) -> None:
        backend = backend_of(con)
        if backend not in sql:
            raise LookupError(f"migration {name} has no SQL for the {backend} backend")
        if sql[backend].strip():
            con.execute(sql[backend])

    return Migration(name, apply)


# the migrations in the order they apply, each the module ``m<name>.py`` beside this one
ORDER = (
    "0001_initial",
    "0002_preference_retractions",
    "0003_label_and_vote_views",
    "0005_judges_and_votes",
    "0006_clicks",
    "0007_llm",
    "0008_judgment_history",
    "0011_judging_slots",
    "0012_judgments_without_foreign_key",
    "0013_label_views_restated",
    "0014_view_queue_rule",
    "0015_gold_items",
    "0016_judge_exclusions",
    "0017_dawid_skene_labels",
    "0018_judging_policy",
    "0019_round_stop_when_decided",
    "0020_gold_queue_and_adjudications",
    "0021_round_queue_policy",
    "0022_sign_in_lifetime",
    "0023_round_backfill_policy",
)
MIGRATIONS: list[Migration] = [frozen(name, import_module(f"{__name__}.m{name}").SQL)
                               for name in ORDER]


def apply_migrations(con: duckdb.DuckDBPyConnection, path: str) -> list[str]:
    """Bring the store's schema up to date; returns the names applied now."""
    con.execute("""CREATE TABLE IF NOT EXISTS sxs_migrations (
                       name TEXT PRIMARY KEY,
                       applied_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp)""")
    done = {row[0] for row in con.execute("SELECT name FROM sxs_migrations").fetchall()}
    known = {m.name for m in MIGRATIONS}
    unknown = sorted(done - known)
    if unknown:
        raise SchemaTooNew(f"{path} was written by a newer sxs (schema migration "
                           f"{unknown[-1]}); upgrade sxs to open it")
    applied = []
    for m in MIGRATIONS:
        if m.name in done:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            m.apply(con)
            con.execute("INSERT INTO sxs_migrations (name) VALUES (?)", [m.name])
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(m.name)
    return applied
