"""Who judges, what they were shown, and votes bound to it (issue 11).

* ``judges``: one row per person: invited (a sign-in link; only the SHA-256 of its token is
  kept), OIDC, or typed (``sxs serve --open``, unverified).  Judges who voted or graded in the
  app of a store from before this migration are carried over as ``legacy``, unverified.  A
  machine witness (``llm:<model>``, ``clicks:coec``) that casts votes is a ``machine`` judge:
  never an admin, never signs in.
* ``sign_ins``: browser sessions an invite link was exchanged for (hash of the session token
  only).
* ``rounds``: the judging round's settings per dataset (the latest is current).
* ``views``: a view id per query drawn for a judge, with what it showed (the unordered pair
  ``run_1 < run_2``, the left run, k, blind, the hash of the query text and both top-k lists);
  a fresh view is also the judge's lease on the query.
* ``preferences`` is rebuilt keyed by the unordered pair of runs, with the preferred run by
  name beside the on-screen choice; a view stores at most one vote (``view_id`` unique).  Old
  votes keep their ids and retractions; their view id is ``legacy:<token>`` and their ranking
  hash is unknown (NULL: never counted as stale).
* ``label_withdrawals``: a judge's withdrawal of their current grade (history kept), which
  ``current_expert_labels`` now leaves out.
* macros ``top_list`` and ``ranking_hash``: the one definition of what a view hashes.

The machine witnesses' judge-name prefixes (``clicks:``, ``llm:``) are written out as they
were when this migration was written.
"""

from __future__ import annotations

from judge_app.store.migrations.m0003_label_and_vote_views import CURRENT_EXPERT_LABELS

JUDGES = """
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
"""

# ``top_list(d, run, q, depth)`` (a run's top doc ids joined by chr(31)) and
# ``ranking_hash(d, q, r1, r2, depth)``: MD5 of the query text and both lists
MACROS = {
    "duckdb": """
        CREATE MACRO top_list(d, run, q, depth) AS (
            SELECT coalesce(string_agg(r.doc_id, chr(31) ORDER BY r.rank), '')
            FROM run_results r JOIN runs u USING (run_id)
            WHERE u.dataset_id = d AND u.name = run AND r.query_id = q AND r.rank <= depth);
        CREATE MACRO ranking_hash(d, q, r1, r2, depth) AS md5(
            coalesce((SELECT text FROM queries WHERE dataset_id = d AND query_id = q), '')
            || chr(30) || top_list(d, r1, q, depth) || chr(30) || top_list(d, r2, q, depth));
""",
    "postgresql": """
        CREATE FUNCTION top_list(d bigint, run text, q text, depth bigint) RETURNS text
        LANGUAGE sql STABLE AS $body$
            SELECT coalesce(string_agg(r.doc_id, chr(31) ORDER BY r.rank), '')
            FROM run_results r JOIN runs u USING (run_id)
            WHERE u.dataset_id = d AND u.name = run AND r.query_id = q AND r.rank <= depth
        $body$;
        CREATE FUNCTION ranking_hash(d bigint, q text, r1 text, r2 text, depth bigint)
        RETURNS text LANGUAGE sql STABLE AS $body$ SELECT md5(
            coalesce((SELECT text FROM queries WHERE dataset_id = d AND query_id = q), '')
            || chr(30) || top_list(d, r1, q, depth) || chr(30) || top_list(d, r2, q, depth))
        $body$;
""",
}

VOTES = """
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
    """

# the judges of a store from before this migration: every voter, and every grader in the app
# (a client token ``grade:…``), but the machine witnesses
LEGACY_JUDGES = """
        INSERT INTO judges (name, verified, via)
            SELECT DISTINCT judge, false, 'legacy' FROM (
                SELECT judge FROM preferences UNION
                SELECT judge FROM expert_labels WHERE starts_with(client_token, 'grade:')) AS j
            WHERE NOT starts_with(judge, 'clicks:') AND NOT starts_with(judge, 'llm:')
            ORDER BY judge
"""

SQL = {backend: JUDGES + MACROS[backend] + VOTES + f"""
        CREATE OR REPLACE VIEW current_expert_labels AS
            SELECT * FROM ({CURRENT_EXPERT_LABELS[backend]}) latest
            WHERE NOT EXISTS (SELECT 1 FROM label_withdrawals w
                              WHERE w.label_id = latest.label_id);
""" + LEGACY_JUDGES for backend in ("duckdb", "postgresql")}
