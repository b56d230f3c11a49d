"""What to show a judge next: pure functions over DataFrames, no store and no Streamlit.

Query queue (side-by-side votes) under :class:`QueuePolicy` ``difference`` (the default), in
order:

1. the largest difference first: lowest RBO@k (extrapolated) between the two runs;
2. then the most unlabelled top-k weight: sum over both runs of d(r) = 1/log2(r+1) for each
   result at rank r <= k that has no label (dataset or expert);
3. then the fewest judges so far.

Under ``moves_decision`` the queries whose vote moves the decision come first (the largest
:func:`metrics.decision.vote_values`: twice the probability of the less likely sign of the
query's Δ under the decision model), then the keys above.

Never a query this judge already voted on for this pair of runs, never a query that already has
``overlap`` judges, and never a query whose two top-k lists are identical (nothing to prefer).

Backfill queue (grading only) under the order ``weight``: the (query, doc) pairs in the top k
of any chosen run that have no dataset grade >= 0, by their weight on the metric (sum of d(r)
over the runs they appear in), then the fewest expert labels first; never a pair this judge
has graded.  A round chooses its backfill order (:data:`BACKFILL_POLICIES`); ``decision``,
the default, is :mod:`judge_app.services.backfill_order`'s.

"Labelled" means a dataset grade >= 0 or an expert's grade (negative grades are trec_eval's
"pooled, not judged"); the store's ``ranked_labels`` view says it once for every reader.

:class:`Rule` names why a query was drawn for a judge — the queue's keys above, and the
fall-throughs around them (a query brought back, the skipped ones) — each with the sentence a
judge reads; :func:`judge_app.services.next_query.next_query` applies them and the store keeps
the rule with the view it issued.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import numpy as np
import pandas as pd

from judge_app.errors import SxsError
from metrics.dcg import rank_discounts
from metrics.judging_order import JUDGING_ORDERS, JudgingOrder


def discount_at(ranks: pd.Series | np.ndarray, k: int) -> np.ndarray:
    """d(r) = 1/log2(r+1) for ranks 1..k, 0 beyond."""
    table = np.concatenate(([0.0], rank_discounts(k, "log2")))
    ranks = np.asarray(ranks, dtype=np.int64)
    return np.where((ranks >= 1) & (ranks <= k), table[np.clip(ranks, 0, k)], 0.0)


def unlabelled_weight(tops: Sequence[pd.DataFrame], k: int) -> pd.Series:
    """Per query: sum of d(r) over the unlabelled results in the top k of each run.

    Each frame has query_id, rank and labelled (as the store's ``ranked_labels`` gives).
    """
    parts = []
    for top in tops:
        top = top[top["rank"] <= k]
        missing = ~top["labelled"].astype(bool).to_numpy()
        parts.append(pd.Series(discount_at(top["rank"], k) * missing,
                               index=top["query_id"].to_numpy()))
    if not parts:
        return pd.Series(dtype=float)
    return pd.concat(parts).groupby(level=0).sum()


def identical_tops(top_a: pd.DataFrame, top_b: pd.DataFrame, k: int) -> set[str]:
    """Queries whose top-k lists are the same in both runs, rank for rank."""
    a = top_a[top_a["rank"] <= k].sort_values(["query_id", "rank"])
    b = top_b[top_b["rank"] <= k].sort_values(["query_id", "rank"])
    lists_a = a.groupby("query_id")["doc_id"].agg(tuple)
    lists_b = b.groupby("query_id")["doc_id"].agg(tuple)
    both = lists_a.index.intersection(lists_b.index)
    return {q for q in both if lists_a[q] == lists_b[q]}


class QueuePolicy(StrEnum):
    """How the vote queue orders the queries (``value`` is recorded, as ``judging_policy``,
    with every vote and every grade given beside one).

    * ``difference`` (default): today's order, the module doc's keys (lowest RBO first);
    * ``moves_decision``: the queries whose vote moves the decision first
      (:func:`metrics.decision.vote_values`), then the same keys.
    """

    DIFFERENCE = "difference"
    MOVES_DECISION = "moves_decision"

    @property
    def description(self) -> str:
        """What the policy serves first, in one line an admin reads."""
        return _POLICY_DESCRIPTIONS[self]

    @classmethod
    def of_round(cls, name: str | None) -> QueuePolicy:
        """The policy a round's stored ``queue_policy`` names; None (a round from before the
        setting, or saved without one) is ``difference``.  An unknown name raises
        ``SxsError`` naming the known ones."""
        if name is None:
            return cls.DIFFERENCE
        try:
            return cls(name)
        except ValueError:
            raise SxsError(f"unknown queue order {name!r}: one of "
                           f"{', '.join(p.value for p in cls)}") from None


_POLICY_DESCRIPTIONS = {
    QueuePolicy.DIFFERENCE: "Largest difference first: the queries the two runs rank most "
                            "differently (lowest RBO).",
    QueuePolicy.MOVES_DECISION: "Decision first: the queries whose vote can move the "
                                "decision between the runs most.",
}


BACKFILL_POLICIES: tuple[JudgingOrder, ...] = (JudgingOrder.DECISION, JudgingOrder.WEIGHT)
"""The orders a round's backfill page may serve in (``Round.backfill_policy``), recorded with
every backfill grade: ``decision`` (:mod:`judge_app.services.backfill_order`: the order ``sxs
backfill next`` prints) and ``weight`` (:func:`backfill_queue`: the sum of the pair's
discounts, then the fewest expert labels — the only order before rounds could choose)."""

DEFAULT_BACKFILL_POLICY = JudgingOrder.DECISION
"""The backfill order of a round saved without one, and of the page without a round."""


def backfill_policy_of_round(name: str | None) -> JudgingOrder:
    """The backfill order a round's stored ``backfill_policy`` names; None (a round saved
    without one, or no round) is :data:`DEFAULT_BACKFILL_POLICY` (rounds from before the
    setting were stored ``weight`` by migration 0023).  A name outside
    :data:`BACKFILL_POLICIES` raises ``SxsError`` naming them."""
    if name is None:
        return DEFAULT_BACKFILL_POLICY
    for order in BACKFILL_POLICIES:
        if order.value == name:
            return order
    raise SxsError(f"unknown backfill order {name!r}: one of "
                   f"{', '.join(o.value for o in BACKFILL_POLICIES)}")

JUDGING_POLICIES: tuple[str, ...] = (*(p.value for p in QueuePolicy), *JUDGING_ORDERS)
"""Every value a label's or a vote's ``judging_policy`` may hold: the vote queue's policies and
the backfill orders (:class:`metrics.judging_order.JudgingOrder`), no name twice."""


class Rule(StrEnum):
    """Why a query was drawn for a judge (``value`` is what the store keeps with the view).

    The first two bring a query back before the queue; the next six say which key of the
    query queue (the module doc) set the query apart from the one after it; then the queue of
    queries the judge skipped; ``opened``: the judge opened the query themselves (My work, an
    admin's query picker), outside the queue — a vote on it replaces their earlier one;
    ``disputed`` draws a query whose judges disagree before the queue
    (:func:`judge_app.services.disputes.disputed_queries`).  Adding a rule is a member and
    its sentence here."""

    UNDONE = "undone"
    REDRAWN = "redrawn"
    MOVES_DECISION = "moves_decision"
    LARGEST_DIFFERENCE = "largest_difference"
    MOST_UNLABELLED = "most_unlabelled"
    FEWEST_JUDGES = "fewest_judges"
    QUERY_ID = "query_id"
    LAST_LEFT = "last_left"
    SKIPPED = "skipped"
    OPENED = "opened"
    DISPUTED = "disputed"

    @property
    def sentence(self) -> str:
        """Why this query came now, in one line a judge reads."""
        return _SENTENCES[self]


_SENTENCES = {
    Rule.UNDONE: "Your last vote was undone: the query is back.",
    Rule.REDRAWN: "Your vote was not stored: here is the query as it is now.",
    Rule.MOVES_DECISION: "Of the queries left, your vote on this one can move the decision "
                         "between the runs most: the labels leave its winner most in doubt.",
    Rule.LARGEST_DIFFERENCE: "Of the queries left, the two runs differ most on this one "
                             "(lowest RBO).",
    Rule.MOST_UNLABELLED: "The runs differ on it as much as on the next query, and more of "
                          "its top results are unlabelled.",
    Rule.FEWEST_JUDGES: "As different and as unlabelled as the next query, with fewer judges "
                        "so far.",
    Rule.QUERY_ID: "Level with the next query on difference, unlabelled results and judges: "
                   "taken in query id order.",
    Rule.LAST_LEFT: "The last query left for you (apart from any you skipped).",
    Rule.SKIPPED: "You skipped this query earlier: it comes back once the others are done.",
    Rule.OPENED: "You opened this query yourself: a vote here replaces your earlier one "
                 "(which stays in your history).",
    Rule.DISPUTED: "The judges so far disagree on this query: one more judge is asked.",
}


def ranked_queries(rbo: pd.Series, weight: pd.Series, counts: pd.DataFrame,
                   overlap: int = 1, identical: set[str] | None = None,
                   value: pd.Series | None = None) -> pd.DataFrame:
    """The queries a judge may vote on, in the order they should (see the module doc): a
    frame indexed by query_id with the keys it is sorted on (rbo, weight, judges; value
    first when given).

    ``rbo``: RBO@k ext per query; ``weight``: unlabelled top-k weight per query; ``counts``:
    per voted query, how many judges voted and whether this judge did (query_id, judges,
    mine — the store's ``vote_counts``); ``value``: under ``moves_decision``, how much a
    vote on each query moves the decision (a query without one: 0), the largest first.
    """
    if overlap < 1:
        raise ValueError(f"overlap must be at least 1; got {overlap}")
    frame = pd.DataFrame({"rbo": rbo.astype(float)})
    frame["weight"] = weight.reindex(frame.index).fillna(0.0)
    voted = counts.set_index("query_id") if len(counts) else pd.DataFrame(
        {"judges": pd.Series(dtype=int), "mine": pd.Series(dtype=bool)})
    frame["judges"] = voted["judges"].reindex(frame.index).fillna(0).astype(int)
    mine = voted["mine"].reindex(frame.index).fillna(False).astype(bool)
    eligible = ~mine & (frame["judges"] < overlap)
    if identical:
        eligible &= ~frame.index.isin(list(identical))
    keys, ascending = ["rbo", "weight", "judges", "query_id"], [True, False, True, True]
    if value is not None:
        frame.insert(0, "value", value.astype(float).reindex(frame.index).fillna(0.0))
        keys, ascending = ["value", *keys], [False, *ascending]
    chosen = frame[eligible].reset_index(names="query_id")
    ordered = chosen.sort_values(keys, ascending=ascending, kind="stable")
    return ordered.set_index("query_id")


def query_queue(rbo: pd.Series, weight: pd.Series, counts: pd.DataFrame,
                overlap: int = 1, identical: set[str] | None = None,
                value: pd.Series | None = None) -> list[str]:
    """Query ids in the order a judge should vote on them (:func:`ranked_queries`)."""
    return ranked_queries(rbo, weight, counts, overlap, identical, value).index.tolist()


def deciding_rule(ranked: pd.DataFrame, chosen: str, runner_up: str | None) -> Rule:
    """The key of the queue that put ``chosen`` before ``runner_up`` (the next query in the
    queue), both rows of ``ranked`` (:func:`ranked_queries`): a larger decision value (under
    ``moves_decision``), else a lower RBO, else a larger unlabelled weight, else fewer judges,
    else the query id; :attr:`Rule.LAST_LEFT` without a runner-up.  Ties are exact, as the
    sort's are."""
    if runner_up is None:
        return Rule.LAST_LEFT
    first, second = ranked.loc[chosen], ranked.loc[runner_up]
    if "value" in ranked.columns and first["value"] != second["value"]:
        return Rule.MOVES_DECISION
    if first["rbo"] != second["rbo"]:
        return Rule.LARGEST_DIFFERENCE
    if first["weight"] != second["weight"]:
        return Rule.MOST_UNLABELLED
    if first["judges"] != second["judges"]:
        return Rule.FEWEST_JUDGES
    return Rule.QUERY_ID


def backfill_queue(candidates: pd.DataFrame, k: int) -> pd.DataFrame:
    """The (query_id, doc_id) pairs to grade, with weight and expert label count, in order.

    ``candidates`` has one row per run a pair appears in (query_id, doc_id, rank, experts —
    the store's ``backfill_candidates``); a pair's weight is the sum of d(rank) over them.
    """
    if candidates.empty:
        return pd.DataFrame(columns=["query_id", "doc_id", "weight", "experts"])
    rows = candidates[candidates["rank"] <= k].assign(
        weight=lambda f: discount_at(f["rank"], k))
    pairs = rows.groupby(["query_id", "doc_id"], as_index=False).agg(
        weight=("weight", "sum"), experts=("experts", "max"))
    pairs["experts"] = pairs["experts"].astype(int)
    return pairs.sort_values(["weight", "experts", "query_id", "doc_id"],
                             ascending=[False, True, True, True],
                             kind="stable").reset_index(drop=True)
