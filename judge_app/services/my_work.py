"""My work: a judge's own history of votes and grades on a dataset, newest first, for the My
work page (:mod:`judge_app.ui.app_pages.my_work`).

One row per stored vote or grade — nothing is ever deleted, so changing a grade or re-voting
(:mod:`judge_app.services.open_query`) adds a row and the earlier one stays — with:

* ``at``: when it was stored; ``kind``: ``vote`` or ``grade``; ``query_id`` and ``query``
  (its text; the id again for a query the dataset no longer holds);
* ``answer``: a vote's choice as the judge's button said it, with the run it favoured
  (``Left better (title)``; none for *about the same* and *both bad*), or a grade as
  ``doc 184: Useful (2)`` in the dataset's scale (a grade outside the scale: its number);
* ``reason``: the vote's reason, or the grade's note ("" when none);
* ``status``: ``current``; ``replaced`` (a later vote on the same query and pair of runs, or
  a later grade of the same result, by this judge); ``undone`` (a vote retracted with no
  later one); ``withdrawn`` (a grade withdrawn).

Rows at the same instant keep the store's order (newest id first).
"""

from __future__ import annotations

import pandas as pd

from judge_app.store import Dataset, Store
from metrics.votes import Choice

COLUMNS = ("at", "kind", "query_id", "query", "answer", "reason", "status")
"""The columns of :func:`my_work`, in order."""


def _votes(frame: pd.DataFrame) -> pd.DataFrame:
    if frame.empty:
        return pd.DataFrame(columns=[*COLUMNS, "order"])
    newest_first = frame.sort_values("preference_id", ascending=False)
    # a later vote by the judge on the same query and pair: the newest of them comes first
    later = newest_first.duplicated(["query_id", "run_1", "run_2"], keep="first").to_numpy()
    status = [("current" if not retracted else "replaced" if has_later else "undone")
              for retracted, has_later in zip(newest_first["retracted"].astype(bool), later,
                                               strict=True)]
    answer = [Choice(c).label + (f" ({p})" if isinstance(p, str) and p else "")
              for c, p in zip(newest_first["choice"], newest_first["preferred_run"],
                              strict=True)]
    return pd.DataFrame({
        "at": newest_first["created_at"].to_numpy(), "kind": "vote",
        "query_id": newest_first["query_id"].astype(str).to_numpy(),
        "query": _texts(newest_first), "answer": answer,
        "reason": newest_first["reason"].fillna("").astype(str).to_numpy(),
        "status": status, "order": newest_first["preference_id"].to_numpy()})


def _grades(frame: pd.DataFrame, dataset: Dataset) -> pd.DataFrame:
    if frame.empty:
        return pd.DataFrame(columns=[*COLUMNS, "order"])
    names = dict(dataset.scale.grades)
    newest_first = frame.sort_values("label_id", ascending=False)
    later = newest_first.duplicated(["query_id", "doc_id"], keep="first").to_numpy()
    status = ["withdrawn" if withdrawn else "replaced" if has_later else "current"
              for withdrawn, has_later in zip(newest_first["withdrawn"].astype(bool), later,
                                              strict=True)]
    answer = [f"doc {d}: {names[int(g)]} ({int(g)})" if int(g) in names else f"doc {d}: {int(g)}"
              for d, g in zip(newest_first["doc_id"], newest_first["grade"], strict=True)]
    return pd.DataFrame({
        "at": newest_first["created_at"].to_numpy(), "kind": "grade",
        "query_id": newest_first["query_id"].astype(str).to_numpy(),
        "query": _texts(newest_first), "answer": answer,
        "reason": newest_first["note"].fillna("").astype(str).to_numpy(),
        "status": status, "order": newest_first["label_id"].to_numpy()})


def _texts(frame: pd.DataFrame) -> list[str]:
    return [text if isinstance(text, str) else str(query)
            for text, query in zip(frame["query_text"], frame["query_id"], strict=True)]


def my_work(store: Store, dataset: Dataset, judge: str) -> pd.DataFrame:
    """``judge``'s votes and grades on ``dataset``, newest first (columns :data:`COLUMNS`;
    see the module doc).  An unknown judge, or one with no work, gets an empty frame."""
    parts = [part for part in (_votes(store.judge_votes(dataset, judge)),
                               _grades(store.judge_grades(dataset, judge), dataset))
             if not part.empty]
    if not parts:
        return pd.DataFrame(columns=list(COLUMNS))
    rows = pd.concat(parts, ignore_index=True)
    rows["at"] = pd.to_datetime(rows["at"], utc=True)
    rows = rows.sort_values(["at", "order"], ascending=False, kind="stable")
    return rows[list(COLUMNS)].reset_index(drop=True)


def worked_on(store: Store, dataset: Dataset, judge: str) -> set[str]:
    """The queries ``judge`` voted on or graded in ``dataset``."""
    return {*store.judge_votes(dataset, judge)["query_id"].astype(str),
            *store.judge_grades(dataset, judge)["query_id"].astype(str)}
