"""Click logs as a second witness: importing them, replaying sessions over stored runs, and
click-derived grades (COEC) stored under the machine judge ``clicks:coec``.

* :func:`import_clicks` reads a UBI or table log (:func:`judge_app.io.clicks.read_clicks`),
  matches its queries to the dataset's (by id, else normalised text), stores every impression
  and event with the dataset query each matched (or none) in one transaction, and with
  ``as_run`` stores the logged ranking (:func:`judge_app.io.clicks.logged_run`) as a run —
  "A = production as users saw it".
* :func:`replay_runs` replays the stored sessions under two stored runs
  (:func:`metrics.replay.replay`).
* :func:`grade_clicks` grades every (query, doc) with enough impressions by clicks over
  expected clicks (:mod:`metrics.coec`) and appends the grades as expert labels of judge
  ``clicks:coec`` — never as dataset judgments — each label's note holding its COEC figures,
  the settings and the imports it came from.  Label views count them only in label bases that
  ask for the clicks witness (``experts+clicks``).
* :func:`sessions_replayed` is the dashboard's "Sessions replayed" section: the replay per
  query beside the label metric's delta and the experts' win rate, with whether their signs
  agree.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.clicks import MatchReport, format_of, logged_run, match_queries, read_clicks
from judge_app.io.compression import open_decompressed
from judge_app.policies import LABEL_BASES, LabelPolicy, Witness
from judge_app.services.analysis import expert_share, labels_for
from judge_app.services.phases import Progress, say
from judge_app.store import Dataset, Store
from metrics import compare
from metrics.agreement import vote_for_b
from metrics.coec import DEFAULT_MIN_IMPRESSIONS, check_thresholds, coec, coec_grades
from metrics.coec import default_thresholds as default_coec_thresholds
from metrics.engagement import DEFAULT_WEIGHTS, EngagementWeights
from metrics.replay import Replay, replay

CLICKS_JUDGE = f"{Witness.CLICKS.prefix}coec"
"""The machine judge click-derived grades are stored under."""
LOGGED_RUN = "logged"
"""The conventional name of the logged ranking stored as a run (``--as-run logged``)."""


def parse_weights(text: str | None) -> EngagementWeights | None:
    """``"click=1,add_to_cart=2,purchase=3"`` as weights (None stays None); a one-line
    :class:`SxsError` naming the bad part otherwise."""
    if text is None:
        return None
    try:
        return EngagementWeights.parse(text)
    except ValueError as error:
        raise SxsError(f"--weights: {error}") from None


# ---------------------------------------------------------------- importing


@dataclass(frozen=True)
class ClickImportReport:
    """What :func:`import_clicks` stored."""

    import_id: int
    source: str
    impressions: int
    events: int
    sessions: int
    actions: dict[str, int]
    match: MatchReport
    weights: str
    logged_run: str | None
    run_rows: int
    seconds: float

    def __str__(self) -> str:
        actions = ", ".join(f"{name} {count:,}" for name, count in self.actions.items())
        lines = [f"imported click log {self.source} as import {self.import_id} in "
                 f"{self.seconds:.2f} s: {self.impressions:,} impressions, {self.events:,} "
                 f"other events ({actions}), {self.sessions:,} sessions",
                 f"queries: {self.match}",
                 f"engagement weights: {self.weights}"]
        unmatched = self.match.unmatched_queries
        if len(unmatched):
            shown = "; ".join(f"{q!s} ({r} rows)" for q, r in
                              zip(unmatched["query"].head(5), unmatched["rows"].head(5),
                                  strict=True))
            lines.append(f"unmatched log queries (most rows first): {shown}"
                         + (" ..." if len(unmatched) > 5 else ""))
        if self.logged_run is not None:
            lines.append(f"stored the logged ranking as run {self.logged_run!r} "
                         f"({self.run_rows:,} results)")
        return "\n".join(lines)


def _with_dataset_queries(frame: pd.DataFrame, target: pd.Series) -> pd.DataFrame:
    """A log frame with ``log_query_id`` (as logged), ``query_text`` and ``query_id`` the
    dataset query its line matched (NA when none)."""
    return frame.assign(log_query_id=frame["query_id"], query_text=frame["query"],
                        query_id=frame["line"].map(target).astype("string"))


def import_clicks(store: Store, dataset: Dataset, path: str | Path, fmt: str | None = None,
                  weights: EngagementWeights | None = None, as_run: str | None = None,
                  replace: bool = False, first_position: int | None = None,
                  progress: Progress | None = None) -> ClickImportReport:
    """Read, match and store a click log (see the module doc); with ``as_run`` also store the
    logged ranking of the matched impressions as a run of that name (an existing run of that
    name needs ``replace``).  A bad file, a name clash or a log matching no query stores
    nothing (the import and the run are one transaction).  ``weights`` (default click=1,
    add_to_cart=2, purchase=3) are recorded with the import and are the default of
    :func:`replay_runs`."""
    start = time.perf_counter()
    path = Path(path)
    weights = weights or DEFAULT_WEIGHTS
    say(progress, "reading")
    kind = format_of(path, fmt)
    log = read_clicks(path, kind, first_position)
    match = match_queries(log, store.queries(dataset))
    report = match.report
    if report.rows_matched == 0:
        raise SxsError(f"{path}: none of the log's {report.log_queries:,} queries matches a "
                       f"query of dataset {dataset.name!r} (by id or by text); import the "
                       "dataset's queries first")
    run = None
    if as_run is not None:
        if not as_run.strip():
            raise SxsError("--as-run needs a run name")
        if match.impressions.empty:
            raise SxsError(f"{path}: no impression matched a dataset query, so there is no "
                           "logged ranking to store as a run")
        run = logged_run(match.impressions)[["query_id", "doc_id", "rank"]]
    target = pd.concat([match.impressions, match.events]).set_index("line")["query_id"]
    impressions = _with_dataset_queries(log.impressions, target)
    events = _with_dataset_queries(log.events, target)
    counts = {"impressions": len(impressions), "events": len(events),
              "sessions": report.sessions, "sessions_matched": report.sessions_matched,
              "log_queries": report.log_queries,
              "queries_matched": report.matched_by_id + report.matched_by_text}
    say(progress, "storing")
    import_id = store.put_click_import(
        dataset, source=str(path), fmt=kind, digest=_digest(path), counts=counts,
        match_report=report.to_dict(), weights=weights.describe(), impressions=impressions,
        events=events, logged_run=as_run, run=run, replace=replace)
    run_rows = 0 if run is None else len(run)
    return ClickImportReport(
        import_id=import_id, source=str(path), impressions=len(impressions),
        events=len(events), sessions=log.sessions(),
        actions={str(k): int(v) for k, v in log.action_counts().items()}, match=report,
        weights=weights.describe(), logged_run=as_run, run_rows=run_rows,
        seconds=time.perf_counter() - start)


def _digest(path: Path) -> str:
    """SHA-256 of the log's decompressed bytes: a log is the same log plain or compressed
    (the store refuses a digest it already holds)."""
    digest = hashlib.sha256()
    with open_decompressed(path) as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------- replay


def stored_weights(store: Store, dataset: Dataset) -> EngagementWeights:
    """The engagement weights recorded with the dataset's latest click import (the default
    weights when it has none)."""
    imports = store.click_imports(dataset)
    if imports.empty or not str(imports["weights"].iloc[-1]).strip():
        return DEFAULT_WEIGHTS
    return EngagementWeights.parse(str(imports["weights"].iloc[-1]))


def engagement_events(store: Store, dataset: Dataset) -> pd.DataFrame:
    """Stored events whose query matched a dataset query (session_id, query_id, doc_id,
    action, rank) — what replay and COEC read."""
    if not store.has_clicks(dataset):
        raise SxsError(f"dataset {dataset.name!r} has no click log (sxs import clicks FILE "
                       f"-d {dataset.name})")
    frame = store.click_rows(dataset, "events", matched_only=True)
    return frame[["session_id", "query_id", "doc_id", "action", "rank"]]


def replay_runs(store: Store, dataset: Dataset, run_a: str, run_b: str, *,
                depth: int | None = None, weights: EngagementWeights | None = None,
                permutations: int = 10_000, seed: int = 0, engine: str | None = None,
                source: str | Path | None = None, **engine_options: object) -> Replay:
    """Replay the dataset's logged sessions under run A and run B (deltas B - A; see
    :mod:`metrics.replay`).  ``weights`` default to those recorded at import (the default
    weights for a log read from files).  Without ``engine`` and ``source`` the stored log is
    replayed in memory (per-session rows included); with ``engine`` (store, duckdb, spark;
    ``source`` a converted log's files for the last two, duckdb by default) the plan of
    :mod:`judge_app.services.click_engines` gives the same figures from per-query
    aggregates (``engine_options`` go to its ``open_engine``)."""
    if engine is not None or source is not None:
        from judge_app.services.click_engines import open_engine, replay_with

        chosen = weights if weights is not None else (
            stored_weights(store, dataset) if source is None else DEFAULT_WEIGHTS)
        with open_engine(store, dataset, engine or "duckdb", source,
                         **engine_options) as opened:  # type: ignore[arg-type]
            return replay_with(opened, store, dataset, run_a, run_b, depth=depth,
                               weights=chosen, permutations=permutations, seed=seed)
    events = engagement_events(store, dataset)
    chosen = weights if weights is not None else stored_weights(store, dataset)
    runs = [store.run(dataset, name) for name in (run_a, run_b)]
    try:
        return replay(events, *runs, weights=chosen, depth=depth, permutations=permutations,
                      seed=seed)
    except ValueError as error:
        raise SxsError(f"cannot replay {run_a!r} against {run_b!r} on dataset "
                       f"{dataset.name!r}: {error}") from None


# ---------------------------------------------------------------- COEC grades


@dataclass(frozen=True)
class ClickGrades:
    """What :func:`grade_clicks` computed and stored."""

    judge: str
    pairs: int
    graded: int
    added: int
    min_impressions: int
    thresholds: tuple[float, ...]
    imports: tuple[int, ...]
    grades: pd.DataFrame  # query_id, doc_id, impressions, clicks, expected_clicks, coec, grade
    curve: pd.DataFrame  # rank, impressions, clicks, ctr
    grade_counts: dict[str, int]
    curve_basis: str = ""  # what the position-bias curve stood on (metrics.coec.curve_basis)

    def why_none(self) -> str:
        """Why no pair was graded (empty when some were): too few impressions, or no
        expected click (the log has no click at the ranks the pairs were shown at)."""
        if self.graded:
            return ""
        enough = self.grades[self.grades["impressions"] >= self.min_impressions]
        if enough.empty:
            most = int(self.grades["impressions"].max()) if len(self.grades) else 0
            return (f"nothing graded: no shown (query, doc) pair of the dataset's queries has "
                    f"{self.min_impressions} impressions (the most any has: {most:,}); lower "
                    "--min-impressions")
        return (f"nothing graded: the {len(enough):,} pairs with {self.min_impressions}+ "
                "impressions expect no click — the log has no click at the ranks they were "
                "shown at, so COEC (clicks / expected clicks) is undefined")

    def __str__(self) -> str:
        counts = ", ".join(f"{name} {n:,}" for name, n in self.grade_counts.items())
        kept = (f"stored {self.added:,} labels of judge {self.judge!r}" if self.added
                else self.why_none() or f"nothing new to store: every pair graded here is "
                f"already in with this grade of {self.judge!r}")
        origin = (f"click imports {', '.join(map(str, self.imports))}" if self.imports
                  else "the log's files")
        curve = f"\nposition bias: {self.curve_basis}" if self.curve_basis else ""
        return (f"COEC over {self.pairs:,} shown (query, doc) pairs of {origin}: "
                f"{self.graded:,} graded with at least "
                f"{self.min_impressions} impressions (thresholds "
                f"{', '.join(f'{t:g}' for t in self.thresholds)}): {counts or 'none'}{curve}\n"
                f"{kept}; they count only in label bases with clicks (e.g. --witness clicks)")


def grade_clicks(store: Store, dataset: Dataset,
                 min_impressions: int = DEFAULT_MIN_IMPRESSIONS,
                 thresholds: tuple[float, ...] | None = None, *, engine: str | None = None,
                 source: str | Path | None = None, **engine_options: object) -> ClickGrades:
    """Grade every shown (query, doc) by COEC and append the grades as labels of
    :data:`CLICKS_JUDGE` (see the module doc and :mod:`metrics.coec`).  Each label's note is
    JSON: coec, impressions, clicks, expected_clicks, min_impressions, thresholds, imports
    (and ``source`` when the log was read from files).  Grading again with the same
    settings over the same imports adds nothing.  With ``engine`` (store, duckdb, spark;
    ``source`` a converted log's files for the last two) the counts come from
    :func:`judge_app.services.click_engines.coec_with`, equal to :func:`metrics.coec.coec`'s;
    ``engine_options`` go to :func:`~judge_app.services.click_engines.open_engine`."""
    try:
        cuts = (default_coec_thresholds(dataset.scale) if thresholds is None
                else check_thresholds(thresholds, dataset.scale))
    except ValueError as error:
        raise SxsError(str(error)) from None
    if engine is None and source is None:
        engagement_events(store, dataset)  # refuses a dataset without a click log
        # every row of the log: the position-bias curve is estimated over all its queries;
        # rows of queries outside the dataset (query_id missing) are graded nowhere
        events = store.click_rows(dataset, "events")[
            ["session_id", "query_id", "doc_id", "action", "rank"]]
        impressions = store.click_rows(dataset, "impressions")
        if impressions["query_id"].isna().all():
            raise SxsError(f"dataset {dataset.name!r} has no impression matched to its "
                           "queries: COEC needs impressions")
        try:
            judged = coec(impressions, events, min_impressions=min_impressions)
        except ValueError as error:
            raise SxsError(str(error)) from None
    else:
        from judge_app.services.click_engines import coec_with, open_engine

        with open_engine(store, dataset, engine or "duckdb", source,
                         **engine_options) as opened:  # type: ignore[arg-type]
            judged = coec_with(opened, store, dataset, min_impressions)
    pairs = judged.pairs.assign(grade=coec_grades(judged.pairs["coec"], dataset.scale, cuts))
    imports = (tuple(int(i) for i in store.click_imports(dataset)["import_id"])
               if source is None else ())
    graded = pairs[pairs["grade"].notna()].reset_index(drop=True)
    settings = {"min_impressions": int(min_impressions), "thresholds": list(cuts),
                "imports": list(imports), "curve": judged.settings["curve"]}
    if source is not None:
        settings["source"] = str(source)
    notes = [json.dumps({"coec": round(float(r.coec), 6), "impressions": int(r.impressions),
                         "clicks": int(r.clicks),
                         "expected_clicks": round(float(r.expected_clicks), 6), **settings})
             for r in graded.itertuples()]
    labels = pd.DataFrame({"query_id": graded["query_id"].astype(str),
                           "doc_id": graded["doc_id"].astype(str),
                           "grade": graded["grade"].astype("int64"), "judge": CLICKS_JUDGE,
                           "note": notes})
    key = hashlib.sha256(json.dumps(
        [settings, labels[["query_id", "doc_id", "grade"]].to_numpy().tolist()],
        default=str).encode()).hexdigest()[:16]
    added = store.append_expert_labels(dataset, labels, f"{CLICKS_JUDGE}:{key}") \
        if len(labels) else 0
    names = dict(dataset.scale.grades)
    counts = labels["grade"].value_counts()
    return ClickGrades(
        judge=CLICKS_JUDGE, pairs=len(pairs), graded=len(graded), added=added,
        min_impressions=int(min_impressions), thresholds=tuple(cuts), imports=imports,
        grades=pairs, curve=judged.curve,
        grade_counts={f"{g} {names[g]}": int(counts.get(g, 0)) for g in sorted(names)},
        curve_basis=str(judged.settings["curve"]))


# ---------------------------------------------------------------- the dashboard section


@dataclass(frozen=True)
class SessionsReplayed:
    """The dashboard's "Sessions replayed" section for run A against run B.

    * ``replay``: the :class:`~metrics.replay.Replay` (summary and basis).
    * ``chart``: position, query_id, text, delta, sessions — per-query ΔMRR, sorted.
    * ``witnesses``: per query, the three witnesses side by side: ``label_delta`` (NDCG@k,
      B - A, on the labels of ``basis``), ``expert_win_rate`` (B's share of decided votes)
      with ``votes`` (decided), ``replay_delta`` (ΔMRR) with ``sessions``, and ``signs``:
      ``agree`` / ``disagree`` when two or more witnesses speak (a zero delta or a 0.5
      win rate is a sign of its own), ``one witness`` otherwise.
    * ``counts``: how many queries stand behind each figure.
    """

    run_a: str
    run_b: str
    stamp: str
    replay: Replay
    chart: pd.DataFrame
    witnesses: pd.DataFrame
    counts: dict[str, int]


def has_clicks(store: Store, dataset: Dataset) -> bool:
    """Whether the dataset has click data (the section is shown only then)."""
    return store.has_clicks(dataset)


def _signs(frame: pd.DataFrame) -> pd.Series:
    signs = pd.DataFrame({
        "label": np.sign(frame["label_delta"].round(12)),
        "experts": np.sign((frame["expert_win_rate"] - 0.5).round(12)),
        "replay": np.sign(frame["replay_delta"].round(12))})
    present = signs.notna().sum(axis=1)
    spread = signs.max(axis=1) - signs.min(axis=1)
    return pd.Series(np.where(present < 2, "one witness",
                              np.where(spread == 0, "agree", "disagree")), index=frame.index)


def sessions_replayed(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int = 10,
                      policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                      basis: str = LABEL_BASES[0], permutations: int = 2000, seed: int = 0
                      ) -> SessionsReplayed | None:
    """The "Sessions replayed" section (see :class:`SessionsReplayed`); None when the dataset
    has no click data."""
    if not store.has_clicks(dataset):
        return None
    result = replay_runs(store, dataset, run_a, run_b, permutations=permutations, seed=seed)
    texts = store.queries(dataset).set_index("query_id")["text"]
    per_query = result.per_query.assign(query_id=lambda f: f["query_id"].astype(str))
    chart = per_query.sort_values(["delta", "query_id"], ignore_index=True)
    chart = chart.assign(position=np.arange(len(chart)),
                         text=chart["query_id"].map(texts).fillna(""))
    chart = chart[["position", "query_id", "text", "delta", "sessions"]]

    measure = f"ndcg@{k}"
    qrels = labels_for(store, dataset, True, policy, basis)
    labelled = pd.Series(dtype=float)
    if len(qrels):
        runs = [store.run(dataset, name) for name in (run_a, run_b)]
        compared = compare(*runs, qrels, [measure], max_grade=dataset.scale, tests=False)
        rows = compared.per_query[compared.per_query["measure"] == measure]
        labelled = rows.set_index(rows["query_id"].astype(str))["delta"]
    votes = store.preferences(dataset, run_a, run_b, include_stale=False)  # oriented A/B
    if len(votes):
        outcome = votes.assign(vote=vote_for_b(votes).to_numpy(),
                               query_id=votes["query_id"].astype(str))
        decided = outcome[outcome["vote"] != 0]
        tally = decided.groupby("query_id")["vote"].agg(
            votes="size", wins_b=lambda v: int((v > 0).sum()))
        win_rate = tally["wins_b"] / tally["votes"]
    else:
        tally = pd.DataFrame({"votes": pd.Series(dtype="int64")})
        win_rate = pd.Series(dtype=float)
    replayed = per_query.set_index("query_id")
    ids = sorted(set(replayed.index) | set(labelled.index) | set(win_rate.index))
    witnesses = pd.DataFrame({"query_id": ids})
    witnesses["text"] = witnesses["query_id"].map(texts).fillna("")
    witnesses["label_delta"] = witnesses["query_id"].map(labelled).astype(float)
    witnesses["expert_win_rate"] = witnesses["query_id"].map(win_rate).astype(float)
    witnesses["votes"] = witnesses["query_id"].map(tally["votes"]).fillna(0).astype("int64")
    witnesses["replay_delta"] = witnesses["query_id"].map(replayed["delta"]).astype(float)
    witnesses["sessions"] = (witnesses["query_id"].map(replayed["sessions"]).fillna(0)
                             .astype("int64"))
    witnesses["signs"] = _signs(witnesses)
    counts = {f"label Δ {measure} ({basis})": int(witnesses["label_delta"].notna().sum()),
              "expert win rate (decided votes)": int(witnesses["expert_win_rate"].notna().sum()),
              "replay ΔMRR (sessions)": int(witnesses["replay_delta"].notna().sum()),
              "two or more witnesses": int((witnesses["signs"] != "one witness").sum()),
              "signs agree": int((witnesses["signs"] == "agree").sum())}
    share = expert_share(store, dataset, policy, basis)
    stamp = (f"A = {run_a}, B = {run_b}; label Δ: {measure} on {share.name} "
             f"({share.describe()}); replay weights "
             f"{result.settings['weights']}, depth {result.settings['depth']}")
    return SessionsReplayed(run_a, run_b, stamp, result, chart, witnesses, counts)
