"""Gold (known-answer) items mixed into each judge's queue, unmarked.

A round sets ``gold_every`` = N (default 10; 0: none).  A judge's served items are counted
from 0 (on the judge page their votes on the round's pair of runs, on the backfill page their
grades on the dataset) and cut into blocks of N: block b = i // N holds items bN … bN + N - 1,
and exactly one of them, at place ``sha256(judge, b) mod N``, is a gold slot.  The place
differs from block to block and from judge to judge, so a judge cannot tell which item is the
check, and nothing on the page says so (the view records an ordinary queue rule).

At a gold slot the judge is offered a gold item they were never served before (never the
same item twice: a view issued or a vote or grade written counts as served), chosen among
the ones left by ``sha256(judge, item)`` order; with none left, the queue goes on as usual.
The expected answer is never shown: a gold pair is a query of the round's two runs (the page
shows what any query shows), a graded gold item is shown like any result to grade.  Gold
items are kept out of the ordinary queue, so they come at the round's rate.

Answers are scored per judge where every answer is: the judge report matches the judges'
votes to the gold pairs and their grades to the graded gold items
(:mod:`judge_app.services.judge_report`).
"""

from __future__ import annotations

import hashlib

import pandas as pd

from judge_app.store import Dataset, Store


def _digest(*parts: object) -> int:
    text = "\x1f".join(str(p) for p in parts).encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big")


def gold_place(judge: str, block: int, every: int) -> int:
    """Where in block ``block`` of ``every`` items ``judge``'s gold slot is (0 … every-1)."""
    return _digest("gold-slot", judge, block) % every


def is_gold_slot(judge: str, served: int, every: int) -> bool:
    """Whether ``judge``'s item number ``served`` (counted from 0) is a gold slot; never with
    ``every`` < 1 (no gold items)."""
    if every < 1:
        return False
    return served % every == gold_place(judge, served // every, every)


def _pick(judge: str, items: list) -> object | None:
    """The item ``judge`` gets first among ``items``: the least sha256(judge, item)."""
    if not items:
        return None
    return min(items, key=lambda item: (_digest("gold-item", judge, item), str(item)))


def gold_queries(store: Store, dataset: Dataset, run_a: str, run_b: str) -> set[str]:
    """The queries marked gold for this pair of runs (either order)."""
    pairs = store.gold_pairs(dataset)
    if pairs.empty:
        return set()
    run_1, run_2 = sorted((run_a, run_b))
    mine = pairs[(pairs["run_1"] == run_1) & (pairs["run_2"] == run_2)]
    return set(mine["query_id"].astype(str))


def gold_query_for(store: Store, dataset: Dataset, run_a: str, run_b: str, judge: str,
                   served: int, every: int, gold: set[str] | None = None) -> str | None:
    """The gold query ``judge`` is offered as their item number ``served`` of the pair of
    runs, or None (not a gold slot, or no gold pair left they were never served)."""
    if not is_gold_slot(judge, served, every):
        return None
    gold = gold_queries(store, dataset, run_a, run_b) if gold is None else gold
    if not gold:
        return None
    left = sorted(gold - store.gold_queries_seen(dataset, run_a, run_b, judge))
    return _pick(judge, left)  # type: ignore[return-value]


def gold_item_for(store: Store, dataset: Dataset, judge: str, every: int
                  ) -> tuple[str, str] | None:
    """The graded gold item (query_id, doc_id) ``judge`` is offered next on the backfill
    page, or None: their item number is the count of items they graded on the dataset."""
    gold = store.gold_grades(dataset)
    if gold.empty or every < 1:
        return None
    graded = store.gold_items_graded(dataset, judge)
    if not is_gold_slot(judge, len(graded), every):
        return None
    left = sorted(set(zip(gold["query_id"].astype(str), gold["doc_id"].astype(str),
                          strict=True)) - graded)
    return _pick(judge, left)  # type: ignore[return-value]


def mix_backfill(queue: pd.DataFrame, store: Store, dataset: Dataset, judge: str,
                 every: int) -> pd.DataFrame:
    """The backfill queue (:func:`judge_app.services.judging.backfill`) with the gold item
    due now first, if one is, and the graded gold items otherwise left out.  The gold row
    carries the weight and judge count of the row it goes before, so it reads like it."""
    gold = store.gold_grades(dataset)
    if gold.empty or every < 1:
        return queue
    keys = set(zip(gold["query_id"].astype(str), gold["doc_id"].astype(str), strict=True))
    item_keys = list(zip(queue["query_id"].astype(str), queue["doc_id"].astype(str),
                         strict=True))
    rest = queue[[key not in keys for key in item_keys]].reset_index(drop=True)
    due = gold_item_for(store, dataset, judge, every)
    if due is None or rest.empty:
        return rest
    head = rest.iloc[:1].assign(query_id=due[0], doc_id=due[1])
    return pd.concat([head, rest], ignore_index=True)
