"""The check-rules file: a TOML file of unit-test-style expectations about a run's results.

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
from dataclasses import dataclass
from pathlib import Path

from judge_app.errors import InputError

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

    @property
    def expectation(self) -> str:
        """What the rule expects, in words (the dashboard shows it beside each result)."""
        top = f"the top {self.top}"
        return {
            "all_field": f"every result in {top} has {self.field} = {self.equals!r}",
            "contains": f"some result in {top} has {self.text!r} in its {self.field}",
            "doc_in_top": f"doc {self.doc!r} is in {top}",
            "doc_not_in_top": f"doc {self.doc!r} is not in {top}",
            "min_ndcg_f": f"NDCG-f@{self.top} (unlabelled results left out) is at least "
                          f"{self.min:g}",
        }[self.expect]



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
