"""Opening a query outside the queue: a judge following a link from My work back to a query
they voted on or graded (to change a grade, or re-vote), and an admin's query picker on the
judge page.

* :func:`open_query` issues a view of the query for the judge in the current round, drawn by
  :attr:`~judge_app.services.queue.Rule.OPENED` (the "why this query came" line says the
  judge opened it).  A vote on it replaces the judge's counted vote on the query (a new row;
  the old one stays, retracted: :func:`~judge_app.services.judging.record_vote`); grades
  are stored as anywhere else (a new row each).
* Who may open what: an admin any query of the dataset; any other judge only a query they
  voted on or graded (so the queue, not the judge, chooses what they judge first).  Anything
  else is refused in one line, as is a query the dataset does not hold, or one whose N
  judges per query are all others (the round's lease rule holds here too).
* :func:`find_queries`: the admin picker's search — queries whose id or text holds every
  word typed (case-insensitive), the query whose id is what was typed first, then in query
  id order, at most ``limit``.
"""

from __future__ import annotations

import pandas as pd

from judge_app.errors import SxsError
from judge_app.services import judging
from judge_app.services.judging import SideBySide
from judge_app.services.my_work import worked_on
from judge_app.services.queue import Rule
from judge_app.store import Dataset, Store
from judge_app.store.judges import Judge
from judge_app.store.votes import Round

QUERY_PARAM = "query"
"""The judge page's URL parameter naming a query to open (My work's links set it)."""


def open_query(store: Store, dataset: Dataset, round_: Round, judge: Judge,
               query_id: str) -> SideBySide:
    """A view of ``query_id`` for ``judge`` in ``round_``, drawn by :attr:`Rule.OPENED`
    (see the module doc for who may open what)."""
    query_id = str(query_id).strip()
    if store.query_text(dataset, query_id) is None:
        raise SxsError(f"dataset {dataset.name!r} has no query {query_id!r}")
    if not judge.admin and query_id not in worked_on(store, dataset, judge.name):
        raise SxsError(f"you can open only the queries you voted on or graded; query "
                       f"{query_id!r} comes from the queue")
    view = judging.side_by_side(store, dataset, round_.run_a, round_.run_b, query_id,
                                round_.k, judge.name, round_.blind, overlap=round_.overlap,
                                lease_seconds=round_.lease_seconds, rule=Rule.OPENED)
    if view is None:
        raise SxsError(f"query {query_id!r} already has its {round_.overlap} judge"
                       f"{'s' if round_.overlap > 1 else ''}: it cannot be opened now")
    return view


def find_queries(store: Store, dataset: Dataset, text: str, limit: int = 50) -> pd.DataFrame:
    """The queries (query_id, text) whose id or text holds every word of ``text``
    (case-insensitive): the query whose id is ``text`` first, then in query id order, at most
    ``limit``; every query (up to ``limit``) for an empty ``text``."""
    queries = store.queries(dataset)
    words = str(text).casefold().split()
    if words:
        haystack = (queries["query_id"].astype(str) + " " + queries["text"].fillna("")
                    ).str.casefold()
        keep = pd.Series(True, index=queries.index)
        for word in words:
            keep &= haystack.str.contains(word, regex=False)
        queries = queries[keep]
        exact = queries["query_id"].astype(str) == str(text).strip()
        queries = pd.concat([queries[exact], queries[~exact]])
    return queries.head(limit).reset_index(drop=True)
