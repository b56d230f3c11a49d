"""Unit-test-style evaluations: a TOML file of expectations about a run's results.

```toml
[[rule]]
name = "red shoes are footwear"   # optional; shown in the report
query = "red shoes"               # a query id or its exact text
expect = "all_field"              # all of the top n have field == equals
field = "category"
equals = "footwear"
top = 5                           # default 10

[[rule]]
query = "warehouse clearance open box"
expect = "contains"               # some result in the top n has `text` in `field` (title)
text = "open box"

[[rule]]
query = "1"
expect = "doc_in_top"             # or doc_not_in_top
doc = "184"
top = 3

[[rule]]
query = "1"
expect = "min_ndcg_f"             # NDCG-f@top of the query is at least `min`
min = 0.5
```

Field values are compared as text, case and surrounding blanks ignored; ``title`` is a field
too.  A rule file that does not read is an InputError naming the rule and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from judge_app.errors import InputError
from judge_app.services import labels_for
from judge_app.store import Dataset, LabelPolicy, Store
from metrics import ndcg_f

EXPECTATIONS = ("all_field", "contains", "doc_in_top", "doc_not_in_top", "min_ndcg_f")
_NEEDS = {"all_field": ("field", "equals"), "contains": ("text",),
          "doc_in_top": ("doc",), "doc_not_in_top": ("doc",), "min_ndcg_f": ("min",)}


@dataclass(frozen=True)
class Rule:
    number: int
    query: str
    expect: str
    top: int = 10
    name: str = ""
    field: str = "title"
    equals: str = ""
    text: str = ""
    doc: str = ""
    min: float = 0.0

    @property
    def label(self) -> str:
        return self.name or f"rule {self.number}: {self.expect} for query {self.query!r}"


@dataclass(frozen=True)
class CheckResult:
    rule: Rule
    passed: bool
    detail: str
    offending: list[str] = field(default_factory=list)


def load_rules(path: str | Path) -> list[Rule]:
    """Read and check a rules file; every problem names the rule number and key."""
    path = Path(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(str(path), "not UTF-8 text") from None
    return parse_rules(text, str(path))


def parse_rules(text: str, source: str = "rules") -> list[Rule]:
    """Rules from TOML text (see the module doc); errors name ``source`` and the rule."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise InputError(source, f"not valid TOML ({error})") from None
    raw_rules = document.get("rule")
    if not isinstance(raw_rules, list) or not raw_rules:
        raise InputError(source, "no [[rule]] tables found")
    rules = []
    for number, raw in enumerate(raw_rules, start=1):
        where = f"rule {number}"
        expect = raw.get("expect")
        if expect not in EXPECTATIONS:
            raise InputError(source, f"{where}: expect must be one of "
                             f"{', '.join(EXPECTATIONS)}; got {expect!r}", field="expect")
        if not str(raw.get("query", "")).strip():
            raise InputError(source, f"{where}: query is missing", field="query")
        for key in _NEEDS[expect]:
            if key not in raw:
                raise InputError(source, f"{where}: {expect} needs {key}", field=key)
        unknown = set(raw) - {"name", "query", "expect", "top", "field", "equals", "text",
                              "doc", "min"}
        if unknown:
            raise InputError(source, f"{where}: unknown key {sorted(unknown)[0]!r}",
                             field=sorted(unknown)[0])
        top = raw.get("top", 10)
        if isinstance(top, bool) or not isinstance(top, int) or top < 1:
            raise InputError(source, f"{where}: top must be a positive whole number",
                             field="top")
        try:
            minimum = float(raw.get("min", 0.0))
        except (TypeError, ValueError):
            raise InputError(source, f"{where}: min must be a number", field="min") from None
        rules.append(Rule(number, str(raw["query"]).strip(), expect, top,
                          str(raw.get("name", "")), str(raw.get("field", "title")),
                          str(raw.get("equals", "")), str(raw.get("text", "")),
                          str(raw.get("doc", "")), minimum))
    return rules


def _fold(value: object) -> str:
    return str(value).strip().casefold()


def check_rule(rule: Rule, top: pd.DataFrame, docs: pd.DataFrame,
               judgments: dict[str, float]) -> CheckResult:
    """Evaluate one rule on a query's top results (doc_id, rank), their documents
    (doc_id, title, fields) and the query's labels."""
    ranked = list(top.sort_values("rank")["doc_id"].head(rule.top))
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
    score = ndcg_f(ranked, judgments, rule.top) if ranked else 0.0
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
        top = store.run(dataset, run, [query_id], depth=rule.top)
        docs = store.documents(dataset, list(top["doc_id"]))
        mine = labels[labels["query_id"] == query_id]
        judgments = dict(zip(mine["doc_id"], mine["grade"], strict=True))
        results.append(check_rule(rule, top, docs, judgments))
    return results
