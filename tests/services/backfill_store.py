"""A small store whose decision order and weight order differ from the first pair on (issue 22,
item 2: the Backfill page serves the decision order).

Dataset ``small`` (Cranfield's 0-4 scale), queries q0 .. q5, runs ``a`` and ``b`` at depth 3:
both runs rank a shared doc ``s_i`` first; run A then ranks an off-topic doc ``x_i`` and the
answer ``g_i``, run B the other way round.  q3 .. q5 are judged (s_i 1, g_i 3, x_i 0); q0 ..
q2 are not.  The weight order serves the s_i first (weight 2: first in both runs), although
their grades cannot move NDCG-m@3's difference between the runs at all; the decision order
serves the x_i and g_i first and the s_i last (value 0).  The round (a vs b, top 3, one judge
per query, not blind, no gold items) is saved with ``backfill_policy`` as given (None: the
default).
"""

from __future__ import annotations

from pathlib import Path

from judge_app.store import Store
from tests.services.decided_pair import fill_store

DATASET = "small"
QUERIES = 6
UNJUDGED = 3
K = 3


def small_store(path: Path | str, backfill_policy: str | None = None,
                judges: tuple[str, ...] = ("ann",), blind: bool = False) -> Path | str:
    """The store of the module doc at ``path`` (a DuckDB file or a PostgreSQL address), with
    ``judges`` invited (the round ``blind`` as given)."""
    a, b, judged, docs, queries = [], [], [], [], []
    for i in range(QUERIES):
        q, shared, good, off = f"q{i}", f"s{i}", f"g{i}", f"x{i}"
        a += [(q, shared, 1), (q, off, 2), (q, good, 3)]
        b += [(q, shared, 1), (q, good, 2), (q, off, 3)]
        queries.append((q, f"question {i}"))
        docs += [(shared, f"Doc {shared}"), (good, f"Doc {good}"), (off, f"Doc {off}")]
        if i >= UNJUDGED:
            judged += [(q, shared, 1), (q, good, 3), (q, off, 0)]
    with Store(path, create=True) as store:
        # a third run "c" (A's rows), so the page can fill the top k of runs other than the
        # round's pair
        dataset = fill_store(store, DATASET, queries, docs, {"a": a, "b": b, "c": a}, judged)
        store.set_round(dataset, "a", "b", k=K, overlap=1, blind=blind, by="test",
                        gold_every=0, backfill_policy=backfill_policy)
        for judge in judges:
            store.invite_judge(judge)
    return path
