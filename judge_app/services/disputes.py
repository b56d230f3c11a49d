"""Disputes: the items whose judges disagree most, re-judged first, and settled by an admin.

* :func:`dispute_table` — the dataset's disputed (query, doc) items, most disputed first
  (:func:`metrics.disputes.disputes`: the Dawid-Skene posterior entropy under the label policy
  ``dawid-skene``, else the entropy of the grade distribution), over the counted experts'
  current labels (excluded judges left out), items already adjudicated left out; with each
  item's grades by judge (``sxs judges disputes``).
* :func:`rejudge_queue` — what a judge grades first on the backfill page: the disputed items
  they have not graded that have fewer than the round's ``max_overlap`` judges, most disputed
  first.  Overlap is raised for disputed items only, up to that maximum; with no
  ``max_overlap`` (None or not above one judge) there is no re-judging.
* :func:`disputed_queries` — the same for votes, on the Side by side page: the queries of the
  round's two runs whose counted votes disagree (outcomes A better, neither, B better as 0, 1,
  2; the entropy of the outcomes), that have at least the round's ``overlap`` judges and fewer
  than its ``max_overlap``, the judge has not voted on, most disputed first — drawn before the
  queue (:func:`judge_app.services.next_query.next_query`, rule ``disputed``).
* :func:`adjudicate` — an admin's grade settles an item (:mod:`judge_app.store.disputes`):
  every filled label set gives it over every other grade, with the source ``adjudicated``;
  with ``gold`` the item is also marked a gold item (source ``adjudication``).
"""

from __future__ import annotations

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import LabelPolicy, Witness
from judge_app.store import Dataset, Store
from metrics.consensus import ITEM
from metrics.disputes import COLUMNS, disputes


def dispute_table(store: Store, dataset: Dataset,
                  policy: LabelPolicy | str = LabelPolicy.MEDIAN) -> pd.DataFrame:
    """query_id, doc_id, judges, spread, grade_entropy, dispute, grades ("judge grade, …"),
    most disputed first (see the module)."""
    labels = store.current_expert_labels(dataset, counted_only=True)
    labels = labels[labels["witness"] == Witness.EXPERT.value]
    settled = store.adjudications(dataset)
    if len(settled) and len(labels):
        done = set(zip(settled["query_id"], settled["doc_id"], strict=True))
        labels = labels[[key not in done for key in zip(labels["query_id"], labels["doc_id"],
                                                        strict=True)]]
    method = ("dawid-skene" if LabelPolicy(policy) is LabelPolicy.DAWID_SKENE
              else "grade-entropy")
    found = disputes(labels[[*ITEM, "judge", "grade"]], method=method,
                     grades=dataset.scale.values)
    if found.empty:
        return found.assign(grades=pd.Series(dtype=str))
    said = (labels.sort_values("judge")
            .assign(said=lambda f: f["judge"] + " " + f["grade"].astype(int).astype(str))
            .groupby(list(ITEM))["said"].agg(", ".join))
    found["grades"] = [said.get(key, "") for key in zip(found["query_id"], found["doc_id"],
                                                        strict=True)]
    return found[[*ITEM, *COLUMNS, "grades"]]


def rejudge_queue(store: Store, dataset: Dataset, judge: str, max_overlap: int | None,
                  policy: LabelPolicy | str = LabelPolicy.MEDIAN) -> pd.DataFrame:
    """The disputed items ``judge`` should grade first (see the module)."""
    if max_overlap is None or max_overlap < 2:
        return pd.DataFrame(columns=[*ITEM, *COLUMNS, "grades"])
    table = dispute_table(store, dataset, policy)
    if table.empty:
        return table
    mine = store.current_expert_labels(dataset, judge=judge)
    done = set(zip(mine["query_id"], mine["doc_id"], strict=True))
    open_ = [key not in done for key in zip(table["query_id"], table["doc_id"], strict=True)]
    return table[pd.Series(open_, index=table.index) & (table["judges"] < max_overlap)
                 ].reset_index(drop=True)


def disputed_queries(store: Store, dataset: Dataset, run_a: str, run_b: str, judge: str,
                     overlap: int, max_overlap: int | None) -> list[str]:
    """The disputed queries ``judge`` should vote on first (see the module)."""
    if max_overlap is None or max_overlap <= overlap:
        return []
    votes = store.preferences(dataset, run_a, run_b, include_stale=False)
    if votes.empty:
        return []
    votes = votes[~votes["excluded"].astype(bool)]
    outcome = votes["preferred_run"].map({run_a: 0, run_b: 2}).fillna(1).astype(int)
    table = disputes(votes.assign(item="", outcome=outcome), items=("query_id", "item"),
                     grade="outcome")
    mine = set(votes.loc[votes["judge"] == judge, "query_id"])
    open_ = table[(table["judges"] >= overlap) & (table["judges"] < max_overlap)
                  & ~table["query_id"].isin(mine)]
    return open_["query_id"].astype(str).tolist()


def rejudge_first(queue: pd.DataFrame, rejudge: pd.DataFrame) -> pd.DataFrame:
    """The backfill queue (query_id, doc_id, weight, experts) with the re-judge items first,
    each with its weight in the queue (0 when not in it) and its judges as ``experts``."""
    if rejudge.empty:
        return queue
    weights = {(q, d): w for q, d, w in zip(queue["query_id"], queue["doc_id"],
                                            queue["weight"], strict=True)}
    head = pd.DataFrame({"query_id": rejudge["query_id"], "doc_id": rejudge["doc_id"],
                         "weight": [weights.get(key, 0.0) for key in zip(
                             rejudge["query_id"], rejudge["doc_id"], strict=True)],
                         "experts": rejudge["judges"].astype(int)})
    keys = set(zip(head["query_id"], head["doc_id"], strict=True))
    rest = queue[[key not in keys for key in zip(queue["query_id"], queue["doc_id"],
                                                 strict=True)]]
    return pd.concat([head, rest], ignore_index=True)


def adjudicate(store: Store, dataset: Dataset, query_id: str, doc_id: str, grade: int,
               by: str | None = None, note: str | None = None, gold: bool = False) -> str:
    """Settle (query, doc) at ``grade``; with ``gold``, mark it a gold item too.  Returns
    what was done, in a sentence."""
    known = store.current_labels(dataset, [query_id])
    if not (known["doc_id"].astype(str) == doc_id).any():
        raise SxsError(f"{query_id} / {doc_id} has no label or judgment in dataset "
                       f"{dataset.name!r}: nothing to settle")
    store.adjudicate(dataset, query_id, doc_id, int(grade), decided_by=by, note=note)
    said = f"settled {query_id} / {doc_id} at {dataset.scale.name_of(int(grade))}"
    if gold:
        store.mark_gold_grades(dataset, pd.DataFrame({"query_id": [query_id],
                                                      "doc_id": [doc_id],
                                                      "grade": [int(grade)]}),
                               "adjudication", marked_by=by)
        said += ", and marked it a gold item"
    return said
