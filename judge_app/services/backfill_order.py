"""The backfill page's queue in the order its round serves (issue 22, item 2): by value for the
decision between the round's two runs, or by weight.

The order in force is the round's ``backfill_policy``
(:func:`~judge_app.services.queue.backfill_policy_of_round`; without a round, ``decision``),
and it is recorded with every grade given on the page.

**decision.**  The judge's queue is, in this order:

1. the pairs ``sxs backfill next A B -d DS -m ndcg_m@k`` prints — the unjudged pairs of the
   two runs' depth-k pool under the filled labels (policy ``median``, the page's label basis,
   seed 0: :func:`judge_app.services.decision.backfill_next`), in its order — restricted to
   the pairs the judge may grade (:meth:`~judge_app.store.Store.backfill_candidates`: no
   dataset grade >= 0, not graded by this judge).  So "the same order as the CLI" means: the
   CLI's full order with the pairs this judge graded left out (such a pair is still unjudged
   in the filled set only when the judge's grade does not count there, e.g. an excluded
   judge's), nothing added before them and nothing reordered;
2. then the pairs other judges graded but this judge has not (judged in the filled set, so
   of no value to the decision's model: a second opinion), in the ``weight`` order.

Each row carries the CLI's ``weight`` and ``value`` (0 for the second part) and ``experts``
(other judges' grades of the pair, as the weight order counts them).  The page then mixes in
re-judge items first and the due gold item (:func:`judge_app.services.disputes.rejudge_first`,
:func:`judge_app.services.gold_queue.mix_backfill`), as under ``weight``.

The decision order is defined for exactly two runs, A and B: when the page fills the top k of
any other set of runs it serves (and records) ``weight``, and says so (:attr:`Served.note`).

**weight.**  :func:`judge_app.services.judging.backfill` (sum of the pair's discounts over the
runs' top k, then the fewest expert labels), over any runs.

**Cost.**  The decision order (a pool read and one assessment: a fraction of a second on the
Cranfield demo) is cached per store address, dataset, pair, depth and basis on the store's
:meth:`~judge_app.store.Store.data_version`, which moves with every grade, so the page pays
it once per change of the labels and the CLI's order is the page's after every grade; at most
:data:`CACHE_ENTRIES` orders are kept (the oldest go first), shared by every session of the
process.  The judge's own restriction (one small read) runs on every draw.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import LABEL_BASES, LabelPolicy
from judge_app.services.decision import backfill_next
from judge_app.services.queue import backfill_policy_of_round, backfill_queue
from judge_app.services.versioned_cache import VersionedCache
from judge_app.store import Dataset, Store
from judge_app.store.votes import Round
from metrics.judging_order import JudgingOrder

CACHE_ENTRIES = 32
COLUMNS = ["query_id", "doc_id", "weight", "experts", "value"]

_cache: VersionedCache[pd.DataFrame] = VersionedCache(CACHE_ENTRIES)

FALLBACK_NOTE = ("Served by weight: the decision order is defined for the round's two runs "
                 "only, not for the runs chosen here.")
UNAVAILABLE_NOTE = "Served by weight: the decision order is not available ({error})."


@dataclass(frozen=True)
class Served:
    """The judge's backfill queue and the order it was served in: ``pairs`` (query_id,
    doc_id, weight, experts, value), ``policy`` (recorded with every grade), ``note`` (why
    the round's order is not the one served; None when it is)."""

    pairs: pd.DataFrame
    policy: JudgingOrder
    note: str | None = None


def policy_in_force(round_: Round | None) -> JudgingOrder:
    """The backfill order the dataset's current round asks for (module doc)."""
    return backfill_policy_of_round(round_.backfill_policy if round_ is not None else None)


def decision_order(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
                   basis: str = LABEL_BASES[0]) -> pd.DataFrame:
    """Every unjudged pair of the pair's depth-``k`` pool in the decision order: ``sxs
    backfill next run_a run_b -m ndcg_m@k`` without a batch (query_id, doc_id, rank_a,
    rank_b, weight, value), from the cache while the dataset's data version stays."""
    key = (str(store.path), dataset.name, run_a, run_b, int(k), basis,
           store.data_version(dataset))
    return _cache.get(key, lambda: backfill_next(
        store, dataset, run_a, run_b, None, JudgingOrder.DECISION, f"ndcg_m@{int(k)}",
        LabelPolicy.MEDIAN, basis, 0))


def in_decision_order(order: pd.DataFrame, weighted: pd.DataFrame) -> pd.DataFrame:
    """The judge's queue under ``decision`` (module doc) from the pair's ``order``
    (:func:`decision_order`) and the judge's ``weighted`` queue (:func:`~judge_app.services.
    queue.backfill_queue`: the pairs they may grade): the order's pairs they may grade, in
    its order, then the rest of ``weighted`` in its order, with value 0."""
    experts = weighted.set_index(["query_id", "doc_id"])["experts"]
    keys = pd.MultiIndex.from_frame(order[["query_id", "doc_id"]].astype(str))
    mine = keys.isin(experts.index)
    head = order.loc[mine, ["query_id", "doc_id", "weight", "value"]].astype(
        {"query_id": str, "doc_id": str})
    head["experts"] = experts.reindex(keys[mine]).to_numpy()
    rest_keys = pd.MultiIndex.from_frame(weighted[["query_id", "doc_id"]])
    rest = weighted.loc[~rest_keys.isin(keys[mine])].assign(value=0.0)
    queue = pd.concat([head[COLUMNS], rest[COLUMNS]], ignore_index=True)
    return queue.astype({"weight": float, "experts": int, "value": float})


def backfill_served(store: Store, dataset: Dataset, runs: list[str], k: int, judge: str,
                    run_a: str, run_b: str, policy: JudgingOrder,
                    basis: str = LABEL_BASES[0]) -> Served:
    """``judge``'s backfill queue over the top ``k`` of ``runs`` in ``policy`` (module doc):
    under ``decision`` with ``runs`` exactly ``run_a`` and ``run_b`` (the round's pair), the
    decision order; otherwise the weight order, with :attr:`Served.note` saying why when
    ``decision`` was asked for (other runs, or the decision order failing on the data: its
    error, in the note)."""
    weighted = backfill_queue(store.backfill_candidates(dataset, runs, k, judge, basis), k)
    weighted = weighted.astype({"query_id": str, "doc_id": str})
    if policy is JudgingOrder.DECISION:
        if len(runs) == 2 and set(runs) == {run_a, run_b}:
            try:
                order = decision_order(store, dataset, run_a, run_b, k, basis)
            except SxsError as error:  # e.g. a run whose ranks repeat a doc
                note = UNAVAILABLE_NOTE.format(error=error)
            else:
                return Served(in_decision_order(order, weighted), JudgingOrder.DECISION)
        else:
            note = FALLBACK_NOTE
    else:
        note = None
    return Served(weighted.assign(value=weighted["weight"].astype(float))[COLUMNS],
                  JudgingOrder.WEIGHT, note)
