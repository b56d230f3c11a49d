"""Session replay: would run B have put what users engaged with higher than run A did?

The essay's fourth recommendation — "replay individual sessions of the red shoes query to see
if you reduce the rank of what's clicked on across all sessions" — as pure functions.

Definitions
-----------
* A **session** is one (session_id, query_id) pair of the log: one user's visit for one query
  (a user searching two queries makes two sessions).  Its **engaged docs** are the docs with
  at least one engaged action (weight > 0 under :class:`~metrics.engagement.EngagementWeights`;
  default click = 1, add_to_cart = 2, purchase = 3).  A doc's weight ``w_d`` in a session is
  the sum of its actions' weights (a click and an add-to-cart on one doc weigh 3).  One
  (session, doc) pair is one **engagement**.
* **Rank** of an engaged doc under a run: its 1-based position in the run's ranking for the
  query (ranks from the ``rank`` column as an order key, else by score descending then doc id
  descending — the rules of :mod:`metrics.layout`).  The **depth** ``D_q`` is ``depth`` when
  given, else the longer of the two runs' rankings for the query, so both runs are censored
  at the same place.  A doc not within the top ``D_q`` of a run is **censored**: its rank is
  ``D_q + 1`` and it counts in ``censored_a`` / ``censored_b``.  A query neither run answers
  (no doc within depth in either) cannot be replayed: its sessions are *skipped* and counted.
* Per session, the weighted mean reciprocal rank of the engaged docs under run X is
  ``MRR_X = sum_d w_d / rank_X(d) / sum_d w_d``, and ``delta = MRR_B - MRR_A``.  The session
  is **improved** when ``delta > 1e-12`` (B moved what the user engaged with up, on balance),
  **worsened** when ``delta < -1e-12``, else **unchanged** (the tolerance absorbs rounding
  when equal-weight docs swap places).  ``docs_up`` / ``docs_down`` / ``docs_same`` count the
  engaged docs whose rank under B is lower / higher / equal to that under A.
* Per query: the shares of its sessions improved / worsened / unchanged, the mean MRR under
  A and B and the mean delta over its sessions, and coverage: the share of its engagements
  each run retrieves within depth (not censored).
* Overall, **every query weighs the same**, however many sessions it has: each figure is the
  mean over queries of the per-query figure — ``delta = (1/|Q|) sum_q mean_{s in q} delta_s``
  — so a query with 500 sessions does not outvote 50 queries with one each.  The paired tests
  (:func:`metrics.significance.paired_tests`: sign-flip randomization, t, Wilcoxon) compare
  the per-query mean MRR of A and B (rounded to 12 decimals, so that the order a sum is
  taken in — which differs between engines — cannot make or break a tie), and the 95%
  interval is the BCa bootstrap of the mean of per-query deltas, i.e. a cluster bootstrap
  that resamples *queries* (a query's sessions move together), seeded: the same ``seed``
  gives the same interval.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from metrics.engagement import DEFAULT_WEIGHTS, EngagementWeights
from metrics.layout import LayoutError, RankedRows, ids_as_text, rank_rows
from metrics.ranking import DuplicateDocError
from metrics.significance import paired_tests

TOLERANCE = 1e-12
OUTCOMES = ("improved", "worsened", "unchanged")


@dataclass(frozen=True)
class ReplayBasis:
    """What the figures rest on: replayed sessions, queries and engagements, how many
    engagements each run censored, and the sessions (and queries) skipped because neither
    run answers their query."""

    sessions: int
    queries: int
    engagements: int
    censored_a: int
    censored_b: int
    skipped_sessions: int
    skipped_queries: int


@dataclass(frozen=True)
class ReplaySummary:
    """Overall figures: means over queries (each query weighs the same), deltas ``B - A``."""

    mrr_a: float
    mrr_b: float
    delta: float
    ci_low: float
    ci_high: float
    p_randomization: float
    p_t: float
    p_wilcoxon: float
    improved: float
    worsened: float
    unchanged: float
    coverage_a: float
    coverage_b: float


@dataclass(frozen=True)
class Replay:
    """The result of :func:`replay`.

    * ``summary``: :class:`ReplaySummary`; ``basis``: :class:`ReplayBasis`.
    * ``per_query``: query_id, sessions, engagements, improved, worsened, unchanged (shares),
      mrr_a, mrr_b, delta, coverage_a, coverage_b — sorted by query id.
    * ``sessions``: session_id, query_id, engaged, weight, mrr_a, mrr_b, delta, outcome,
      docs_up, docs_down, docs_same, censored_a, censored_b (the CLI's ``-o`` rows).
    * ``engagements``: session_id, query_id, doc_id, weight, rank_a, rank_b, censored_a,
      censored_b, depth.
    """

    summary: ReplaySummary
    basis: ReplayBasis
    per_query: pd.DataFrame
    sessions: pd.DataFrame
    engagements: pd.DataFrame
    settings: dict[str, object]

    def to_dict(self) -> dict[str, object]:
        return {"summary": asdict(self.summary), "basis": asdict(self.basis),
                "settings": self.settings}

    def __str__(self) -> str:
        s, b = self.summary, self.basis
        return "\n".join([
            f"sessions replayed: {b.sessions} over {b.queries} queries, {b.engagements} "
            f"engagements (censored: A {b.censored_a}, B {b.censored_b}; skipped: "
            f"{b.skipped_sessions} sessions of {b.skipped_queries} queries neither run answers)",
            f"MRR of engaged docs (mean over queries): A {s.mrr_a:.4f}, B {s.mrr_b:.4f}, "
            f"delta {s.delta:+.4f} [95% CI {s.ci_low:+.4f}, {s.ci_high:+.4f}]",
            f"p (randomization) {s.p_randomization:.4f}, p (t) {s.p_t:.4f}, "
            f"p (Wilcoxon) {s.p_wilcoxon:.4f}",
            f"sessions improved {s.improved:.1%}, worsened {s.worsened:.1%}, unchanged "
            f"{s.unchanged:.1%} (mean share over queries)",
            f"coverage of engaged docs: A {s.coverage_a:.1%}, B {s.coverage_b:.1%}",
        ])


def _weights_of(events: pd.DataFrame, weights: EngagementWeights) -> np.ndarray:
    missing = [c for c in ("session_id", "query_id", "doc_id") if c not in events.columns]
    if "weight" not in events.columns and "action" not in events.columns:
        missing.append("action (or weight)")
    if missing:
        raise LayoutError(f"engagement events are missing column(s) {', '.join(missing)}")
    if "weight" in events.columns:
        weight = pd.to_numeric(events["weight"], errors="coerce").to_numpy(dtype=float)
        if not np.all(np.isfinite(weight) & (weight >= 0)):
            raise LayoutError("engagement weights must be finite numbers >= 0")
        return weight
    return weights.weigh(events["action"])


@dataclass(frozen=True)
class _Engaged:
    """Engagements as integer codes: session (of the log), query and doc codes into the
    ``sessions`` / ``queries`` / ``docs`` uniques, and the summed weight, one row per
    (session, query, doc) in order of first appearance."""

    session: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    weight: np.ndarray
    sessions: pd.Index
    queries: pd.Index
    docs: pd.Index


def _engaged(events: pd.DataFrame, weights: EngagementWeights) -> _Engaged:
    weight = _weights_of(events, weights)
    keep = (weight > 0) & events[["session_id", "query_id", "doc_id"]].notna().all(
        axis=1).to_numpy()
    codes, uniques = [], []
    for column in ("session_id", "query_id", "doc_id"):
        code, unique = pd.factorize(events[column][keep])
        codes.append(code)
        uniques.append(pd.Index(unique))
    frame = pd.DataFrame({"s": codes[0], "q": codes[1], "d": codes[2], "w": weight[keep]})
    summed = frame.groupby(["s", "q", "d"], sort=False)["w"].sum().reset_index()
    return _Engaged(summed["s"].to_numpy(), summed["q"].to_numpy(), summed["d"].to_numpy(),
                    summed["w"].to_numpy(), *uniques)


def engaged_docs(events: pd.DataFrame, weights: EngagementWeights = DEFAULT_WEIGHTS
                 ) -> pd.DataFrame:
    """One row per (session_id, query_id, doc_id) with engagement: the summed ``weight``.

    ``events`` has session_id, query_id, doc_id and either ``action`` (weighed by
    ``weights``) or a numeric ``weight`` column.  Rows without a doc, query or session, and
    actions of weight 0, are not engagements.  Sorted by session, query and doc.
    """
    e = _engaged(events, weights)
    frame = pd.DataFrame({"session_id": e.sessions.take(e.session),
                          "query_id": e.queries.take(e.query), "doc_id": e.docs.take(e.doc),
                          "weight": e.weight})
    return frame.sort_values(["session_id", "query_id", "doc_id"], ignore_index=True)


def _ids(values: pd.Index, as_text: bool) -> pd.Index:
    return values.astype(str) if as_text else values.astype(np.int64)


def _lookup_ranks(rows: RankedRows, queries: pd.Index, depths: np.ndarray, docs: pd.Index,
                  as_text: bool) -> tuple[np.ndarray, np.ndarray]:
    """The keys ``query code * len(docs) + doc code`` of a run's rows within depth whose doc
    is an engaged one, and their 1-based ranks.  A doc repeated there is an error."""
    every = np.arange(len(rows.docs))
    codes = rows.codes_of(every) if len(every) else np.zeros(0, dtype=np.int64)
    positions = rows.positions_of(every) if len(every) else np.zeros(0, dtype=np.int64)
    inside = codes >= 0
    inside[inside] = positions[inside] < depths[codes[inside]]
    run_docs = rows.docs[inside]
    doc_codes = docs.get_indexer(run_docs if as_text else run_docs.astype(np.int64))
    wanted = doc_codes >= 0
    keys = codes[inside][wanted].astype(np.int64) * len(docs) + doc_codes[wanted]
    ranks = positions[inside][wanted] + 1
    order = np.argsort(keys, kind="stable")
    repeated = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if len(repeated):
        first, second = order[repeated[0]], order[repeated[0] + 1]
        raise DuplicateDocError(docs[keys[first] % len(docs)], int(ranks[first]),
                                int(ranks[second]), queries[keys[first] // len(docs)])
    return keys, ranks


def replay(events: pd.DataFrame, run_a: pd.DataFrame, run_b: pd.DataFrame, *,
           weights: EngagementWeights = DEFAULT_WEIGHTS, depth: int | None = None,
           permutations: int = 10_000, seed: int = 0, tests: bool = True) -> Replay:
    """Replay every logged session under run A and run B (see the module doc).

    ``events``: session_id, query_id (the *dataset's* query ids, as the runs use), doc_id,
    and ``action`` or ``weight`` — e.g. ``judge_app.io.clicks.match_queries(...).events``.
    Runs are frames with query_id, doc_id and rank or score.  ``depth`` censors both runs at
    that rank (None: each query's longer ranking).  ``tests=False`` skips the paired tests
    (NaN), for speed.  Raises ``ValueError`` when no session has an engaged doc on a
    query either run answers, and :class:`~metrics.ranking.DuplicateDocError` when an
    engaged doc appears twice within a run's depth for one query.  ``sessions`` and
    ``engagements`` rows come in the order the log first shows them.
    """
    if depth is not None and (isinstance(depth, bool) or int(depth) != depth or depth < 1):
        raise ValueError(f"depth must be a whole number >= 1; got {depth!r}")
    e = _engaged(events, weights)
    if len(e.weight) == 0:
        raise ValueError("no engagement to replay: no event has an engaged action "
                         f"({weights.describe() or 'no weights'}) on a doc")
    as_text = ids_as_text(e.queries.to_series(), e.docs.to_series(), run_a["query_id"],
                          run_a["doc_id"], run_b["query_id"], run_b["doc_id"])
    query_ids, doc_ids = _ids(e.queries, as_text), _ids(e.docs, as_text)
    # two logged ids can become one as text (1 and "1"): code them again after conversion
    query_code, queries = pd.factorize(query_ids, sort=True)
    doc_code, docs = pd.factorize(doc_ids)
    queries, docs = pd.Index(queries), pd.Index(docs)
    q = query_code[e.query]
    d = doc_code[e.doc]
    ranked = [rank_rows(run, queries, as_text) for run in (run_a, run_b)]
    lengths = [rows.lengths for rows in ranked]
    depths = (np.maximum(*lengths) if depth is None
              else np.full(len(queries), int(depth), dtype=np.int64))
    answered = (np.minimum(lengths[0], depths) > 0) | (np.minimum(lengths[1], depths) > 0)

    keep = answered[q]
    skipped_pairs = pd.unique(e.session[~keep].astype(np.int64) * len(queries) + q[~keep])
    skipped_queries = len(np.unique(q[~keep]))
    if not keep.any():
        raise ValueError(f"no session to replay: neither run answers the queries of the "
                         f"{len(keep)} engagement(s)")
    s, q, d, w = e.session[keep], q[keep], d[keep], e.weight[keep]
    engaged = pd.DataFrame({"session_id": e.sessions.take(s), "query_id": queries.take(q),
                            "doc_id": docs.take(d), "weight": w, "depth": depths[q]})
    wanted = q.astype(np.int64) * len(docs) + d
    for label, rows in zip("ab", ranked, strict=True):
        keys, ranks = _lookup_ranks(rows, queries, depths, docs, as_text)
        at = pd.Index(keys).get_indexer(wanted) if len(keys) else np.full(len(wanted), -1)
        censored = at < 0
        rank = depths[q].astype(np.int64) + 1
        rank[~censored] = ranks[at[~censored]]
        engaged[f"rank_{label}"] = rank
        engaged[f"censored_{label}"] = censored

    session_code, first = pd.factorize(s.astype(np.int64) * len(queries) + q)
    sessions = _sessions(engaged, session_code, len(first))
    per_query = _per_query(sessions, engaged, queries, q, query_of=first % len(queries))
    summary = _summary(per_query, permutations, seed, tests)
    basis = ReplayBasis(
        sessions=len(sessions), queries=len(per_query), engagements=len(engaged),
        censored_a=int(engaged["censored_a"].sum()), censored_b=int(engaged["censored_b"].sum()),
        skipped_sessions=len(skipped_pairs), skipped_queries=skipped_queries)
    settings = replay_settings(weights.describe() if "weight" not in events.columns
                               else "given", depth, permutations, seed)
    return Replay(summary, basis, per_query, sessions, engaged, settings)


def replay_settings(weights: str, depth: int | None, permutations: int, seed: int
                    ) -> dict[str, object]:
    """The settings a :class:`Replay` records (``weights`` as described)."""
    return {"weights": weights, "depth": "longer ranking" if depth is None else int(depth),
            "permutations": permutations, "seed": seed, "delta": "b - a",
            "estimator": "mean over queries of per-query mean delta MRR",
            "bootstrap": "BCa over queries (cluster), 95%"}


PER_QUERY_COLUMNS = ("query_id", "sessions", "engagements", *OUTCOMES, "mrr_a", "mrr_b",
                     "delta", "coverage_a", "coverage_b")
SESSION_COLUMNS = ("session_id", "query_id", "engaged", "weight", "mrr_a", "mrr_b", "delta",
                   "outcome", "docs_up", "docs_down", "docs_same", "censored_a", "censored_b")


def replay_of_queries(per_query: pd.DataFrame, basis: ReplayBasis, settings: dict[str, object],
                      *, permutations: int = 10_000, seed: int = 0, tests: bool = True
                      ) -> Replay:
    """A :class:`Replay` from per-query figures computed elsewhere (an engine running the
    same definitions over a log too big for memory): ``per_query`` has
    :data:`PER_QUERY_COLUMNS`; it is sorted by query id (as text) as :func:`replay` sorts
    it, so the seeded tests resample the same queries in the same order.  ``sessions`` and
    ``engagements`` are empty frames (they stay where the log is)."""
    missing = [c for c in PER_QUERY_COLUMNS if c not in per_query.columns]
    if missing:
        raise LayoutError(f"per-query replay figures are missing column(s) {', '.join(missing)}")
    frame = per_query[list(PER_QUERY_COLUMNS)].assign(
        query_id=per_query["query_id"].astype(str))
    frame = frame.sort_values("query_id", ignore_index=True, kind="stable")
    for column in ("sessions", "engagements"):
        frame[column] = frame[column].astype(np.int64)
    for column in PER_QUERY_COLUMNS[3:]:
        frame[column] = frame[column].astype(float)
    summary = _summary(frame, permutations, seed, tests)
    empty = pd.DataFrame({c: [] for c in SESSION_COLUMNS})
    return Replay(summary, basis, frame, empty, pd.DataFrame(), settings)


def ranked_run(run: pd.DataFrame) -> pd.DataFrame:
    """A run's rankings as rows query_id, doc_id, rank (1, 2, ... per query, as text ids),
    ranked by the rules :func:`replay` uses (:func:`metrics.layout.rank_rows`)."""
    queries = pd.Index(sorted(run["query_id"].astype(str).unique()))
    rows = rank_rows(run, queries, True)
    every = np.arange(len(rows.docs))
    codes = rows.codes_of(every) if len(every) else np.zeros(0, dtype=np.int64)
    positions = rows.positions_of(every) if len(every) else np.zeros(0, dtype=np.int64)
    return pd.DataFrame({"query_id": queries.take(codes).astype(str),
                         "doc_id": rows.docs.astype(str).to_numpy(),
                         "rank": np.asarray(positions, dtype=np.int64) + 1})


def _sessions(engaged: pd.DataFrame, code: np.ndarray, n: int) -> pd.DataFrame:
    w = engaged["weight"].to_numpy()
    ra, rb = engaged["rank_a"].to_numpy(), engaged["rank_b"].to_numpy()

    def total(values: np.ndarray) -> np.ndarray:
        return np.bincount(code, weights=values, minlength=n)

    def count(flags: np.ndarray) -> np.ndarray:
        return np.bincount(code[flags], minlength=n).astype(np.int64)

    weight = total(w)
    mrr_a, mrr_b = total(w / ra) / weight, total(w / rb) / weight
    delta = mrr_b - mrr_a
    first = np.zeros(n, dtype=np.int64)
    first[code[::-1]] = np.arange(len(code))[::-1]
    return pd.DataFrame({
        "session_id": engaged["session_id"].take(first).to_numpy(),
        "query_id": engaged["query_id"].take(first).to_numpy(),
        "engaged": np.bincount(code, minlength=n), "weight": weight,
        "mrr_a": mrr_a, "mrr_b": mrr_b, "delta": delta,
        "outcome": np.where(delta > TOLERANCE, "improved",
                            np.where(delta < -TOLERANCE, "worsened", "unchanged")),
        "docs_up": count(rb < ra), "docs_down": count(rb > ra), "docs_same": count(rb == ra),
        "censored_a": count(engaged["censored_a"].to_numpy()),
        "censored_b": count(engaged["censored_b"].to_numpy())})


def _per_query(sessions: pd.DataFrame, engaged: pd.DataFrame, queries: pd.Index,
               engaged_query: np.ndarray, query_of: np.ndarray) -> pd.DataFrame:
    """Per-query means over sessions; ``query_of`` is each session's query code."""
    n = len(queries)
    present = np.bincount(query_of, minlength=n) > 0
    counts = np.bincount(query_of, minlength=n)

    def mean(values: np.ndarray) -> np.ndarray:
        return np.bincount(query_of, weights=values, minlength=n)[present] / counts[present]

    outcome = sessions["outcome"].to_numpy()
    frame = pd.DataFrame({"query_id": queries[present], "sessions": counts[present]})
    frame["engagements"] = np.bincount(engaged_query, minlength=n)[present]
    for name in OUTCOMES:
        frame[name] = mean((outcome == name).astype(float))
    for column in ("mrr_a", "mrr_b", "delta"):
        frame[column] = mean(sessions[column].to_numpy())
    for label in "ab":
        kept = ~engaged[f"censored_{label}"].to_numpy()
        frame[f"coverage_{label}"] = (np.bincount(engaged_query, weights=kept, minlength=n)
                                      [present] / frame["engagements"].to_numpy())
    return frame


def _summary(per_query: pd.DataFrame, permutations: int, seed: int, tests: bool
             ) -> ReplaySummary:
    # rounded to 12 decimals (the outcome tolerance): a sum's last bit depends on the order
    # it is taken in, which differs between engines, and must not break or make a tie the
    # rank-based tests see (Wilcoxon drops zero differences and ranks ties together)
    a = np.round(per_query["mrr_a"].to_numpy(dtype=float), 12)
    b = np.round(per_query["mrr_b"].to_numpy(dtype=float), 12)
    if tests:
        outcome = paired_tests(a, b, permutations=permutations, seed=seed)
        p_r, p_t, p_w = outcome.p_randomization, outcome.p_t, outcome.p_wilcoxon
        low, high = outcome.ci_low, outcome.ci_high
    else:
        p_r = p_t = p_w = low = high = float("nan")
    means = per_query[["mrr_a", "mrr_b", "delta", *OUTCOMES, "coverage_a", "coverage_b"]].mean()
    return ReplaySummary(
        mrr_a=float(means["mrr_a"]), mrr_b=float(means["mrr_b"]), delta=float(means["delta"]),
        ci_low=float(low), ci_high=float(high), p_randomization=float(p_r), p_t=float(p_t),
        p_wilcoxon=float(p_w), improved=float(means["improved"]),
        worsened=float(means["worsened"]), unchanged=float(means["unchanged"]),
        coverage_a=float(means["coverage_a"]), coverage_b=float(means["coverage_b"]))
