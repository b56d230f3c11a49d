"""Session replay and COEC as one relational plan, written once, run by three engines.

The plan reads five relations and returns only aggregates:

* ``plan_events`` (session_id, query_id, doc_id, action, rank): the log's non-impression
  events whose query matched a *dataset* query (``query_id`` is the dataset's id);
* ``plan_impressions`` (query_id, doc_id, rank): matched impressions, 1-based ranks;
* ``plan_run_a`` / ``plan_run_b`` (query_id, doc_id, rank): each run's ranking, ranks
  1, 2, ... per query (ranked in Python by :func:`metrics.replay.ranked_run`: runs are small);
* ``plan_weights`` (action, weight): the engagement weights (weight > 0);
  ``plan_click_actions`` (action): what COEC counts as a click.

Replay (:func:`replay_plan`) follows :mod:`metrics.replay` step for step: engagements are the
(session, query, doc) weight sums over weighted actions; a query's depth is the given depth or
the longer ranking; a query in neither run is *skipped*; an engaged doc outside a run's top
``depth`` is censored at ``depth + 1``; per session the weighted MRR under each run and their
delta (outcomes at the 1e-12 tolerance); per query the means over sessions, the outcome
shares, engagements, censored counts and coverage — and for a skipped query its sessions
and engagements, flagged ``answered = 0`` (no row at all: no engagement).  COEC
(:func:`coec_plan`) follows :mod:`metrics.coec`.  Both are :class:`Staged`: a partial
step of additive counts and sums an engine may run one batch of the log at a time (DuckDB:
a day partition at a time, so its memory is bounded by a day, not the log), and final
steps that sum the partials.

What differs between engines is a named piece of :class:`PlanDialect` — how a bound value
is written and where the log comes from — never text rewritten after the fact:

* DuckDB (:data:`DUCKDB`): ``$name`` parameters; the log is ``read_parquet($log, …)`` over a
  file, a glob or a folder of hive partitions (:mod:`judge_app.store.click_files`);
* Spark SQL (:data:`SPARK`): ``:name`` parameters; the log is a temporary view ``log``
  (:mod:`judge_app.store.click_spark`);
* the store (:data:`STORE`): ``$name`` parameters (the backend translates them for
  PostgreSQL); events and impressions are the store's ``click_events`` /
  ``click_impressions`` rows of one dataset (:mod:`judge_app.store.clicks`);
* UBI NDJSON read in place (:data:`DUCKDB_NDJSON`, :data:`SPARK_NDJSON`): the log is
  :func:`ubi_log` over the engine's own JSON reader — DuckDB's ``read_json`` of ``$log``
  (newline-delimited, compression from the suffix), Spark's ``spark.read.json`` as the view
  ``ubi_documents`` — two named pieces: ``documents`` (the raw fields of every line as
  text) and ``matches`` (a regular-expression test).  The documents were checked first
  (:mod:`judge_app.store.click_ndjson`); only the table ``plan_query_norms`` (query, norm)
  of the log's distinct query texts, normalised by the importer's own function run inside
  DuckDB (Spark gets the rows a dataset query matches), comes from outside.

The SQL itself sticks to what the three share: ``CAST(… AS DOUBLE)`` before any division,
``CASE`` for flags, ``GREATEST``/``COALESCE``, joins and ``GROUP BY``.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_app.io.clicks import UBI_FIRST_POSITION
from metrics.engagement import IMPRESSION

LOG_COLUMNS = ("session_id", "query_id", "query_norm", "doc_id", "action", "rank")
"""The columns the engines read from a converted log (``sxs clicks convert``)."""
TOLERANCE = "1e-12"  # metrics.replay.TOLERANCE, as SQL text


@dataclass(frozen=True)
class PlanDialect:
    """The pieces of the plan that differ between engines."""

    name: str
    marker: str  # how a named parameter is written: "$" (DuckDB) or ":" (Spark SQL)
    log: str  # the relation the log rows come from (files); "" when the store is the source
    documents: str = ""
    """UBI NDJSON read in place: a relation of one row per line with the text (JSON scalars
    as written, strings unquoted; NULL when absent or null) of ``action_name, query_id,
    user_query, session_id, attr_session_id`` (``event_attributes.session_id``),
    ``client_id, doc_id`` (``event_attributes.object.object_id``) and ``ordinal``
    (``event_attributes.position.ordinal``); "" for a converted log or the store."""
    matches: str = ""
    """``{text}`` tested against the regular expression ``{pattern}`` (both SQL)."""
    inlined: str = ""
    """What makes a CTE read several times be read again each time rather than held whole
    (DuckDB: ``NOT MATERIALIZED``, so the JSON streams instead of being buffered)."""

    def param(self, name: str) -> str:
        return f"{self.marker}{name}"


DUCKDB = PlanDialect("duckdb", "$", "read_parquet($log, hive_partitioning = true, "
                                    "union_by_name = true)")
SPARK = PlanDialect("spark", ":", "log")
STORE = PlanDialect("store", "$", "")
_UBI_PATHS = ("action_name", "query_id", "user_query", "session_id",
              "event_attributes.session_id", "client_id", "event_attributes.object.object_id",
              "event_attributes.position.ordinal")
_UBI_NAMES = ("action_name", "query_id", "user_query", "session_id", "attr_session_id",
              "client_id", "doc_id", "ordinal")


def ubi_json(filename: bool = False) -> str:
    """DuckDB's reader of the UBI NDJSON files ``$log``: every line one JSON value ``j``
    (blank lines skipped; compression from the suffix), with its file's name as
    ``filename`` when asked."""
    named = ", filename = true" if filename else ""
    return ("read_json($log, format = 'newline_delimited', records = false, "
            f"columns = {{'j': 'JSON'}}, compression = 'auto'{named})")


DUCKDB_NDJSON = PlanDialect(
    "duckdb-ndjson", "$", "ubi_log",
    documents="(SELECT " + ", ".join(f"f[{k}] AS {name}" for k, name in
                                      enumerate(_UBI_NAMES, start=1))
              + " FROM (SELECT json_extract_string(j, ["
              + ", ".join(f"'$.{p}'" for p in _UBI_PATHS) + f"]) AS f FROM {ubi_json()}))",
    matches="regexp_matches({text}, {pattern})", inlined=" NOT MATERIALIZED")
SPARK_NDJSON = PlanDialect(
    "spark-ndjson", ":", "ubi_log",
    documents="(SELECT " + ", ".join(f"{p} AS {name}" for p, name in
                                      zip(_UBI_PATHS, _UBI_NAMES, strict=True))
              + " FROM ubi_documents)",
    matches="({text} RLIKE {pattern})")


def blank_pattern() -> str:
    """The regular expression (RE2 and Java alike) of a text that is empty or Python
    whitespace only — what :func:`judge_app.io.clicks._text` reads as missing."""
    spaces = [c for c in range(0x110000) if chr(c).isspace()]
    ranges: list[list[int]] = []
    for c in spaces:
        if ranges and ranges[-1][1] == c - 1:
            ranges[-1][1] = c
        else:
            ranges.append([c, c])
    inside = "".join(f"\\x{{{a:x}}}" + (f"-\\x{{{b:x}}}" if b > a else "") for a, b in ranges)
    return f"^[{inside}]*$"


def ubi_log(dialect: PlanDialect) -> str:
    """The CTEs ``ubi_fields``, ``ubi_texts`` and ``ubi_log`` (the columns of
    :data:`LOG_COLUMNS`) over ``dialect.documents``, as :func:`judge_app.io.clicks.read_clicks`
    reads UBI documents (checked first: :mod:`judge_app.store.click_ndjson`):

    * a line with ``action_name`` is an event, else one with ``query_id`` a ``ubi_queries``
      document, else a bulk action line (skipped);
    * an id or text that is empty or whitespace only is missing (:func:`blank_pattern`);
    * an event's session is ``session_id``, else ``event_attributes.session_id``, else
      ``client_id``; its rank ``ordinal - $first_position + 1``;
    * an event without ``user_query`` takes the text of its query_id's ``ubi_queries``
      documents when they agree on one; ``query_norm`` is that text's
      :func:`~judge_app.io.clicks.normalise_query` from ``plan_query_norms``."""
    def text(column: str) -> str:
        blank = dialect.matches.format(text=column, pattern=dialect.param("blank"))
        return f"CASE WHEN {blank} THEN NULL ELSE {column} END"

    return f"""ubi_fields AS{dialect.inlined} (
        SELECT CASE WHEN d.action_name IS NOT NULL THEN 'e'
                    WHEN d.query_id IS NOT NULL THEN 'q' END AS kind,
               {text("d.action_name")} AS action, {text("d.query_id")} AS query_id,
               {text("d.user_query")} AS query,
               COALESCE({text("d.session_id")}, {text("d.attr_session_id")},
                        {text("d.client_id")}) AS session_id,
               {text("d.doc_id")} AS doc_id, d.ordinal
        FROM {dialect.documents} d),
    ubi_texts AS (
        SELECT query_id, MIN(query) AS query FROM ubi_fields
        WHERE kind = 'q' AND query_id IS NOT NULL AND query IS NOT NULL
        GROUP BY query_id HAVING COUNT(DISTINCT query) = 1),
    ubi_log AS{dialect.inlined} (
        SELECT e.session_id, e.query_id, n.norm AS query_norm, e.doc_id, e.action,
               CAST(CAST(trim(e.ordinal) AS DOUBLE) AS BIGINT)
                   - {dialect.param("first_position")} + 1 AS rank
        FROM ubi_fields e
        LEFT JOIN ubi_texts t ON e.query IS NULL AND t.query_id = e.query_id
        LEFT JOIN plan_query_norms n ON n.query = COALESCE(e.query, t.query)
        WHERE e.kind = 'e')"""


def _matched(dialect: PlanDialect, impressions: bool) -> str:
    """Log rows whose query is a dataset query: by id, else by normalised text (row by
    row, as :func:`judge_app.io.clicks.match_queries`)."""
    columns = ("COALESCE(i.query_id, t.query_id) AS query_id, l.doc_id, l.rank" if impressions
               else "l.session_id, COALESCE(i.query_id, t.query_id) AS query_id, l.doc_id, "
                    "l.action, l.rank")
    which = "=" if impressions else "<>"
    return f"""SELECT {columns}
        FROM {dialect.log} l
        LEFT JOIN plan_query_ids i ON i.query_id = l.query_id
        LEFT JOIN plan_query_texts t ON t.norm = l.query_norm
        WHERE l.action {which} {dialect.param("impression")}
          AND (i.query_id IS NOT NULL OR t.query_id IS NOT NULL)"""


def _sources(dialect: PlanDialect) -> str:
    if dialect is STORE:
        return f"""plan_events AS (
            SELECT session_id, query_id, doc_id, action, rank FROM click_events
            WHERE dataset_id = {dialect.param("dataset")} AND query_id IS NOT NULL),
        plan_impressions AS (
            SELECT query_id, doc_id, rank FROM click_impressions
            WHERE dataset_id = {dialect.param("dataset")} AND query_id IS NOT NULL)"""
    matched = (f"plan_events AS ({_matched(dialect, False)}),\n"
               f"        plan_impressions AS ({_matched(dialect, True)})")
    return f"{ubi_log(dialect)},\n    {matched}" if dialect.documents else matched


def ubi_log_select(dialect: PlanDialect) -> str:
    """The rows of :func:`ubi_log` as a statement (bound values: :func:`ubi_params`): an
    engine may read the documents once into the relation ``log`` of :data:`LOG_COLUMNS`
    (Spark does, then runs the plan of :data:`SPARK` over it)."""
    return f"WITH {ubi_log(dialect)}\n    SELECT {', '.join(LOG_COLUMNS)} FROM ubi_log"


def ubi_params() -> dict[str, object]:
    """The bound values of :func:`ubi_log`."""
    return {"blank": blank_pattern(), "first_position": UBI_FIRST_POSITION}


def params(dialect: PlanDialect, **values: object) -> dict[str, object]:
    """The bound values a plan of ``dialect`` needs beside ``values`` (the impression
    action, for logs read from files; the blank pattern and UBI's first position for
    NDJSON read in place)."""
    if dialect is STORE:
        return dict(values)
    extra = ubi_params() if dialect.documents else {}
    return {**values, "impression": IMPRESSION, **extra}


@dataclass(frozen=True)
class Staged:
    """A plan in two steps, so an engine may run the first one batch of the log at a time.

    ``partial`` (``WITH {partial_ctes} {partial_select}``) reads one batch and returns
    additive per-key partials (counts and sums only); the ``finals`` read their union as
    ``plan_partials`` and sum them before any ratio is taken.  Sums of sums are the sums
    over the whole log, so a batched run gives the figures of one pass (to float rounding)
    as long as no key of the per-session step spans two batches — a session lies in one
    batch (:mod:`judge_app.store.click_files` batches whole day partitions, and ``sxs
    clicks convert`` puts a session in the day it began)."""

    partial_ctes: str
    partial_select: str
    finals: dict[str, str]
    final_ctes: str = ""
    by_session: bool = False
    """The partial step groups the log by session first (then by finer keys within a
    session): an engine that shuffles (Spark) may partition the log by session once, so
    every per-session step runs where its rows already are."""

    @property
    def partial(self) -> str:
        """The statement over one batch (its rows go to ``plan_partials``)."""
        return f"WITH {self.partial_ctes}\n    {self.partial_select}"

    def final(self, name: str, inline: bool) -> str:
        """The final statement ``name``: over a table ``plan_partials`` the engine filled
        batch by batch, or (``inline``) with the partial step inlined over the whole log."""
        ctes = [self.partial_ctes, f"plan_partials AS ({self.partial_select})"] if inline \
            else []
        ctes += [self.final_ctes] if self.final_ctes else []
        body = self.finals[name]
        return f"WITH {', '.join(ctes)}\n    {body}" if ctes else body


def replay_plan(dialect: PlanDialect, depth_given: bool) -> Staged:
    """Per-query replay figures (see the module doc), final ``replay``: one row per query
    with an engagement: query_id, answered (1 when a run answers it, else its sessions are
    skipped), sessions, engagements, improved, worsened, unchanged, mrr_a, mrr_b, delta,
    coverage_a, coverage_b, censored_a, censored_b (the figures NULL for a skipped query).
    The partial step — weigh, join the runs, per session, per query — reads each step once,
    so every step streams or spills, and returns per query the session count, outcome
    counts and the sums of the session figures; the final step divides the summed sums.
    With ``depth_given`` the plan needs the parameter ``depth``."""
    depth = (f"CAST({dialect.param('depth')} AS BIGINT)" if depth_given
             else "GREATEST(n_a, n_b)")
    ctes = f"""{_sources(dialect)},
    weighed AS (
        SELECT e.session_id, e.query_id, e.doc_id, SUM(w.weight) AS weight
        FROM plan_events e JOIN plan_weights w ON w.action = e.action
        WHERE w.weight > 0 AND e.session_id IS NOT NULL AND e.doc_id IS NOT NULL
        GROUP BY e.session_id, e.query_id, e.doc_id),
    lengths AS (
        SELECT query_id, MAX(n_a) AS n_a, MAX(n_b) AS n_b FROM (
            SELECT query_id, COUNT(*) AS n_a, 0 AS n_b FROM plan_run_a GROUP BY query_id
            UNION ALL
            SELECT query_id, 0 AS n_a, COUNT(*) AS n_b FROM plan_run_b GROUP BY query_id
        ) counted GROUP BY query_id),
    depths AS (SELECT query_id, {depth} AS depth FROM lengths),
    scored AS (
        SELECT e.session_id, e.query_id, e.weight,
               CASE WHEN d.query_id IS NULL THEN 0 ELSE 1 END AS answered,
               COALESCE(a.rank, d.depth + 1) AS rank_a, COALESCE(b.rank, d.depth + 1) AS rank_b,
               CASE WHEN a.rank IS NULL THEN 1 ELSE 0 END AS censored_a,
               CASE WHEN b.rank IS NULL THEN 1 ELSE 0 END AS censored_b
        FROM weighed e LEFT JOIN depths d ON d.query_id = e.query_id
        LEFT JOIN plan_run_a a
          ON a.query_id = e.query_id AND a.doc_id = e.doc_id AND a.rank <= d.depth
        LEFT JOIN plan_run_b b
          ON b.query_id = e.query_id AND b.doc_id = e.doc_id AND b.rank <= d.depth),
    sessions AS (
        SELECT session_id, query_id, MAX(answered) AS answered, COUNT(*) AS engaged,
               SUM(weight / rank_b) / SUM(weight) - SUM(weight / rank_a) / SUM(weight)
                   AS delta,
               SUM(weight / rank_a) / SUM(weight) AS mrr_a,
               SUM(weight / rank_b) / SUM(weight) AS mrr_b,
               SUM(censored_a) AS censored_a, SUM(censored_b) AS censored_b
        FROM scored GROUP BY session_id, query_id)"""
    partial = f"""SELECT query_id, MAX(answered) AS answered, COUNT(*) AS sessions,
           SUM(engaged) AS engagements,
           SUM(CASE WHEN delta > {TOLERANCE} THEN 1 ELSE 0 END) AS n_improved,
           SUM(CASE WHEN delta < -{TOLERANCE} THEN 1 ELSE 0 END) AS n_worsened,
           SUM(CASE WHEN delta <= {TOLERANCE} AND delta >= -{TOLERANCE} THEN 1 ELSE 0 END)
               AS n_unchanged,
           SUM(mrr_a) AS sum_mrr_a, SUM(mrr_b) AS sum_mrr_b, SUM(delta) AS sum_delta,
           SUM(censored_a) AS censored_a, SUM(censored_b) AS censored_b
    FROM sessions GROUP BY query_id"""
    final = """SELECT query_id, MAX(answered) AS answered, SUM(sessions) AS sessions,
           SUM(engagements) AS engagements,
           CAST(SUM(n_improved) AS DOUBLE) / SUM(sessions) AS improved,
           CAST(SUM(n_worsened) AS DOUBLE) / SUM(sessions) AS worsened,
           CAST(SUM(n_unchanged) AS DOUBLE) / SUM(sessions) AS unchanged,
           SUM(sum_mrr_a) / SUM(sessions) AS mrr_a, SUM(sum_mrr_b) / SUM(sessions) AS mrr_b,
           SUM(sum_delta) / SUM(sessions) AS delta,
           CAST(SUM(engagements) - SUM(censored_a) AS DOUBLE) / SUM(engagements)
               AS coverage_a,
           CAST(SUM(engagements) - SUM(censored_b) AS DOUBLE) / SUM(engagements)
               AS coverage_b,
           SUM(censored_a) AS censored_a, SUM(censored_b) AS censored_b
    FROM plan_partials GROUP BY query_id"""
    return Staged(ctes, partial, {"replay": final}, by_session=True)


def coec_plan(dialect: PlanDialect) -> Staged:
    """COEC (:mod:`metrics.coec`) in two steps.  The partial step counts, per batch, the
    matched impressions (kind ``i``) and clicks (kind ``c``: events of a
    ``plan_click_actions`` action on a doc) per (query_id, doc_id, rank); the finals sum
    them:

    * ``pairs`` — per shown (query, doc): query_id, doc_id, impressions, clicks,
      expected_clicks (the curve's CTR summed over its impressions: n x CTR per rank);
      COEC itself is taken in Python;
    * ``curve`` — the position-bias curve: rank, impressions, clicks, ctr;
    * ``stats`` — one row: clicks_off_curve (no rank, or a rank nothing was shown at) and
      clicks_unshown (on a (query, doc) never impressed)."""
    ctes = f"""{_sources(dialect)},
    clicks AS (
        SELECT query_id, doc_id, rank FROM plan_events
        WHERE action IN (SELECT action FROM plan_click_actions) AND doc_id IS NOT NULL)"""
    partial = """SELECT 'i' AS kind, query_id, doc_id, rank, COUNT(*) AS n
    FROM plan_impressions GROUP BY query_id, doc_id, rank
    UNION ALL
    SELECT 'c' AS kind, query_id, doc_id, rank, COUNT(*) AS n
    FROM clicks GROUP BY query_id, doc_id, rank"""
    final_ctes = """curve AS (
        SELECT i.rank, i.impressions, COALESCE(c.clicks, 0) AS clicks,
               CAST(COALESCE(c.clicks, 0) AS DOUBLE) / i.impressions AS ctr
        FROM (SELECT rank, SUM(n) AS impressions FROM plan_partials WHERE kind = 'i'
              GROUP BY rank) i
        LEFT JOIN (SELECT rank, SUM(n) AS clicks FROM plan_partials
                   WHERE kind = 'c' AND rank IS NOT NULL GROUP BY rank) c ON c.rank = i.rank),
    pairs AS (
        SELECT p.query_id, p.doc_id, SUM(p.n) AS impressions, SUM(p.n * v.ctr) AS expected_clicks
        FROM plan_partials p JOIN curve v ON v.rank = p.rank WHERE p.kind = 'i'
        GROUP BY p.query_id, p.doc_id),
    clicked AS (SELECT query_id, doc_id, SUM(n) AS clicks FROM plan_partials
                WHERE kind = 'c' GROUP BY query_id, doc_id)"""
    finals = {
        "pairs": """SELECT p.query_id, p.doc_id, p.impressions, COALESCE(c.clicks, 0) AS clicks,
           p.expected_clicks
    FROM pairs p LEFT JOIN clicked c ON c.query_id = p.query_id AND c.doc_id = p.doc_id""",
        "curve": "SELECT rank, impressions, clicks, ctr FROM curve",
        "stats": """SELECT (SELECT COALESCE(SUM(p.n), 0) FROM plan_partials p
                   LEFT JOIN curve v ON v.rank = p.rank
                   WHERE p.kind = 'c' AND v.rank IS NULL) AS clicks_off_curve,
           (SELECT COALESCE(SUM(c.clicks), 0) FROM clicked c LEFT JOIN pairs p
              ON p.query_id = c.query_id AND p.doc_id = c.doc_id
            WHERE p.query_id IS NULL) AS clicks_unshown"""}
    return Staged(ctes, partial, finals, final_ctes)
