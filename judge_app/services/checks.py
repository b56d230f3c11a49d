"""Check rules: unit-test-style expectations about a run's results (the rules file format is
:mod:`judge_app.io.rules`).  ``sxs check``, ``sxs report --rules`` and the dashboard run them
through :func:`run_checks`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from judge_app.io.rules import Rule
from judge_app.policies import LabelPolicy
from judge_app.services.analysis import labels_for
from judge_app.store import Dataset, Store
from metrics import ndcg_f


@dataclass(frozen=True)
class CheckResult:
    rule: Rule
    passed: bool
    detail: str
    offending: list[str] = field(default_factory=list)


def _fold(value: object) -> str:
    return str(value).strip().casefold()


def check_rule(rule: Rule, top: pd.DataFrame, docs: pd.DataFrame,
               judgments: dict[str, float]) -> CheckResult:
    """Evaluate one rule on a query's results (doc_id, rank), their documents
    (doc_id, title, fields) and the query's labels.

    The rules look at the top ``rule.top`` results, except ``min_ndcg_f``: NDCG-f@k drops the
    unlabelled docs from the *whole* ranking first and then cuts at k (trec_eval ``-J``,
    :func:`metrics.ndcg_f`, ``sxs evaluate -m ndcg_f@k``), so it needs every result given
    (:func:`run_checks` passes the full run for it); its offending docs are the unlabelled
    ones in the top k."""
    ranking = list(top.sort_values("rank")["doc_id"])
    ranked = ranking[:rule.top]
    catalog = docs.set_index("doc_id") if len(docs) else None

    def value(doc_id: str) -> str:
        if catalog is None or doc_id not in catalog.index:
            return ""
        row = catalog.loc[doc_id]
        if rule.field == "title":
            return "" if pd.isna(row["title"]) else str(row["title"])
        return str(row["fields"].get(rule.field, ""))

    if rule.expect == "all_field":
        bad = [d for d in ranked if _fold(value(d)) != _fold(rule.equals)]
        passed = bool(ranked) and not bad
        detail = (f"{len(ranked) - len(bad)} of {len(ranked)} in the top {rule.top} have "
                  f"{rule.field} = {rule.equals!r}")
        return CheckResult(rule, passed, detail, bad)
    if rule.expect == "contains":
        hits = [d for d in ranked if _fold(rule.text) in _fold(value(d))]
        return CheckResult(rule, bool(hits), f"{len(hits)} of the top {rule.top} have "
                           f"{rule.text!r} in {rule.field}", [] if hits else ranked)
    if rule.expect in ("doc_in_top", "doc_not_in_top"):
        rank = ranked.index(rule.doc) + 1 if rule.doc in ranked else None
        present = rank is not None
        passed = present if rule.expect == "doc_in_top" else not present
        detail = (f"doc {rule.doc!r} is at rank {rank}" if present
                  else f"doc {rule.doc!r} is not in the top {rule.top}")
        return CheckResult(rule, passed, detail, [] if passed else [rule.doc])
    score = ndcg_f(ranking, judgments, rule.top) if ranking else 0.0
    unjudged = [d for d in ranked if d not in judgments]
    return CheckResult(rule, score >= rule.min,
                       f"NDCG-f@{rule.top} = {score:.4f} (needs {rule.min:g})",
                       [] if score >= rule.min else unjudged)


def run_checks(store: Store, dataset: Dataset, run: str, rules: list[Rule],
               filled: bool = False, policy: str = LabelPolicy.MEDIAN.value
               ) -> list[CheckResult]:
    """Evaluate every rule on a stored run; a query that matches nothing fails its rule."""
    queries = store.queries(dataset)
    by_text = {_fold(t): q for q, t in zip(queries["query_id"], queries["text"], strict=True)}
    known = set(queries["query_id"])
    labels = labels_for(store, dataset, filled, policy)
    results = []
    for rule in rules:
        query_id = rule.query if rule.query in known else by_text.get(_fold(rule.query))
        if query_id is None:
            run_rows = store.run(dataset, run, [rule.query], depth=1)
            query_id = rule.query if len(run_rows) else None
        if query_id is None:
            results.append(CheckResult(rule, False, f"no query {rule.query!r} in the dataset"))
            continue
        whole = rule.expect == "min_ndcg_f"  # NDCG-f condenses the whole ranking
        top = store.run(dataset, run, [query_id], depth=None if whole else rule.top)
        docs = store.documents(dataset, list(top["doc_id"].head(rule.top)))
        mine = labels[labels["query_id"] == query_id]
        judgments = dict(zip(mine["doc_id"], mine["grade"], strict=True))
        results.append(check_rule(rule, top, docs, judgments))
    return results
