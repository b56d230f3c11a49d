"""Named schema migrations, registered in order, recorded in ``sxs_migrations``, each applied
in its own transaction.  A store that records a migration this code does not know was written
by a newer sxs and is refused.

Never edit a migration that has shipped: add a new one.

One source for both backends: the SQL is DuckDB's, run on PostgreSQL through
:meth:`~judge_app.store.dialect.PostgresDialect.translate`; what no pattern can translate (the
latest row per key, the ranking-hash macros) comes from the connection's dialect
(:func:`dialect_of`), the DuckDB text staying what it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import duckdb

from judge_app.errors import SchemaTooNew
from judge_app.policies import LABEL_BASES, MACHINE_WITNESSES, LabelPolicy, Witness
from judge_app.store.dialect import DUCKDB, Dialect


@dataclass(frozen=True)
class Migration:
    name: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]


MIGRATIONS: list[Migration] = []


def migration(name: str) -> Callable[[Callable], Callable]:
    """Register ``fn(connection)`` as the next migration, called ``name``."""

    def register(fn: Callable[[duckdb.DuckDBPyConnection], None]) -> Callable:
        if any(m.name == name for m in MIGRATIONS):
            raise ValueError(f"migration {name!r} is registered twice")
        MIGRATIONS.append(Migration(name, fn))
        return fn

    return register


def dialect_of(con: object) -> Dialect:
    """The dialect of a migration's connection: PostgreSQL's cursor names its own."""
    return getattr(con, "dialect", DUCKDB)


@migration("0001_initial")
def _initial(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("""
        CREATE SEQUENCE dataset_ids START 1;
        CREATE TABLE datasets (
            dataset_id INTEGER PRIMARY KEY DEFAULT nextval('dataset_ids'),
            name TEXT NOT NULL UNIQUE,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        CREATE TABLE grade_scale (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            grade INTEGER NOT NULL,
            name TEXT NOT NULL,
            PRIMARY KEY (dataset_id, grade)
        );
        CREATE TABLE queries (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            text TEXT NOT NULL,
            PRIMARY KEY (dataset_id, query_id)
        );
        CREATE TABLE documents (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            doc_id TEXT NOT NULL,
            title TEXT,
            fields JSON,
            PRIMARY KEY (dataset_id, doc_id)
        );
        CREATE TABLE judgments (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            source TEXT NOT NULL,
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );  -- one row per (dataset, query, doc): kept by Store.put_judgments
        CREATE SEQUENCE run_ids START 1;
        CREATE TABLE runs (
            run_id INTEGER PRIMARY KEY DEFAULT nextval('run_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            name TEXT NOT NULL,
            source TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            UNIQUE (dataset_id, name)
        );
        CREATE TABLE run_results (
            run_id INTEGER NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            rank INTEGER NOT NULL,
            score DOUBLE
        );
        CREATE SEQUENCE label_ids START 1;
        CREATE TABLE expert_labels (
            label_id BIGINT PRIMARY KEY DEFAULT nextval('label_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            note TEXT,
            client_token TEXT NOT NULL UNIQUE
        );
        CREATE SEQUENCE preference_ids START 1;
        CREATE TABLE preferences (
            preference_id BIGINT PRIMARY KEY DEFAULT nextval('preference_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            run_a TEXT NOT NULL,
            run_b TEXT NOT NULL,
            left_run TEXT NOT NULL,
            choice TEXT NOT NULL CHECK (choice IN ('left', 'right', 'tie', 'both_bad')),
            reason TEXT,
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            ms_spent BIGINT,
            client_token TEXT NOT NULL UNIQUE,
            CHECK (left_run IN (run_a, run_b))
        );
    """)


@migration("0002_preference_retractions")
def _retractions(con: duckdb.DuckDBPyConnection) -> None:
    con.execute("""
        CREATE TABLE preference_retractions (
            preference_id BIGINT NOT NULL REFERENCES preferences (preference_id),
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            client_token TEXT NOT NULL UNIQUE
        );
    """)


# The filled label set per policy: (grade, source) as SQL over label_sources' columns.  A new
# policy needs a new migration that redefines the view; a test checks every LabelPolicy is here.
FILLED_BY_POLICY: dict[str, tuple[str, str]] = {
    LabelPolicy.MEDIAN: (
        "coalesce(median_grade, dataset_grade)",
        "CASE WHEN median_grade IS NULL THEN 'dataset' WHEN dataset_grade IS NULL "
        "THEN 'expert' ELSE 'expert_override' END"),
    LabelPolicy.LATEST: (
        "coalesce(latest_grade, dataset_grade)",
        "CASE WHEN latest_grade IS NULL THEN 'dataset' WHEN dataset_grade IS NULL "
        "THEN 'expert' ELSE 'expert_override' END"),
    LabelPolicy.DATASET_FIRST: (
        "coalesce(dataset_grade, median_grade)",
        "CASE WHEN dataset_grade IS NULL THEN 'expert' ELSE 'dataset' END"),
}


def _witness_sql() -> str:
    """SQL naming the witness of ``judge`` by its prefix (see :class:`Witness`)."""
    cases = " ".join(f"WHEN starts_with(judge, '{w.prefix}') THEN '{w.value}'"
                     for w in MACHINE_WITNESSES)
    return f"CASE {cases} ELSE '{Witness.EXPERT.value}' END"


def _bases_sql() -> list[tuple[str, str]]:
    """Each label basis with the SQL list of the witnesses it counts."""
    out = []
    for basis in LABEL_BASES:
        names = ["expert" if part == "experts" else part for part in basis.split("+")]
        out.append((basis, ", ".join(f"'{Witness(n).value}'" for n in names)))
    return out


@migration("0003_label_and_vote_views")
def _views(con: duckdb.DuckDBPyConnection) -> None:
    """The derived sets every reader uses, defined once:

    * ``current_expert_labels``: the latest label of each (dataset, judge, query, doc), with
      the judge's witness (``expert``, ``clicks``, ``llm``: by the name's prefix);
    * ``expert_consensus``: per label basis (``experts``, ``experts+llm``, …) and (dataset,
      query, doc): the lower median of the counted judges' current grades, the most recent
      of them, and how many judges;
    * ``label_sources``: per basis, every labelled (dataset, query, doc) with its dataset
      grade beside the consensus (full outer join);
    * ``filled_labels``: the filled label set under each :class:`LabelPolicy` and basis, with
      the grade's source;
    * ``current_votes``: side-by-side votes not retracted;
    * ``ranked_labels``: per basis, every run row with its pair's labels and whether it counts
      as labelled (a dataset grade >= 0 — negative grades are trec_eval's "pooled, not
      judged" — or at least one counted judge's), the basis of judged@k and the backfill queue.

    Readers always filter on ``basis`` (a bound value); experts alone is ``experts``.
    """
    consensus = "\n            UNION ALL\n".join(f"""
            SELECT dataset_id, query_id, doc_id, '{basis}' AS basis,
                   quantile_disc(grade, 0.5) AS median_grade,
                   arg_max(grade, label_id) AS latest_grade, count(*) AS judges
            FROM current_expert_labels WHERE witness IN ({counted})
            GROUP BY dataset_id, query_id, doc_id""" for basis, counted in _bases_sql())
    bases = ", ".join(f"('{basis}')" for basis in LABEL_BASES)
    filled = "\n            UNION ALL\n".join(f"""
            SELECT dataset_id, basis, '{policy.value}' AS policy, query_id, doc_id,
                   {grade} AS grade, {source} AS source, judges
            FROM label_sources""" for policy, (grade, source) in FILLED_BY_POLICY.items())
    latest = dialect_of(con).latest_rows(
        f"""dataset_id, query_id, doc_id, judge, {_witness_sql()} AS witness, grade,
                   label_id, created_at, note""", "expert_labels",
        "dataset_id, judge, query_id, doc_id", "label_id")
    con.execute(f"""
        CREATE VIEW current_expert_labels AS
            {latest};
        CREATE VIEW expert_consensus AS {consensus};
        CREATE VIEW label_sources AS{dialect_of(con).label_sources(bases)};
        CREATE VIEW filled_labels AS {filled};
        CREATE VIEW current_votes AS
            SELECT p.* FROM preferences p
            WHERE NOT EXISTS (SELECT 1 FROM preference_retractions r
                              WHERE r.preference_id = p.preference_id);
        CREATE VIEW ranked_labels AS{dialect_of(con).ranked_labels(bases)};
    """)


@migration("0005_judges_and_votes")
def _judges_and_votes(con: duckdb.DuckDBPyConnection) -> None:
    """Who judges, what they were shown, and votes bound to it (issue 11).

    * ``judges``: one row per person: invited (a sign-in link; only the SHA-256 of its token
      is kept), OIDC, or typed (``sxs serve --open``, unverified).  Judges who voted or
      graded in the app of a store from before this migration are carried over as
      ``legacy``, unverified.  A machine witness (``llm:<model>``, ``clicks:coec``) that casts
      votes is a ``machine`` judge: never an admin, never signs in.
    * ``sign_ins``: browser sessions an invite link was exchanged for (hash of the session
      token only).
    * ``rounds``: the judging round's settings per dataset (the latest is current).
    * ``views``: a view id per query drawn for a judge, with what it showed (the unordered
      pair ``run_1 < run_2``, the left run, k, blind, the hash of the query text and both
      top-k lists); a fresh view is also the judge's lease on the query.
    * ``preferences`` is rebuilt keyed by the unordered pair of runs, with the preferred run
      by name beside the on-screen choice; a view stores at most one vote (``view_id``
      unique).  Old votes keep their ids and retractions; their view id is ``legacy:<token>``
      and their ranking hash is unknown (NULL: never counted as stale).
    * ``label_withdrawals``: a judge's withdrawal of their current grade (history kept).
    * macros ``top_list`` and ``ranking_hash``: the one definition of what a view hashes.
    """
    con.execute("""
        CREATE SEQUENCE judge_ids START 1;
        CREATE TABLE judges (
            judge_id INTEGER PRIMARY KEY DEFAULT nextval('judge_ids'),
            name TEXT NOT NULL UNIQUE,
            admin BOOLEAN NOT NULL DEFAULT false,
            verified BOOLEAN NOT NULL,
            via TEXT NOT NULL CHECK (via IN ('invite', 'oidc', 'typed', 'legacy', 'machine')),
            token_hash TEXT,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            revoked_at TIMESTAMPTZ
        );
        CREATE TABLE sign_ins (
            session_hash TEXT PRIMARY KEY,
            judge_id INTEGER NOT NULL REFERENCES judges (judge_id),
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        CREATE SEQUENCE round_ids START 1;
        CREATE TABLE rounds (
            round_id INTEGER PRIMARY KEY DEFAULT nextval('round_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            run_a TEXT NOT NULL,
            run_b TEXT NOT NULL,
            k INTEGER NOT NULL CHECK (k >= 1),
            overlap INTEGER NOT NULL CHECK (overlap >= 1),
            blind BOOLEAN NOT NULL,
            lease_seconds INTEGER NOT NULL CHECK (lease_seconds >= 1),
            created_by TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            CHECK (run_a <> run_b)
        );
        {macros}
        CREATE TABLE views (
            view_id TEXT PRIMARY KEY,
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            run_1 TEXT NOT NULL,
            run_2 TEXT NOT NULL,
            left_run TEXT NOT NULL,
            k INTEGER NOT NULL,
            blind BOOLEAN NOT NULL,
            overlap INTEGER,
            ranking_hash TEXT NOT NULL,
            judge TEXT NOT NULL,
            issued_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            lease_until TIMESTAMPTZ,
            CHECK (run_1 < run_2),
            CHECK (left_run IN (run_1, run_2))
        );
        CREATE TEMP TABLE old_preferences AS SELECT * FROM preferences;
        CREATE TEMP TABLE old_retractions AS SELECT * FROM preference_retractions;
        DROP VIEW current_votes;
        DROP TABLE preference_retractions;
        DROP TABLE preferences;
        CREATE TABLE preferences (
            preference_id BIGINT PRIMARY KEY DEFAULT nextval('preference_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            run_1 TEXT NOT NULL,
            run_2 TEXT NOT NULL,
            left_run TEXT NOT NULL,
            choice TEXT NOT NULL CHECK (choice IN ('left', 'right', 'tie', 'both_bad')),
            preferred_run TEXT,
            k INTEGER,
            blind BOOLEAN,
            ranking_hash TEXT,
            view_id TEXT NOT NULL UNIQUE,
            reason TEXT,
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            ms_spent BIGINT,
            CHECK (run_1 < run_2),
            CHECK (left_run IN (run_1, run_2)),
            CHECK (CASE choice
                       WHEN 'left' THEN preferred_run IS NOT DISTINCT FROM left_run
                       WHEN 'right' THEN preferred_run IN (run_1, run_2)
                                         AND preferred_run <> left_run
                       ELSE preferred_run IS NULL END)
        );
        INSERT INTO preferences
            SELECT preference_id, dataset_id, query_id, least(run_a, run_b),
                   greatest(run_a, run_b), left_run, choice,
                   CASE choice WHEN 'left' THEN left_run
                               WHEN 'right' THEN CASE WHEN left_run = run_a THEN run_b
                                                      ELSE run_a END END,
                   NULL, NULL, NULL, 'legacy:' || client_token, reason, judge, created_at,
                   ms_spent
            FROM old_preferences;
        DROP TABLE old_preferences;
        CREATE TABLE preference_retractions (
            preference_id BIGINT NOT NULL REFERENCES preferences (preference_id),
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            client_token TEXT NOT NULL UNIQUE
        );
        INSERT INTO preference_retractions SELECT * FROM old_retractions;
        DROP TABLE old_retractions;
        CREATE TABLE label_withdrawals (
            label_id BIGINT NOT NULL UNIQUE REFERENCES expert_labels (label_id),
            judge TEXT NOT NULL,
            created_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        CREATE VIEW current_votes AS
            SELECT p.*,
                   coalesce(p.ranking_hash <> ranking_hash(p.dataset_id, p.query_id, p.run_1,
                                                           p.run_2, p.k), false) AS stale
            FROM preferences p
            WHERE NOT EXISTS (SELECT 1 FROM preference_retractions r
                              WHERE r.preference_id = p.preference_id);
        CREATE VIEW counted_votes AS SELECT * FROM current_votes WHERE NOT stale;
        CREATE VIEW judge_names AS
            SELECT name, CASE WHEN verified THEN name ELSE name || ' (unverified)' END AS shown
            FROM judges;
    """.replace("{macros}", dialect_of(con).ranking_macros().strip()))
    latest = dialect_of(con).latest_rows(
        f"""dataset_id, query_id, doc_id, judge, {_witness_sql()} AS witness, grade,
                       label_id, created_at, note""", "expert_labels",
        "dataset_id, judge, query_id, doc_id", "label_id")
    con.execute(f"""
        CREATE OR REPLACE VIEW current_expert_labels AS
            SELECT * FROM (
                {latest}) latest
            WHERE NOT EXISTS (SELECT 1 FROM label_withdrawals w
                              WHERE w.label_id = latest.label_id);
    """)
    machine = " AND ".join(f"NOT starts_with(judge, '{w.prefix}')" for w in MACHINE_WITNESSES)
    con.execute(f"""
        INSERT INTO judges (name, verified, via)
            SELECT DISTINCT judge, false, 'legacy' FROM (
                SELECT judge FROM preferences UNION
                SELECT judge FROM expert_labels WHERE starts_with(client_token, 'grade:')) AS j
            WHERE {machine} ORDER BY judge
    """)


@migration("0006_clicks")
def _clicks(con: duckdb.DuckDBPyConnection) -> None:
    """Click logs (issue 13): one ``click_imports`` row per imported file (its source, digest,
    format, counts, the query-matching report, the engagement weights given, the logged run
    it was stored as, and when), and every impression and event of the file.  ``query_id`` is
    the *dataset's* query id the log query matched (NULL when it matched none: the row is kept
    so the stored counts equal the file's), ``log_query_id`` the one logged; ``rank`` is
    1-based, ``position`` as logged; ``line`` is the file's line."""
    con.execute("""
        CREATE SEQUENCE click_import_ids START 1;
        CREATE TABLE click_imports (
            import_id INTEGER PRIMARY KEY DEFAULT nextval('click_import_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            source TEXT NOT NULL,
            format TEXT NOT NULL,
            digest TEXT NOT NULL,
            impressions BIGINT NOT NULL,
            events BIGINT NOT NULL,
            sessions BIGINT NOT NULL,
            sessions_matched BIGINT NOT NULL,
            log_queries BIGINT NOT NULL,
            queries_matched BIGINT NOT NULL,
            match_report JSON NOT NULL,
            weights TEXT NOT NULL,
            logged_run TEXT,
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            UNIQUE (dataset_id, digest)
        );
        CREATE TABLE click_impressions (
            import_id INTEGER NOT NULL REFERENCES click_imports (import_id),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            session_id TEXT NOT NULL,
            client_id TEXT,
            query_id TEXT,
            log_query_id TEXT,
            query_text TEXT,
            doc_id TEXT NOT NULL,
            position BIGINT NOT NULL,
            rank BIGINT NOT NULL,
            action TEXT NOT NULL,
            timestamp TIMESTAMPTZ,
            line BIGINT NOT NULL
        );
        CREATE TABLE click_events (
            import_id INTEGER NOT NULL REFERENCES click_imports (import_id),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            session_id TEXT NOT NULL,
            client_id TEXT,
            query_id TEXT,
            log_query_id TEXT,
            query_text TEXT,
            doc_id TEXT,
            position BIGINT,
            rank BIGINT,
            action TEXT NOT NULL,
            timestamp TIMESTAMPTZ,
            line BIGINT NOT NULL
        );
    """)


@migration("0007_llm")
def _llm_calls(con: duckdb.DuckDBPyConnection) -> None:
    """``llm_calls``: one append-only row per call an LLM judge made (its provenance).

    A grade or a vote the call produced is stored where a person's is (``expert_labels``,
    ``preferences``, judge ``llm:<model>``); ``output_token`` is that row's client token (the
    link), NULL for a failed call, which writes nothing else.  ``kind`` is the prompt's task
    (``grade``: query_id and doc_id; ``prefer``: query_id, run_a, run_b, with the side order
    asked and the run shown on the left)."""
    con.execute("""
        CREATE SEQUENCE llm_call_ids START 1;
        CREATE TABLE llm_calls (
            call_id BIGINT PRIMARY KEY DEFAULT nextval('llm_call_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            kind TEXT NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT,
            run_a TEXT,
            run_b TEXT,
            side_order INTEGER NOT NULL,
            left_run TEXT,
            judge TEXT NOT NULL,
            model TEXT NOT NULL,
            served_model TEXT,
            base_url TEXT NOT NULL,
            prompt_version TEXT NOT NULL,
            template_sha256 TEXT NOT NULL,
            prompt_sha256 TEXT NOT NULL,
            temperature DOUBLE NOT NULL,
            raw TEXT NOT NULL,
            value TEXT,
            reason TEXT,
            failure TEXT,
            prompt_tokens INTEGER NOT NULL,
            completion_tokens INTEGER NOT NULL,
            latency_ms INTEGER,
            attempts INTEGER NOT NULL,
            asked_at TIMESTAMPTZ NOT NULL,
            recorded_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            output_token TEXT,
            CHECK (failure IS NULL OR (value IS NULL AND output_token IS NULL))
        );
    """)


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


@migration("0008_judgment_history")
def _judgment_history(con: duckdb.DuckDBPyConnection) -> None:
    """Every dataset grade an import replaced (``--on-conflict last``, or ``max``/``min``
    when they change it): the grade, where and when it came from, what replaced it and when.
    Written in the import's transaction (see :mod:`judge_app.store.history`).

    And ``dataset_deletions``, the datasets being deleted: hidden from every reader from the
    moment the row is written, purged table by table (DuckDB cannot delete a row and the rows
    referencing it in one transaction), the row going last; see
    :mod:`judge_app.store.deletion`.  No foreign key, so that it can go with the dataset."""
    con.execute("""
        CREATE SEQUENCE judgment_history_ids START 1;
        CREATE TABLE judgment_history (
            history_id BIGINT PRIMARY KEY DEFAULT nextval('judgment_history_ids'),
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            source TEXT NOT NULL,
            imported_at TIMESTAMPTZ NOT NULL,
            replaced_by TEXT NOT NULL,
            replaced_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        CREATE TABLE dataset_deletions (
            dataset_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            requested_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
    """)


@migration("0011_judging_slots")
def _judging_slots(con: duckdb.DuckDBPyConnection) -> None:
    """``judging_slots``: one row per (dataset, query, unordered pair of runs) ever issued, the
    row a judging assignment locks (issue 15).  On PostgreSQL, issuing a view takes it with
    ``FOR UPDATE SKIP LOCKED`` (a query another replica is assigning right now is skipped)
    and a vote with ``FOR UPDATE``, so the count of judges per query is read and changed by
    one transaction at a time across every replica.  DuckDB's one writer needs no lock; the
    table is the same on both.  And, on PostgreSQL only, the indexes a judge page's reads of
    one query use (:attr:`~judge_app.store.dialect.Dialect.lookup_indexes`)."""
    con.execute("""
        CREATE TABLE judging_slots (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            query_id TEXT NOT NULL,
            run_1 TEXT NOT NULL,
            run_2 TEXT NOT NULL,
            PRIMARY KEY (dataset_id, query_id, run_1, run_2)
        );
    """ + dialect_of(con).lookup_indexes)


@migration("0012_judgments_without_foreign_key")
def _judgments_without_foreign_key(con: duckdb.DuckDBPyConnection) -> None:
    """On DuckDB, ``judgments`` drops its foreign key to ``datasets``, as ``run_results``
    never had one: DuckDB keeps an index over a foreign key's column in the referencing table
    (an entry per row, all alike within a dataset), and building it was about half the time
    of a 1M-line qrels import (issue 12).  Dataset ids come from ``datasets`` in every writer,
    and a dataset's judgments are purged before its row (:mod:`judge_app.store.deletion`).
    The table is rebuilt with the same columns in the same order, every row kept; the views
    that read it find it by name.  On PostgreSQL the key stays: checking it costs little."""
    if dialect_of(con) is not DUCKDB:
        return
    con.execute("""
        CREATE TEMP TABLE judgments_kept AS SELECT * FROM judgments;
        DROP TABLE judgments;
        CREATE TABLE judgments (
            dataset_id INTEGER NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            source TEXT NOT NULL,
            imported_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp
        );
        INSERT INTO judgments SELECT * FROM judgments_kept;
        DROP TABLE judgments_kept;
    """)


@migration("0013_view_queue_rule")
def _view_queue_rule(con: duckdb.DuckDBPyConnection) -> None:
    """``views.queue_rule``: why the query was drawn for the judge, the value of a
    :class:`~judge_app.services.queue.Rule` (``largest_difference``, ``undone``, …) written
    by :func:`~judge_app.services.next_query.next_query`; NULL for a view of a query named
    directly (the CLI, the LLM judge, views issued before this migration).  Plain text, no
    check: a new rule needs no migration.  The same statement on DuckDB and PostgreSQL."""
    con.execute("ALTER TABLE views ADD COLUMN queue_rule TEXT")
