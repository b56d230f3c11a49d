"""Is B better yet?  The store's side of issue 22: what :mod:`metrics.decision`,
:mod:`metrics.judging_order`, :mod:`metrics.judging_simulation` and :mod:`metrics.sequential`
need, read from the store, and their answers per witness.  No statistics here.

What each witness stands on:

* **labels**: the two runs' top k (``store.run(..., depth=k)``, k the deepest measure's
  cutoff) and the labels known so far: the filled label set (the dataset's judgments with the
  labels of ``basis`` filling the gaps under ``policy``, :func:`~judge_app.services.analysis.
  labels_for`), so ``sxs decide`` stands on the labels ``sxs compare --filled`` does; the
  grades an unjudged doc may take are the dataset's scale values.
* **expert votes**: the pair's current votes in the order they were cast, leaving out stale
  votes (cast on a ranking since replaced) and those of excluded judges, as the dashboard
  does; ties and "both bad" are counted and left out of the test
  (:func:`metrics.sequential.sequential_votes`).

:func:`simulate` replays judging with an oracle's grades read from a qrels file with the
store's TREC reader; it reads the store and never writes it.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import SxsError
from judge_app.io import labels as label_files
from judge_app.io import trec
from judge_app.policies import LABEL_BASES, ExpertShare, LabelPolicy
from judge_app.services.analysis import expert_share, filled_description, labels_for
from judge_app.services.consensus_labels import ensure_consensus
from judge_app.services.judge_standing import left_out_line
from judge_app.store import Dataset, Store
from metrics.decision import (
    Decision,
    assess,
    check_confidence,
    decide_measures,
    measure_spec,
    pool_observed_delta,
)
from metrics.decision import vote_values as values_of
from metrics.judging_order import JudgingOrder, parse_order, pool_order
from metrics.judging_pool import JudgingPool, empty_labels, judging_pool, pool_from_rows
from metrics.judging_simulation import JudgingReplay, simulate_judging
from metrics.measures import parse_measure
from metrics.sequential import SequentialWinRate, sequential_votes

DEFAULT_MEASURE = "ndcg_m@10"
START_FROM: tuple[str, ...] = ("none", "dataset")
"""Where a judging replay starts: no label, or the labels the store holds (the filled set)."""


@dataclass(frozen=True)
class LabelsUsed:
    """The labels a decision stands on: the label set's name, the labels (query_id, doc_id,
    grade) and a description.  Read with the pool (:func:`read_pool`), ``frame`` holds the
    pool's judged pairs only — the labels outside the pool enter NDCG's ideal as counts —
    while the description counts every label of the set; there it is built when first read
    (``read`` gives it)."""

    name: str
    read: pd.DataFrame | Callable[[], pd.DataFrame] = field(repr=False)
    description: str

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The labels (query_id, doc_id, grade)."""
        return self.read() if callable(self.read) else self.read


@dataclass(frozen=True)
class DecisionReport:
    """The verdict of each witness on run B against run A."""

    dataset: str
    run_a: str
    run_b: str
    confidence: float
    labels: LabelsUsed
    decisions: tuple[Decision, ...]  # one per measure, in the order asked
    votes: SequentialWinRate

    @property
    def decided(self) -> bool:
        """Whether the labels verdict on the first measure is decided."""
        return self.decisions[0].verdict.decided

    def to_dict(self) -> dict[str, object]:
        """Every figure, JSON-ready: a figure that is not finite (the votes' rate with no
        vote, the test's threshold on one query) is None."""
        return _finite({"dataset": self.dataset, "run_a": self.run_a, "run_b": self.run_b,
                "confidence": self.confidence, "decided": self.decided,
                "labels": {"name": self.labels.name, "description": self.labels.description,
                           "decisions": [d.to_dict() for d in self.decisions]},
                "votes": votes_dict(self.votes)})


def _finite(value: object) -> object:
    """``value`` with every NaN or infinite float inside it (dicts, lists) made None."""
    if isinstance(value, dict):
        return {key: _finite(v) for key, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def votes_dict(votes: SequentialWinRate) -> dict[str, object]:
    """The sequential test's figures, its verdict by value and in words."""
    out = {name: getattr(votes, name) for name in votes.__dataclass_fields__}
    out["verdict"] = votes.verdict.value
    out["description"] = votes.description
    return out


def _measures(measures: Iterable[str]) -> list[str]:
    """The measures asked for, canonical and checked (each decidable), in order, once each."""
    parsed = [str(parse_measure(m)) for m in measures]
    if not parsed:
        raise SxsError("give at least one measure, e.g. -m ndcg_m@10")
    return list(dict.fromkeys(parsed))


def _check_runs(store: Store, dataset: Dataset, run_a: str, run_b: str) -> None:
    if run_a == run_b:
        raise SxsError(f"run A and run B are both {run_a!r}: name two different runs")
    for name in (run_a, run_b):
        store.run_id(dataset, name)  # NotFound names the runs there are


def tops(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int
         ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The two runs' top ``k`` (query_id, doc_id, rank, score)."""
    _check_runs(store, dataset, run_a, run_b)
    return store.run(dataset, run_a, depth=k), store.run(dataset, run_b, depth=k)


def labels_so_far(store: Store, dataset: Dataset,
                  policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                  basis: str = LABEL_BASES[0]) -> LabelsUsed:
    """The filled label set (module doc), named as the analysis reports name it."""
    frame = labels_for(store, dataset, True, policy, basis)
    return _labels_used(store, dataset, frame, len(frame), policy, basis)


def _labels_used(store: Store, dataset: Dataset, frame: pd.DataFrame | Callable[[], pd.DataFrame],
                 count: int, policy: LabelPolicy | str, basis: str,
                 share: ExpertShare | None = None) -> LabelsUsed:
    if share is None:
        share = expert_share(store, dataset, policy, basis)
    description = filled_description(count, share)
    left_out = left_out_line(store, dataset)  # excluded judges' labels and votes
    return LabelsUsed(share.name, frame,
                      f"{description}; {left_out}" if left_out else description)


def read_pool(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
              policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0]
              ) -> tuple[JudgingPool, LabelsUsed]:
    """The two runs' depth-``k`` judging pool with the filled labels (module doc), read in
    one statement (:meth:`~judge_app.store.Store.pool_labels`,
    :func:`metrics.judging_pool.pool_from_rows`): the pool :func:`metrics.judging_pool.
    judging_pool` builds from :func:`tops` and :func:`labels_so_far` (a run whose stored
    ranks are not positions 1..m is read that way, which re-ranks it)."""
    found, counts, share = _pool_read(store, dataset, run_a, run_b, k, policy, basis)
    if found is None:
        top_a, top_b = tops(store, dataset, run_a, run_b, k)
        used = labels_so_far(store, dataset, policy, basis)
        return judging_pool(top_a, top_b, used.frame, k, dataset.scale), used
    return found, _labels_used(store, dataset, lambda: _judged_pairs(found),
                               int(counts["labels"].sum()), policy, basis, share)


def pool_only(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
              policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0]
              ) -> JudgingPool:
    """The pool of :func:`read_pool` without the description of its labels (the judging
    order and the vote queue read no more)."""
    found, _, _ = _pool_read(store, dataset, run_a, run_b, k, policy, basis)
    if found is None:
        top_a, top_b = tops(store, dataset, run_a, run_b, k)
        found = judging_pool(top_a, top_b, labels_for(store, dataset, True, policy, basis), k,
                             dataset.scale)
    return found


def _pool_read(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
               policy: LabelPolicy | str, basis: str
               ) -> tuple[JudgingPool | None, pd.DataFrame, ExpertShare]:
    _check_runs(store, dataset, run_a, run_b)
    if LabelPolicy(policy) is LabelPolicy.DAWID_SKENE:
        ensure_consensus(store, dataset, basis)
    pairs, counts, share = store.pool_labels(dataset, run_a, run_b, k, policy, basis)
    return pool_from_rows(pairs, counts, k, dataset.scale), counts, share


def _judged_pairs(pool: JudgingPool) -> pd.DataFrame:
    """The pool's judged pairs (query_id, doc_id, grade)."""
    judged = np.flatnonzero(pool.judged)
    return pd.DataFrame({"query_id": pool.query_ids[pool.query[judged]],
                         "doc_id": pool.doc_id[judged], "grade": pool.grade[judged]})


_NO_VOTES = pd.DataFrame({"run_a": pd.Series([], dtype=object),
                          "run_b": pd.Series([], dtype=object),
                          "left_run": pd.Series([], dtype=object),
                          "choice": pd.Series([], dtype=object)})
"""No vote: what :func:`metrics.sequential.sequential_votes` reads of a votes frame."""


def expert_votes(store: Store, dataset: Dataset, run_a: str, run_b: str,
                 confidence: float) -> SequentialWinRate:
    """The always-valid test of the experts' votes on the pair (module doc); a pair no vote
    was ever cast on is the test of no vote (the votes' views are not read)."""
    if not store.has_votes(dataset, run_a, run_b):
        return sequential_votes(_NO_VOTES, confidence)
    votes = store.preferences(dataset, run_a, run_b)
    kept = votes[~votes["stale"].astype(bool) & ~votes["excluded"].astype(bool)]
    return sequential_votes(kept.reset_index(drop=True), confidence)


def decide_runs(store: Store, dataset: Dataset, run_a: str, run_b: str,
                measures: Iterable[str] = (DEFAULT_MEASURE,), confidence: float = 0.95,
                policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0],
                seed: int = 0) -> DecisionReport:
    """Each witness's verdict on ``run_b`` against ``run_a`` (module doc).  The measures
    share their work (:func:`metrics.decision.decide_measures`: one pool per cutoff, read
    by :func:`read_pool`); NDCG-f's observed Δ comes from the pool too
    (:func:`metrics.decision.pool_observed_delta`: the pool holds the runs' top k, all it
    reads)."""
    check_confidence(confidence)
    names = _measures(measures)
    specs = [measure_spec(m, dataset.scale) for m in names]  # refuses an undecidable one
    pools = {}
    for k in dict.fromkeys(s.k for s in specs):
        pools[k], used = read_pool(store, dataset, run_a, run_b, k, policy, basis)
    observed = {str(s.measure): pool_observed_delta(pools[s.k], s.measure)
                for s in specs if s.measure.name == "ndcg_f"}
    decisions = decide_measures(pools, names, confidence=confidence, seed=seed,
                                observed=observed)
    votes = expert_votes(store, dataset, run_a, run_b, confidence)
    return DecisionReport(dataset.name, run_a, run_b, float(confidence), used, decisions,
                          votes)


def vote_values(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
                policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0],
                seed: int = 0) -> pd.Series:
    """Per query of the two runs, how much a vote on it moves the decision on NDCG-m@k with
    the labels so far (:func:`metrics.decision.vote_values`): the key of the vote queue
    under policy ``moves_decision``."""
    pool = pool_only(store, dataset, run_a, run_b, k, policy, basis)
    return values_of(assess(pool, f"ndcg_m@{k}", seed=seed))


def backfill_next(store: Store, dataset: Dataset, run_a: str, run_b: str,
                  batch: int | None = 20,
                  order: JudgingOrder | str = JudgingOrder.DECISION,
                  measure: str = DEFAULT_MEASURE,
                  policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0],
                  seed: int = 0) -> pd.DataFrame:
    """The next ``batch`` unjudged (query_id, doc_id) pairs of the two runs' depth-k pool in
    ``order`` (:func:`metrics.judging_order.judging_order`): query_id, doc_id, rank_a, rank_b,
    weight, value.  ``batch`` None: every unjudged pair (the backfill page's decision order,
    :mod:`judge_app.services.backfill_order`), of which any ``batch`` is the head."""
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int)
                              or batch < 1):
        raise SxsError(f"batch must be a positive whole number; got {batch!r}")
    order = parse_order(order)
    (name,) = _measures([measure])
    spec = measure_spec(name, dataset.scale)
    pool = pool_only(store, dataset, run_a, run_b, spec.k, policy, basis)
    found = pool_order(pool, name, order=order, seed=seed, limit=batch)
    return found.reset_index(drop=True)


def read_oracle(store: Store, dataset: Dataset, path: str | Path) -> pd.DataFrame:
    """An oracle's grades (query_id, doc_id, grade) from a TREC qrels (or SMART) file, read
    and scale-checked as ``sxs import qrels`` reads it; a pair listed twice takes its last
    grade.  Nothing is stored."""
    raw, _ = store.trec_qrels_rows(dataset, trec.TrecFile(Path(path)))
    read = label_files.read_trec_judgments(raw, dataset.scale, str(path), on_conflict="last")
    return read.frame[["query_id", "doc_id", "grade"]]


def simulate(store: Store, dataset: Dataset, run_a: str, run_b: str, oracle: str | Path,
             orders: Iterable[JudgingOrder | str] = (JudgingOrder.DECISION,),
             measure: str = DEFAULT_MEASURE, confidence: float = 0.95,
             start_from: str = "none", batch: int = 1,
             policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0],
             seed: int = 0) -> list[JudgingReplay]:
    """Replay judging the pair's depth-k pool with the ``oracle`` file's grades, one replay
    per order (:func:`metrics.judging_simulation.simulate_judging`), from no label
    (``start_from`` none) or from the store's labels (dataset).  Reads, never writes."""
    if start_from not in START_FROM:
        raise SxsError(f"start-from must be one of {', '.join(START_FROM)}; got {start_from!r}")
    chosen = list(dict.fromkeys(parse_order(o) for o in orders)) or [JudgingOrder.DECISION]
    (name,) = _measures([measure])
    spec = measure_spec(name, dataset.scale)
    top_a, top_b = tops(store, dataset, run_a, run_b, spec.k)
    truth = read_oracle(store, dataset, oracle)
    start = (labels_so_far(store, dataset, policy, basis).frame if start_from == "dataset"
             else empty_labels())
    return [simulate_judging(top_a, top_b, truth, name, max_grade=dataset.scale, order=order,
                             confidence=confidence, start=start, batch=batch, seed=seed)
            for order in chosen]
