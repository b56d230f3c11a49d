"""Side-by-side judging: what a judge sees for one query, and recording what they decide.

No Streamlit here: the pages call these functions, and the tests call them directly.

* Blind mode: which run is on the left is drawn per (judge, query, pair of runs) from a seeded
  generator, so a reload shows the same sides, different judges see different sides, and the
  assignment is stored with the vote.
* Every query drawn is a view the store issues (see :mod:`judge_app.store.votes`): a vote
  names it, so a double submit stores once and a vote on a changed query is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import LABEL_BASES
from judge_app.services import decision
from judge_app.services.queue import (
    QueuePolicy,
    Rule,
    backfill_policy_of_round,
    backfill_queue,
    identical_tops,
    ranked_queries,
    unlabelled_weight,
)
from judge_app.store import Dataset, Store
from judge_app.store.votes import ANY_ROUND, DEFAULT_GOLD_EVERY, DEFAULT_LEASE_SECONDS, Round
from metrics.compare import rbo_between
from metrics.judging_order import JudgingOrder
from metrics.votes import left_run_for


@dataclass(frozen=True)
class ResultRow:
    """One result as a judge sees it."""

    rank: int
    doc_id: str
    title: str
    fields: dict[str, str]
    grade: int | None  # the label shown: the dataset's, else the experts' (lower median)
    grade_name: str | None
    label_source: str | None  # "dataset", "expert" or None (unlabelled)
    other_rank: int | None  # its rank on the other side, when both runs show it


@dataclass(frozen=True)
class SideBySide:
    """A query with the two rankings placed left and right, as issued by the store (the view
    id binds a vote to exactly this)."""

    query_id: str
    query_text: str
    run_a: str
    run_b: str
    left_run: str
    left: list[ResultRow]
    right: list[ResultRow]
    view_id: str
    blind: bool = True
    rule: Rule | None = None  # why the query was drawn (next_query), stored with the view
    policy: QueuePolicy | None = None  # the vote queue's policy it was drawn under (None:
    # named, not drawn), recorded with the vote and the grades given on it

    @property
    def right_run(self) -> str:
        return self.run_b if self.left_run == self.run_a else self.run_a


Shown = dict[str, tuple[float | None, float | None, str]]
"""doc id -> (dataset grade, expert grade, source of the expert grade): the labels a judge
may see for one query (see :func:`_labels_shown`)."""


def _rows(top: list[str], other: list[str], docs: pd.DataFrame, shown: Shown,
          dataset: Dataset) -> list[ResultRow]:
    other_rank = {doc_id: rank for rank, doc_id in enumerate(other, start=1)}
    # plain dicts: a pandas .loc per result cost more than the queries that fetched them
    catalog = dict(zip(docs["doc_id"], zip(docs["title"], docs["fields"], strict=True),
                       strict=True)) if len(docs) else {}
    out = []
    for rank, doc_id in enumerate(top, start=1):
        title, fields = str(doc_id), {}
        if doc_id in catalog:
            found_title, found_fields = catalog[doc_id]
            title = str(found_title) if pd.notna(found_title) else str(doc_id)
            fields = {k: str(v) for k, v in found_fields.items()}
        grade, source = None, None
        if doc_id in shown:
            dataset_grade, expert_grade, label_source = shown[doc_id]
            if pd.notna(dataset_grade) and dataset_grade >= 0:
                grade, source = int(dataset_grade), "dataset"
            elif pd.notna(expert_grade):
                grade, source = int(expert_grade), str(label_source)
        name = dataset.scale.name_of(grade) if grade in dataset.scale.values else None
        out.append(ResultRow(rank, str(doc_id), title, fields, grade, name, source,
                             other_rank.get(doc_id)))
    return out


def _labels_shown(store: Store, dataset: Dataset, query_id: str, judge: str,
                  blind: bool) -> Shown:
    """The labels a judge may see: the dataset's and the experts' (lower median) — in a
    blind round the dataset's and only the judge's own grades, never other judges'."""
    source = "mine" if blind else "expert"
    return {doc: (grade, expert, source) for doc, (grade, expert) in
            store.labels_shown(dataset, query_id, judge, blind).items()}


def side_by_side(store: Store, dataset: Dataset, run_a: str, run_b: str, query_id: str,
                 k: int, judge: str, blind: bool = True, overlap: int | None = None,
                 lease_seconds: int = DEFAULT_LEASE_SECONDS,
                 rule: Rule | None = None,
                 policy: QueuePolicy | None = None) -> SideBySide | None:
    """Draw one query for ``judge``: the store issues a view (and, with ``overlap``, a lease
    on the query), recording ``rule`` (why the query was drawn) with it, and returns exactly
    the lists it hashed; None when the query already has ``overlap`` other judges.
    ``policy``: the queue policy it was drawn under, recorded with what is given on it."""
    left = left_run_for(judge, query_id, run_a, run_b, blind)
    issued = store.issue_view(dataset, query_id, run_a, run_b, left, k, judge, blind,
                              overlap, lease_seconds,
                              rule=None if rule is None else rule.value)
    if issued is None:
        return None
    right = run_b if left == run_a else run_a
    tops = issued.top
    docs = store.documents(dataset, sorted(set(tops[run_a]) | set(tops[run_b])))
    labels = _labels_shown(store, dataset, query_id, judge, blind)
    text = issued.query_text
    return SideBySide(
        query_id=query_id,
        query_text=text if text is not None else f"query {query_id}",
        run_a=run_a, run_b=run_b, left_run=left,
        left=_rows(tops[left], tops[right], docs, labels, dataset),
        right=_rows(tops[right], tops[left], docs, labels, dataset),
        view_id=issued.view_id, blind=blind, rule=rule, policy=policy,
    )


def record_vote(store: Store, dataset: Dataset, view: SideBySide, choice: str, judge: str,
                reason: str | None = None, ms_spent: int | None = None) -> bool:
    """Store ``judge``'s vote on ``view``; False when it stored nothing (the same view again,
    or the judge already voted on this query: a second tab).  A view the judge opened
    themselves (:attr:`Rule.OPENED`: from My work, or an admin's query picker) is a re-vote:
    it replaces their counted vote on the query (the old row stays, retracted).  Raises
    :class:`~judge_app.store.votes.StaleView` when the query changed since it was drawn.
    The view's queue policy is recorded with the vote (``judging_policy``)."""
    policy = None if view.policy is None else QueuePolicy(view.policy).value
    return store.cast_vote(dataset, view.view_id, choice, judge, reason or None, ms_spent,
                           revote=view.rule is Rule.OPENED, judging_policy=policy)


def record_grade(store: Store, dataset: Dataset, view_id: str, query_id: str, doc_id: str,
                 grade: int, judge: str, change: int = 0, note: str | None = None,
                 policy: str | None = None) -> bool:
    """Store an expert grade by a registered judge; ``change`` counts this judge's edits of
    the doc in this view, so the same edit submitted twice stores once and a later re-grade
    stores again.  ``policy``: the judging policy in force, recorded with the grade — the
    backfill order the pair was served in (:data:`~judge_app.services.queue.
    BACKFILL_POLICIES`), the vote queue's policy for a grade given beside a vote (None: not
    known)."""
    store.active_judge(judge)
    token = f"grade:{view_id}:{query_id}:{doc_id}:{change}"
    return store.add_expert_label(dataset, query_id, doc_id, grade, judge, token, note,
                                  judging_policy=policy)


def withdraw_grade(store: Store, dataset: Dataset, query_id: str, doc_id: str,
                   judge: str) -> bool:
    """Withdraw the judge's own current grade of a result (a row; history kept)."""
    store.active_judge(judge)
    return store.withdraw_label(dataset, query_id, doc_id, judge)


def undo_last_vote(store: Store, dataset: Dataset, judge: str, run_a: str, run_b: str,
                   token: str) -> str | None:
    """Retract the judge's own latest vote on this pair of runs; returns its query id."""
    last = store.last_vote(dataset, judge, run_a, run_b)
    if last is None:
        return None
    preference_id, query_id = last
    store.retract_preference(dataset, preference_id, judge, token)
    return query_id


def backfill(store: Store, dataset: Dataset, runs: list[str], k: int, judge: str,
             basis: str = LABEL_BASES[0]) -> pd.DataFrame:
    """The judge's backfill queue over the top k of ``runs`` (see
    :func:`~judge_app.services.queue.backfill_queue`); ``experts`` counts the judges of
    ``basis`` (experts alone unless an admin counts the LLM's labels)."""
    return backfill_queue(store.backfill_candidates(dataset, runs, k, judge, basis), k)


@dataclass(frozen=True)
class Plan:
    """A judge's queue for one pair of runs, and their progress on it; ``ranked`` holds the
    keys the queue was ordered by, per query (:func:`~judge_app.services.queue.ranked_queries`:
    what :func:`~judge_app.services.next_query.next_query` names its rule from)."""

    queue: list[str]
    done: int
    total: int
    ranked: pd.DataFrame = field(default_factory=pd.DataFrame, compare=False, repr=False)


@dataclass(frozen=True)
class QueryOrder:
    """What the queue orders by, per query (the part worth caching): RBO@k between the runs,
    the unlabelled top-k weight, the queries whose two top-k lists are identical, and under
    ``moves_decision`` how much a vote moves the decision (``value``; None otherwise)."""

    rbo: pd.Series
    weight: pd.Series
    identical: frozenset[str]
    value: pd.Series | None = None
    policy: QueuePolicy = QueuePolicy.DIFFERENCE


def query_order(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int,
                policy: QueuePolicy | str = QueuePolicy.DIFFERENCE) -> QueryOrder:
    """The queue's keys per query under ``policy`` (:class:`~judge_app.services.queue.
    QueuePolicy`)."""
    policy = QueuePolicy(policy)
    top_a, top_b = (store.ranked_labels(dataset, run, k) for run in (run_a, run_b))
    rbo = rbo_between(top_a, top_b, depth=k)["ext"]
    weight = unlabelled_weight([top_a, top_b], k)
    value = None
    if policy is QueuePolicy.MOVES_DECISION:
        value = decision.vote_values(store, dataset, run_a, run_b, k)
    return QueryOrder(rbo, weight, frozenset(identical_tops(top_a, top_b, k)), value, policy)


def plan_from(store: Store, dataset: Dataset, order: QueryOrder, run_a: str, run_b: str,
              judge: str, overlap: int = 1) -> Plan:
    """The judge's queue given the order and the current votes (cheap: run it every time)."""
    counts = store.vote_counts(dataset, run_a, run_b, judge)
    ranked = ranked_queries(order.rbo, order.weight, counts, overlap, set(order.identical),
                            order.value)
    queue = ranked.index.tolist()
    done = int(counts["mine"].sum()) if len(counts) else 0
    return Plan(queue, done, done + len(queue), ranked)


def advance(plan: Plan, query_id: str) -> Plan:
    """The plan after the judge's own vote on ``query_id`` was stored: the query leaves the
    queue and counts as done (the total stays).  A query not in the queue changes nothing."""
    if query_id not in plan.queue:
        return plan
    return Plan([q for q in plan.queue if q != query_id], plan.done + 1, plan.total,
                plan.ranked)


def start_round(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int, overlap: int,
                blind: bool, lease_minutes: int, by: str, stop_when_decided: bool = False,
                gold_every: int = DEFAULT_GOLD_EVERY, max_overlap: int | None = None,
                expected_round_id: int | None = ANY_ROUND,
                queue_policy: QueuePolicy | str | None = None,
                backfill_policy: JudgingOrder | str | None = None) -> Round:
    """Start a judging round (an admin, on the Settings page): baseline ``run_a`` against
    candidate ``run_b`` at depth ``k``, ``overlap`` judges per query, ``blind`` or not, a
    query leased to a judge for ``lease_minutes`` idle minutes; with ``stop_when_decided``,
    the pair is no longer served once decided (:mod:`judge_app.services.decision_state`).
    It becomes the dataset's current round; judges vote with it from their next query.
    Two runs of the same name, an unknown run, or a figure below 1 are refused
    (``SxsError``).  One gold item comes in each block of ``gold_every`` items a judge is
    served (0: none; :mod:`~judge_app.services.gold_queue`), and a disputed item may reach
    ``max_overlap`` judges (None: ``overlap``; :mod:`~judge_app.services.disputes`).  With
    ``expected_round_id`` (the round the admin's form was drawn with; None: no round yet) a
    round set meanwhile refuses the save (:class:`~judge_app.store.votes.RoundChanged`,
    "the round changed since you opened this page: reload").  ``queue_policy``: the order
    the round's vote queue serves queries in (:class:`~judge_app.services.queue.QueuePolicy`;
    None: ``difference``), recorded with every vote; ``backfill_policy``: the order its
    backfill page serves pairs in (:data:`~judge_app.services.queue.BACKFILL_POLICIES`; None:
    ``decision``), stored by name and recorded with every backfill grade; an unknown name is
    refused."""
    if lease_minutes < 1:
        raise SxsError("the lease is at least one minute")
    policy = None if queue_policy is None else QueuePolicy.of_round(str(queue_policy)).value
    backfill = backfill_policy_of_round(
        None if backfill_policy is None else str(backfill_policy)).value
    return store.set_round(dataset, run_a, run_b, int(k), int(overlap), bool(blind), by=by,
                           lease_seconds=int(lease_minutes) * 60,
                           stop_when_decided=bool(stop_when_decided), gold_every=int(gold_every),
                           max_overlap=None if max_overlap is None else int(max_overlap),
                           expected_round_id=expected_round_id, queue_policy=policy,
                           backfill_policy=backfill)
