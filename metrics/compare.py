"""Compare two runs on the same qrels: per-query deltas, RBO between them, paired tests.

``compare(run_a, run_b, qrels, ["ndcg@10", "ndcg_f@10"])`` returns one :class:`Comparison`
value that renders as a table (``str``), a dict or DataFrames.  Deltas are ``b - a``: a
positive delta means the candidate ``b`` scores higher.

Aligning the runs' queries is a named step: both runs are evaluated over the same qrels
queries (with ``missing_queries="drop"`` only the queries both runs answer are kept).  RBO is
computed for those queries for every ``rbo`` measure given (each its own p and depth), or,
when none is, as ``rbo@k`` with p = 0.9 and k the deepest cutoff asked (the longest ranking of
either run when every measure is full depth); and for every query of either run by
:func:`rbo_between`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from metrics.errors import MeasureError
from metrics.evaluate import (
    MissingQueries,
    prepare_qrels,
    run_matrix,
    score_queries,
    unlabelled_run_queries,
)
from metrics.layout import (
    RankedRows,
    check_no_repeats,
    ids_as_text,
    rank_rows,
    run_query_ids,
    top_docs,
)
from metrics.measures import Measure, make_measure, parse_measures
from metrics.rbo import check_persistence, rbo_matrix
from metrics.scale import GradeScale
from metrics.significance import paired_tests


@dataclass(frozen=True)
class Comparison:
    """The result of :func:`compare`."""

    summary: pd.DataFrame  # one row per measure: means, delta, p-values, CI, wins/ties/losses
    per_query: pd.DataFrame  # query_id, measure, a, b, delta
    rbo_frames: dict[str, pd.DataFrame]  # per RBO measure, in the order given: query_id ->
    # min, residual, ext
    rbo_measures: tuple[Measure, ...]
    settings: dict[str, object]

    @property
    def rbo(self) -> pd.DataFrame:
        """The first RBO measure's frame (query_id -> min, residual, ext)."""
        return self.rbo_frames[str(self.rbo_measure)]

    @property
    def rbo_measure(self) -> Measure:
        """The first RBO measure given (or the default one)."""
        return self.rbo_measures[0]

    def to_dict(self) -> dict[str, object]:
        return {
            "summary": self.summary.reset_index().to_dict(orient="records"),
            "rbo": [{"measure": name, "mean_ext": float(frame["ext"].mean()),
                     "mean_min": float(frame["min"].mean())}
                    for name, frame in self.rbo_frames.items()],
            "settings": self.settings,
        }

    def __str__(self) -> str:
        columns = ["mean_a", "mean_b", "delta", "p_randomization", "p_t", "p_wilcoxon",
                   "ci_low", "ci_high", "wins", "ties", "losses"]
        table = self.summary[columns].to_string(float_format=lambda v: f"{v:.4f}")
        lines = [f"{name} between the runs (mean ext): {frame['ext'].mean():.4f} "
                 f"over {len(frame)} queries" for name, frame in self.rbo_frames.items()]
        return "\n".join([table, *lines])


def rbo_between(run_a: pd.DataFrame, run_b: pd.DataFrame, depth: int = 10, p: float = 0.9,
                query_ids: pd.Index | None = None) -> pd.DataFrame:
    """RBO@depth (min, residual, ext) between two runs for each query of either run.

    A query only one run answers is compared against an empty ranking (ext 0).  Pass
    ``query_ids`` to choose the queries (ids of the same kind as the runs'; absent queries are
    two empty rankings: ext 1).
    """
    check_persistence(p)
    as_text = ids_as_text(*(r[c] for r in (run_a, run_b) for c in ("query_id", "doc_id")))
    if query_ids is None:
        query_ids = run_query_ids(run_a, as_text).union(run_query_ids(run_b, as_text))
        query_ids = query_ids.sort_values()
    return _rbo_frame(run_a, run_b, depth, p, pd.Index(query_ids), as_text)


def _rbo_frame(run_a: pd.DataFrame, run_b: pd.DataFrame, depth: int, p: float,
               query_ids: pd.Index, as_text: bool) -> pd.DataFrame:
    tops = []
    for run in (run_a, run_b):
        rows = rank_rows(run, query_ids, as_text)
        top = top_docs(rows, len(query_ids), depth)
        check_no_repeats(rows, top.picked, top.picked_hashes, query_ids)
        tops.append(top)
    a, b = tops
    low, residual, ext = rbo_matrix(a.hashes, a.doc_ids, a.lengths,
                                    b.hashes, b.doc_ids, b.lengths, p)
    return pd.DataFrame({"min": low, "residual": residual, "ext": ext},
                        index=query_ids.rename("query_id"))


def compare(run_a: pd.DataFrame, run_b: pd.DataFrame, qrels: pd.DataFrame,
            measures: str | Sequence[str | Measure], *,
            max_grade: float | GradeScale | None = None,
            missing_queries: MissingQueries = "zero", permutations: int = 10_000,
            seed: int = 0, tests: bool = True) -> Comparison:
    """Per-query deltas (b - a), RBO between the runs and paired tests for each measure.

    ``tests=False`` skips the paired tests (their columns are NaN), for speed on large runs.
    """
    parsed = parse_measures(measures if isinstance(measures, str) else list(measures))
    pairwise = [m for m in parsed if m.definition.pairwise]
    scored = [m for m in parsed if not m.definition.pairwise]
    if not scored:
        raise MeasureError("compare needs at least one per-run measure, e.g. ndcg@10")
    prepared = prepare_qrels(qrels, run_a, run_b)
    index = prepared.index
    ranked = [rank_rows(run, index.query_ids, index.ids_as_text) for run in (run_a, run_b)]
    rbo_measures = list(dict.fromkeys(pairwise)) or [_default_rbo(scored, ranked)]
    frames, matrices = [], []
    for rows in ranked:
        matrix = run_matrix(rows, prepared, [*scored, *rbo_measures])
        frames.append(score_queries(matrix, prepared, scored, max_grade, "zero"))
        matrices.append(matrix)
    answered = (matrices[0].lengths > 0) & (matrices[1].lengths > 0)
    keep = np.ones(len(index.query_ids), dtype=bool) if missing_queries == "zero" else answered
    a_values, b_values = frames[0][keep], frames[1][keep]

    summary_rows, long_parts = [], []
    for m in scored:
        name = str(m)
        a, b = a_values[name].to_numpy(), b_values[name].to_numpy()
        delta = b - a
        if tests:
            outcome = asdict(paired_tests(a, b, permutations=permutations, seed=seed))
        else:
            outcome = dict.fromkeys(("n", "p_randomization", "p_t", "p_wilcoxon", "ci_low",
                                     "ci_high"), np.nan) | {"n": len(a)}
        record = {"measure": name, "mean_a": a.mean() if len(a) else np.nan,
                  "mean_b": b.mean() if len(b) else np.nan,
                  "delta": delta.mean() if len(delta) else np.nan,
                  **{k: v for k, v in outcome.items() if k != "mean_delta"},
                  "wins": int((delta > 0).sum()), "ties": int((delta == 0).sum()),
                  "losses": int((delta < 0).sum())}
        summary_rows.append(record)
        long_parts.append(pd.DataFrame({"query_id": a_values.index, "measure": name,
                                        "a": a, "b": b, "delta": delta}))
    summary = pd.DataFrame(summary_rows).set_index("measure")
    per_query = pd.concat(long_parts, ignore_index=True)

    ma, mb = matrices
    rbo_frames = {}
    for m in rbo_measures:
        k = m.cutoff
        low, residual, ext = rbo_matrix(
            ma.doc_hashes[keep, :k], ma.doc_ids[keep, :k], ma.lengths[keep],
            mb.doc_hashes[keep, :k], mb.doc_ids[keep, :k], mb.lengths[keep], m.param("p"))
        rbo_frames[str(m)] = pd.DataFrame({"min": low, "residual": residual, "ext": ext},
                                          index=index.query_ids[keep].rename("query_id"))
    settings = {"missing_queries": missing_queries, "max_grade": str(max_grade),
                "permutations": permutations, "seed": seed, "delta": "b - a",
                "queries": int(keep.sum()), "queries_judged": len(index.query_ids),
                "queries_not_answered": {side: int((m.lengths == 0).sum())
                                         for side, m in zip("ab", matrices, strict=True)},
                "queries_without_labels": {
                    side: unlabelled_run_queries(prepared, rows)
                    for side, rows in zip("ab", ranked, strict=True)}}
    return Comparison(summary, per_query, rbo_frames, tuple(rbo_measures), settings)


def _default_rbo(scored: list[Measure], ranked: list[RankedRows]) -> Measure:
    """rbo@k, p = 0.9, k the deepest cutoff asked, or the longest ranking of either run."""
    cutoffs = [m.cutoff for m in scored if m.cutoff is not None]
    depth = max(cutoffs) if cutoffs else max(int(rows.lengths.max(initial=1)) for rows in ranked)
    return make_measure("rbo", depth)
