"""Side-by-side judging: what a judge sees for one query, and recording what they decide.

No Streamlit here: the pages call these functions, and the tests call them directly.

* Blind mode: which run is on the left is drawn per (judge, query, pair of runs) from a seeded
  generator, so a reload shows the same sides, different judges see different sides, and the
  assignment is stored with the vote.
* Every write carries a token made from the view (a fresh id per shown query) and the action,
  so submitting the same thing twice stores it once.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import LABEL_BASES
from judge_app.services.queue import (
    backfill_queue,
    identical_tops,
    query_queue,
    unlabelled_weight,
)
from judge_app.store import Dataset, Store
from metrics.compare import rbo_between
from metrics.votes import CHOICES, Choice, left_run_for


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
    """A query with the two rankings placed left and right."""

    query_id: str
    query_text: str
    run_a: str
    run_b: str
    left_run: str
    left: list[ResultRow]
    right: list[ResultRow]
    view_id: str = field(default_factory=lambda: uuid.uuid4().hex)

    @property
    def right_run(self) -> str:
        return self.run_b if self.left_run == self.run_a else self.run_a


def _rows(top: pd.DataFrame, other: pd.DataFrame, docs: pd.DataFrame, labels: pd.DataFrame,
          dataset: Dataset) -> list[ResultRow]:
    other_rank = dict(zip(other["doc_id"], other["rank"], strict=True))
    # plain dicts: a pandas .loc per result cost more than the queries that fetched them
    catalog = dict(zip(docs["doc_id"], zip(docs["title"], docs["fields"], strict=True),
                       strict=True)) if len(docs) else {}
    shown = dict(zip(labels["doc_id"], zip(labels["dataset_grade"], labels["expert_grade"],
                                           strict=True), strict=True)) if len(labels) else {}
    out = []
    for doc_id, rank in zip(top["doc_id"], top["rank"], strict=True):
        title, fields = str(doc_id), {}
        if doc_id in catalog:
            found_title, found_fields = catalog[doc_id]
            title = str(found_title) if pd.notna(found_title) else str(doc_id)
            fields = {k: str(v) for k, v in found_fields.items()}
        grade, source = None, None
        if doc_id in shown:
            dataset_grade, expert_grade = shown[doc_id]
            if pd.notna(dataset_grade) and dataset_grade >= 0:
                grade, source = int(dataset_grade), "dataset"
            elif pd.notna(expert_grade):
                grade, source = int(expert_grade), "expert"
        name = dataset.scale.name_of(grade) if grade in dataset.scale.values else None
        out.append(ResultRow(int(rank), str(doc_id), title, fields, grade, name, source,
                             other_rank.get(doc_id)))
    return out


def side_by_side(store: Store, dataset: Dataset, run_a: str, run_b: str, query_id: str,
                 k: int, judge: str, blind: bool = True) -> SideBySide:
    """The view of one query: its text and both top-k lists with labels and shared marks."""
    if run_a == run_b:
        raise SxsError("choose two different runs to compare")
    tops = {name: store.run(dataset, name, [query_id], depth=k) for name in (run_a, run_b)}
    doc_ids = sorted(set(tops[run_a]["doc_id"]) | set(tops[run_b]["doc_id"]))
    docs = store.documents(dataset, doc_ids)
    labels = store.current_labels(dataset, [query_id])
    text = store.query_text(dataset, query_id)
    left = left_run_for(judge, query_id, run_a, run_b, blind)
    right = run_b if left == run_a else run_a
    return SideBySide(
        query_id=query_id,
        query_text=text if text is not None else f"query {query_id}",
        run_a=run_a, run_b=run_b, left_run=left,
        left=_rows(tops[left], tops[right], docs, labels, dataset),
        right=_rows(tops[right], tops[left], docs, labels, dataset),
    )


def record_vote(store: Store, dataset: Dataset, view: SideBySide, choice: str, judge: str,
                reason: str | None = None, ms_spent: int | None = None) -> bool:
    """Store a vote on ``view``; the same view voted twice stores one row."""
    if choice not in CHOICES:
        raise SxsError(f"choice must be one of {', '.join(Choice)}; got {choice!r}")
    return store.add_preference(dataset, view.query_id, view.run_a, view.run_b, view.left_run,
                                choice, judge, f"vote:{view.view_id}",
                                reason=(reason or None), ms_spent=ms_spent)


def record_grade(store: Store, dataset: Dataset, view_id: str, query_id: str, doc_id: str,
                 grade: int, judge: str, change: int = 0, note: str | None = None) -> bool:
    """Store an expert grade; ``change`` counts this judge's edits of the doc in this view, so
    the same edit submitted twice stores once and a later re-grade stores again."""
    token = f"grade:{view_id}:{query_id}:{doc_id}:{change}"
    return store.add_expert_label(dataset, query_id, doc_id, grade, judge, token, note)


def undo_last_vote(store: Store, dataset: Dataset, judge: str, run_a: str, run_b: str,
                   token: str) -> str | None:
    """Retract the judge's latest vote on this pair of runs; returns its query id."""
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
    """A judge's queue for one pair of runs, and their progress on it."""

    queue: list[str]
    done: int
    total: int


@dataclass(frozen=True)
class QueryOrder:
    """What the queue orders by, per query (the part worth caching): RBO@k between the runs,
    the unlabelled top-k weight, and the queries whose two top-k lists are identical."""

    rbo: pd.Series
    weight: pd.Series
    identical: frozenset[str]


def query_order(store: Store, dataset: Dataset, run_a: str, run_b: str, k: int) -> QueryOrder:
    top_a, top_b = (store.ranked_labels(dataset, run, k) for run in (run_a, run_b))
    rbo = rbo_between(top_a, top_b, depth=k)["ext"]
    weight = unlabelled_weight([top_a, top_b], k)
    return QueryOrder(rbo, weight, frozenset(identical_tops(top_a, top_b, k)))


def plan_from(store: Store, dataset: Dataset, order: QueryOrder, run_a: str, run_b: str,
              judge: str, overlap: int = 1) -> Plan:
    """The judge's queue given the order and the current votes (cheap: run it every time)."""
    counts = store.vote_counts(dataset, run_a, run_b, judge)
    queue = query_queue(order.rbo, order.weight, counts, overlap, set(order.identical))
    done = int(counts["mine"].sum()) if len(counts) else 0
    return Plan(queue, done, done + len(queue))
