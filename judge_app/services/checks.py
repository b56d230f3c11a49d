"""Check rules: unit-test-style expectations about a run's results (the rules file format is
:mod:`judge_app.io.rules`).  ``sxs check``, ``sxs report --rules`` and the dashboard run them
through :func:`run_checks`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from judge_app.io.rules import Rule
from judge_app.policies import LabelPolicy
from judge_app.services.analysis import labels_for
from judge_app.store import Dataset, Store
from metrics import ndcg_f


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string (JSON's escapes are TOML's)."""
    return json.dumps(text, ensure_ascii=False)


def _comment(text: str, limit: int = 70) -> str:
    """``text`` fit for a TOML comment: one line of printable characters, cut at ``limit``."""
    line = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return line if len(line) <= limit else line[:limit - 1] + "…"


def example_rules(store: Store, dataset: Dataset, run: str) -> str:
    """Rules that run as they stand on ``dataset`` and ``run``: for the first query (in the
    dataset's order) the run answers, its top result is in the top 3, some result of the top
    5 has a word of that result's title (its longest, ties to the first) in its title, and
    its NDCG-f@10 is at least 0.5 — the first two pass by construction, the third says how
    good the labels find the ranking.  A run with no result gives a commented-out template
    naming a query of the dataset (or none)."""
    tops = store.run(dataset, run, depth=1)
    if not len(tops):
        queries = store.queries(dataset)
        query = str(queries["query_id"].iloc[0]) if len(queries) else "QUERY_ID"
        return (f"# {_comment(run)} has no results yet: a rule reads like this\n"
                f"# [[rule]]\n# query = {_toml_string(query)}\n# expect = \"min_ndcg_f\"\n"
                "# min = 0.5\n")
    order = {query: n for n, query in enumerate(store.queries(dataset)["query_id"])}
    first = min(tops.itertuples(index=False), key=lambda row: order.get(row.query_id, 1e18))
    query, doc = str(first.query_id), str(first.doc_id)
    texts = store.queries(dataset).set_index("query_id")["text"]
    shown = _comment(str(texts.get(query, "")))
    documents = store.documents(dataset, [doc])
    title = str(documents["title"].iloc[0]) if len(documents) else ""
    words = [w for w in "".join(c if c.isalnum() else " " for c in title).split()]
    rules = [f"# query {_comment(query, 20)}: {shown}",
             "[[rule]]", f"name = {_toml_string(f'its top result is {doc}')}",
             f"query = {_toml_string(query)}", 'expect = "doc_in_top"',
             f"doc = {_toml_string(doc)}", "top = 3", ""]
    if words:
        word = max(words, key=len)
        rules += ["[[rule]]", f"name = {_toml_string(f'a title in the top 5 says {word}')}",
                  f"query = {_toml_string(query)}", 'expect = "contains"',
                  'field = "title"', f"text = {_toml_string(word)}", "top = 5", ""]
    rules += ["[[rule]]", 'name = "the labelled results are good enough"',
              f"query = {_toml_string(query)}", 'expect = "min_ndcg_f"', "min = 0.5",
              "top = 10", ""]
    return "\n".join(rules)


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
