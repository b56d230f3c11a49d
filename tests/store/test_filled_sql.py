"""One policy's filled labels as SQL (``judge_app.store.filled_sql``, what ``sxs decide`` and
``sxs backfill next`` read instead of the whole ``filled_labels`` view, which costs more to
plan than to read) are the view's rows for that policy: every policy and basis, on both
backends, over dataset judgments ("pooled, not judged" -1 included), labels of several
experts and of machine judges, gaps filled and grades overridden, a stored Dawid-Skene
consensus and adjudications (the newest counting)."""

from __future__ import annotations

import pandas as pd

from judge_app.policies import LABEL_BASES, LabelPolicy
from judge_app.store import Store
from judge_app.store.filled_sql import filled_labels_of
from metrics import ESCI

COLUMNS = "dataset_id, basis, policy, query_id, doc_id, grade, source, judges"


def rows(store: Store, sql: str, params: list) -> list[tuple]:
    return [tuple(r) for r in store.backend.frame(sql, params).itertuples(index=False)]


def test_one_policys_sql_is_the_views_rows_for_it(store_address) -> None:
    with Store(store_address) as store:
        dataset = store.create_dataset("toy", ESCI)
        store.put_judgments(dataset, pd.DataFrame({
            "query_id": ["q1", "q1", "q1", "q2", "q2"], "doc_id": ["a", "b", "c", "a", "d"],
            "grade": [0, 2, -1, 3, 1]}), "qrels")
        for judge in ("ann", "bob"):
            store.invite_judge(judge)
        labels = [("q1", "a", "ann", 3), ("q1", "a", "bob", 1), ("q1", "c", "ann", 2),
                  ("q2", "e", "bob", 0), ("q2", "a", "ann", 3), ("q1", "a", "ann", 2),
                  ("q2", "d", "llm:m", 3), ("q2", "e", "clicks:coec", 2)]
        for n, (query, doc, judge, grade) in enumerate(labels):
            store.add_expert_label(dataset, query, doc, grade, judge, f"t{n}")
        store.put_consensus_labels(dataset, LABEL_BASES[0], pd.DataFrame({
            "query_id": ["q1", "q2"], "doc_id": ["a", "e"], "grade": [1, 2],
            "confidence": [0.9, 0.6], "judges": [2, 1]}), "v1")
        store.adjudicate(dataset, "q1", "c", 1, "admin")
        store.adjudicate(dataset, "q1", "c", 3, "admin")  # the newest counts
        store.adjudicate(dataset, "q2", "a", 0, "admin")
        settled = store.backend.dialect.settled_adjudications
        for policy in LabelPolicy:
            for basis in LABEL_BASES:
                want = rows(store, f"SELECT {COLUMNS} FROM filled_labels WHERE dataset_id = ? "
                                   "AND policy = ? AND basis = ? ORDER BY query_id, doc_id",
                            [dataset.dataset_id, policy.value, basis])
                got = rows(store, f"SELECT {COLUMNS} FROM ({filled_labels_of(policy, settled)})"
                                  " AS f WHERE dataset_id = ? AND basis = ? "
                                  "ORDER BY query_id, doc_id", [dataset.dataset_id, basis])
                assert got == want, (policy, basis)
                assert len(want) >= 5

