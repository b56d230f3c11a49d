"""Which query a judge sees next, and the rule that chose it: one function, the page draws what
it returns (modelled on Label Studio's ``next_task``: exclude what this judge did, respect the
overlap, lease with a time-to-live, fall through named queues, and say which rule chose).

:func:`next_query` falls through, in order:

1. the view on screen, while its query is still in the judge's queue or the judge opened it
   themselves (:attr:`Rule.OPENED`, :mod:`judge_app.services.open_query`) — a rerun draws
   nothing; the view keeps the rule it was drawn by;
2. a query brought back (:class:`Focus`): after the judge's undo (:attr:`Rule.UNDONE`) or a
   vote the store refused (:attr:`Rule.REDRAWN`), if it is still in the queue;
3. the query queue (:func:`~judge_app.services.queue.ranked_queries`): never a query this judge
   voted on for the pair, never one with its N judges, never one whose top-k lists are
   identical; lowest RBO first, then the most unlabelled top-k weight, then the fewest judges,
   then the query id (under :attr:`~judge_app.services.queue.QueuePolicy.MOVES_DECISION`
   the queries whose vote moves the decision most come before those keys,
   :attr:`Rule.MOVES_DECISION`).  The rule named is the first of these keys that sets the
   query apart from the next one in the queue (:func:`~judge_app.services.queue.deciding_rule`), or
   :attr:`Rule.LAST_LEFT`;
4. the queries the judge skipped this session, in queue order (:attr:`Rule.SKIPPED`).

Before all of them: a round that stops when decided serves nothing once its pair is decided
(:func:`~judge_app.services.decision_state.pair_done`); the draw returns no view and the
decision (:attr:`NextQuery.decided`), which the page tells the judge.

Gold queries of the pair (:mod:`~judge_app.services.gold_queue`) are kept out of 3 and 4: at
the judge's gold slot (before 3) an unseen one is drawn without a lease or overlap, with the
rule the queue's head would have been drawn by, so nothing tells it apart.  With a round's
``max_overlap`` above its ``overlap``, the queries whose votes disagree
(:func:`~judge_app.services.disputes.disputed_queries`) come next, before 3, leased up to
``max_overlap`` judges (:attr:`Rule.DISPUTED`).

Each candidate is offered to the store in that order, which issues a view — with the round's
judges per query, a lease on the query for the round's lease time — or refuses it (N judges
voted on it or hold it: another judge took it).  The first view issued is returned, and its rule
is stored with it (``views.queue_rule``).  After a refusal the judge's plan is computed again
from the store, since other judges' votes changed it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from judge_app.services import disputes, gold_queue, judging
from judge_app.services.decision_state import DecisionState, pair_done
from judge_app.services.judging import Plan, QueryOrder, SideBySide
from judge_app.services.queue import QueuePolicy, Rule, deciding_rule
from judge_app.store import Dataset, Store
from judge_app.store.votes import Round


@dataclass(frozen=True)
class Focus:
    """A query to offer before the queue, and the rule that brings it back."""

    query_id: str
    rule: Rule


@dataclass(frozen=True)
class NextQuery:
    """What a judge is shown next: the view (None: nothing left for them on this pair of
    runs), the rule that chose it, and their plan (queue and progress) as of this draw;
    ``decided``: the decision that stopped the round serving the pair (no view then)."""

    view: SideBySide | None
    plan: Plan
    decided: DecisionState | None = None

    @property
    def reason(self) -> Rule | None:
        """The rule that chose the query (stored with the view); None without a view."""
        return None if self.view is None else self.view.rule


def next_query(store: Store, dataset: Dataset, round_: Round, judge: str, *,
               order: Callable[[], QueryOrder] | None = None, plan: Plan | None = None,
               shown: SideBySide | None = None, focus: Focus | None = None,
               skipped: Collection[str] = (),
               policy: QueuePolicy | str = QueuePolicy.DIFFERENCE) -> NextQuery:
    """The query ``judge`` sees next in ``round_`` of ``dataset`` (see the module doc).

    What a session remembers between draws comes in as arguments: ``plan``, the judge's plan
    if still fresh (None: computed from ``order``, the queue keys, which default to
    :func:`~judge_app.services.judging.query_order` computed now); ``shown``, the view on
    screen for this round; ``focus``, a query to bring back; ``skipped``, the queries the
    judge skipped.  The returned plan is ``plan`` itself unless it was computed here.
    ``policy``: the queue's policy (:class:`~judge_app.services.queue.QueuePolicy`; the
    default order unless ``order`` gives keys of another), recorded with the view's vote."""
    policy = QueuePolicy(policy)

    def fresh_plan() -> Plan:
        keys = order() if order is not None else judging.query_order(
            store, dataset, round_.run_a, round_.run_b, round_.k, policy)
        return judging.plan_from(store, dataset, keys, round_.run_a, round_.run_b, judge,
                                 round_.overlap)

    if plan is None:
        plan = fresh_plan()
    done = pair_done(store, dataset, round_)
    if done is not None:
        return NextQuery(None, plan, done)
    if shown is not None and (shown.query_id in plan.queue or shown.rule is Rule.OPENED):
        return NextQuery(shown, plan)  # a rerun: no read of the store
    gold = gold_queue.gold_queries(store, dataset, round_.run_a, round_.run_b) if (
        round_.gold_every >= 1) else set()
    if shown is not None and (shown.query_id in gold or shown.rule is Rule.DISPUTED) and (
            not _voted(store, dataset, round_, judge, shown)):
        return NextQuery(shown, plan)
    skipped = set(skipped)
    waiting = [q for q in plan.queue if q not in skipped and q not in gold]
    candidates = waiting + [q for q in plan.queue if q in skipped and q not in gold]
    back = focus if focus is not None and focus.query_id in plan.queue else None
    if back is not None:
        candidates = [back.query_id, *(q for q in candidates if q != back.query_id)]
    elif gold:
        counts = store.vote_counts(dataset, round_.run_a, round_.run_b, judge)
        served = int(counts["mine"].sum()) if len(counts) else 0
        due = gold_queue.gold_query_for(store, dataset, round_.run_a, round_.run_b, judge,
                                        served, round_.gold_every, gold)
        if due is not None:  # unmarked: drawn with the rule the queue's head would have
            rule = (deciding_rule(plan.ranked, waiting[0], waiting[1] if len(waiting) > 1
                                  else None) if waiting else Rule.LAST_LEFT)
            view = judging.side_by_side(store, dataset, round_.run_a, round_.run_b, due,
                                        round_.k, judge, round_.blind, overlap=None,
                                        lease_seconds=round_.lease_seconds, rule=rule)
            if view is not None:
                return NextQuery(view, plan)
    if back is None:  # disputed queries, most disputed first, up to max_overlap judges
        for query_id in disputes.disputed_queries(store, dataset, round_.run_a, round_.run_b,
                                                  judge, round_.overlap, round_.max_overlap):
            if query_id in gold:
                continue
            view = judging.side_by_side(store, dataset, round_.run_a, round_.run_b, query_id,
                                        round_.k, judge, round_.blind,
                                        overlap=round_.max_overlap,
                                        lease_seconds=round_.lease_seconds, rule=Rule.DISPUTED)
            if view is not None:
                return NextQuery(view, plan)
    position = {q: i for i, q in enumerate(waiting)}
    view, refused = None, False
    for query_id in candidates:
        if back is not None and query_id == back.query_id:
            rule = back.rule
        elif query_id in skipped:
            rule = Rule.SKIPPED
        else:  # the queries before it in the queue were refused; the focus was too
            following = waiting[position[query_id] + 1:position[query_id] + 3]
            runner_up = next((q for q in following if back is None or q != back.query_id),
                             None)
            rule = deciding_rule(plan.ranked, query_id, runner_up)
        view = judging.side_by_side(store, dataset, round_.run_a, round_.run_b, query_id,
                                    round_.k, judge, round_.blind, overlap=round_.overlap,
                                    lease_seconds=round_.lease_seconds, rule=rule,
                                    policy=policy)
        if view is not None:
            break
        refused = True  # another judge took this query
    return NextQuery(view, fresh_plan() if refused else plan)


def _voted(store: Store, dataset: Dataset, round_: Round, judge: str, view: SideBySide
           ) -> bool:
    counts = store.vote_counts(dataset, round_.run_a, round_.run_b, judge)
    return bool(len(counts)) and bool(
        counts.loc[counts["query_id"] == view.query_id, "mine"].any())


def skip(store: Store, view: SideBySide, judge: str) -> None:
    """The judge skips the view on screen: their lease on its query ends (another judge may
    take it); the caller keeps the query among the skipped, shown last."""
    store.release_view(view.view_id, judge)
