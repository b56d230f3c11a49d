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
  the per-query mean MRR of A and B, and the 95% interval is the BCa bootstrap of the mean
  of per-query deltas, i.e. a cluster bootstrap that resamples *queries* (a query's sessions
  move together), seeded: the same ``seed`` gives the same interval.
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


def engaged_docs(events: pd.DataFrame, weights: EngagementWeights = DEFAULT_WEIGHTS
                 ) -> pd.DataFrame:
    """One row per (session_id, query_id, doc_id) with engagement: the summed ``weight``.

    ``events`` has session_id, query_id, doc_id and either ``action`` (weighed by
    ``weights``) or a numeric ``weight`` column.  Rows without a doc, query or session, and
    actions of weight 0, are not engagements.
    """
    missing = [c for c in ("session_id", "query_id", "doc_id") if c not in events.columns]
    if "weight" not in events.columns and "action" not in events.columns:
        missing.append("action (or weight)")
    if missing:
        raise LayoutError(f"engagement events are missing column(s) {', '.join(missing)}")
    if "weight" in events.columns:
        weight = pd.to_numeric(events["weight"], errors="coerce").to_numpy(dtype=float)
        if not np.all(np.isfinite(weight) & (weight >= 0)):
            raise LayoutError("engagement weights must be finite numbers >= 0")
    else:
        weight = weights.weigh(events["action"])
    keep = (weight > 0) & events[["session_id", "query_id", "doc_id"]].notna().all(
        axis=1).to_numpy()
    frame = pd.DataFrame({"session_id": events["session_id"].to_numpy()[keep],
                          "query_id": events["query_id"].to_numpy()[keep],
                          "doc_id": events["doc_id"].to_numpy()[keep],
                          "weight": weight[keep]})
    return (frame.groupby(["session_id", "query_id", "doc_id"], sort=True, observed=True)
            ["weight"].sum().reset_index())


def _run_positions(rows: RankedRows, queries: pd.Index, depths: np.ndarray) -> pd.DataFrame:
    """(query code, doc, 1-based rank) of a run's rows within each query's depth."""
    every = np.arange(len(rows.docs))
    codes = rows.codes_of(every) if len(every) else np.zeros(0, dtype=np.int64)
    positions = rows.positions_of(every) if len(every) else np.zeros(0, dtype=np.int64)
    inside = codes >= 0
    inside[inside] = positions[inside] < depths[codes[inside]]
    docs = rows.docs.to_numpy()[inside]
    found = pd.DataFrame({"code": codes[inside], "doc_id": docs,
                          "rank": positions[inside] + 1})
    repeated = found.duplicated(["code", "doc_id"], keep=False).to_numpy()
    if repeated.any():
        first = found[repeated].sort_values(["code", "doc_id", "rank"]).iloc[:2]
        raise DuplicateDocError(first["doc_id"].iloc[0], int(first["rank"].iloc[0]),
                                int(first["rank"].iloc[1]), queries[int(first["code"].iloc[0])])
    return found


def _ids(values: pd.Series, as_text: bool) -> pd.Series:
    return values.astype(str) if as_text else values.astype(np.int64)


def replay(events: pd.DataFrame, run_a: pd.DataFrame, run_b: pd.DataFrame, *,
           weights: EngagementWeights = DEFAULT_WEIGHTS, depth: int | None = None,
           permutations: int = 10_000, seed: int = 0, tests: bool = True) -> Replay:
    """Replay every logged session under run A and run B (see the module doc).

    ``events``: session_id, query_id (the *dataset's* query ids, as the runs use), doc_id,
    and ``action`` or ``weight`` — e.g. ``judge_app.io.clicks.match_queries(...).events``.
    Runs are frames with query_id, doc_id and rank or score.  ``depth`` censors both runs at
    that rank (None: each query's longer ranking).  ``tests=False`` skips the paired tests
    (NaN), for speed.  Raises ``ValueError`` when no session has an engaged doc on a
    query either run answers.
    """
    if depth is not None and (isinstance(depth, bool) or int(depth) != depth or depth < 1):
        raise ValueError(f"depth must be a whole number >= 1; got {depth!r}")
    engaged = engaged_docs(events, weights)
    if engaged.empty:
        raise ValueError("no engagement to replay: no event has an engaged action "
                         f"({weights.describe() or 'no weights'}) on a doc")
    as_text = ids_as_text(engaged["query_id"], engaged["doc_id"], run_a["query_id"],
                          run_a["doc_id"], run_b["query_id"], run_b["doc_id"])
    engaged["query_id"] = _ids(engaged["query_id"], as_text)
    engaged["doc_id"] = _ids(engaged["doc_id"], as_text)
    queries = pd.Index(np.sort(engaged["query_id"].unique()))
    codes = queries.get_indexer(engaged["query_id"])
    ranked = [rank_rows(run, queries, as_text) for run in (run_a, run_b)]
    lengths = [rows.lengths for rows in ranked]
    depths = (np.maximum(*lengths) if depth is None
              else np.full(len(queries), int(depth), dtype=np.int64))
    answered = (np.minimum(lengths[0], depths) > 0) | (np.minimum(lengths[1], depths) > 0)

    keep = answered[codes]
    skipped = engaged[~keep]
    engaged = engaged[keep].reset_index(drop=True)
    if engaged.empty:
        raise ValueError(f"no session to replay: neither run answers the queries of the "
                         f"{len(skipped)} engagement(s)")
    codes = codes[keep]
    engaged["depth"] = depths[codes]
    for label, rows in zip("ab", ranked, strict=True):
        found = _run_positions(rows, queries, depths)
        looked = pd.DataFrame({"code": codes, "doc_id": engaged["doc_id"]}).merge(
            found, on=["code", "doc_id"], how="left", sort=False)
        rank = np.array(looked["rank"], dtype=float)
        censored = np.isnan(rank)
        rank[censored] = engaged["depth"].to_numpy()[censored] + 1
        engaged[f"rank_{label}"] = rank.astype(np.int64)
        engaged[f"censored_{label}"] = censored

    sessions = _sessions(engaged)
    per_query = _per_query(sessions, engaged)
    summary = _summary(per_query, permutations, seed, tests)
    basis = ReplayBasis(
        sessions=len(sessions), queries=len(per_query), engagements=len(engaged),
        censored_a=int(engaged["censored_a"].sum()), censored_b=int(engaged["censored_b"].sum()),
        skipped_sessions=int(skipped.groupby(["session_id", "query_id"]).ngroups),
        skipped_queries=int(skipped["query_id"].nunique()))
    settings = {"weights": weights.describe() if "weight" not in events.columns
                else "given", "depth": "longer ranking" if depth is None else int(depth),
                "permutations": permutations, "seed": seed, "delta": "b - a",
                "estimator": "mean over queries of per-query mean delta MRR",
                "bootstrap": "BCa over queries (cluster), 95%"}
    return Replay(summary, basis, per_query, sessions, engaged, settings)


def _sessions(engaged: pd.DataFrame) -> pd.DataFrame:
    w = engaged["weight"].to_numpy()
    ra, rb = engaged["rank_a"].to_numpy(), engaged["rank_b"].to_numpy()
    parts = pd.DataFrame({
        "session_id": engaged["session_id"], "query_id": engaged["query_id"],
        "weight": w, "rr_a": w / ra, "rr_b": w / rb,
        "docs_up": rb < ra, "docs_down": rb > ra, "docs_same": rb == ra,
        "censored_a": engaged["censored_a"], "censored_b": engaged["censored_b"]})
    grouped = parts.groupby(["session_id", "query_id"], sort=True, observed=True)
    sums = grouped[["weight", "rr_a", "rr_b", "docs_up", "docs_down", "docs_same",
                    "censored_a", "censored_b"]].sum()
    sessions = pd.DataFrame({"engaged": grouped.size(), "weight": sums["weight"],
                             "mrr_a": sums["rr_a"] / sums["weight"],
                             "mrr_b": sums["rr_b"] / sums["weight"]})
    sessions["delta"] = sessions["mrr_b"] - sessions["mrr_a"]
    delta = sessions["delta"].to_numpy()
    sessions["outcome"] = np.where(delta > TOLERANCE, "improved",
                                   np.where(delta < -TOLERANCE, "worsened", "unchanged"))
    for column in ("docs_up", "docs_down", "docs_same", "censored_a", "censored_b"):
        sessions[column] = sums[column].astype(np.int64)
    return sessions.reset_index()


def _per_query(sessions: pd.DataFrame, engaged: pd.DataFrame) -> pd.DataFrame:
    outcome = sessions["outcome"].to_numpy()
    frame = pd.DataFrame({"query_id": sessions["query_id"],
                          **{name: outcome == name for name in OUTCOMES},
                          "mrr_a": sessions["mrr_a"], "mrr_b": sessions["mrr_b"],
                          "delta": sessions["delta"]})
    grouped = frame.groupby("query_id", sort=True)
    per_query = grouped.mean()
    per_query.insert(0, "sessions", grouped.size())
    covered = pd.DataFrame({"query_id": engaged["query_id"],
                            "coverage_a": ~engaged["censored_a"].to_numpy(),
                            "coverage_b": ~engaged["censored_b"].to_numpy()}
                           ).groupby("query_id", sort=True)
    per_query.insert(1, "engagements", covered.size())
    per_query = per_query.join(covered.mean())
    return per_query.reset_index()


def _summary(per_query: pd.DataFrame, permutations: int, seed: int, tests: bool
             ) -> ReplaySummary:
    a, b = per_query["mrr_a"].to_numpy(), per_query["mrr_b"].to_numpy()
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
