"""`sxs check`: rule files, each expectation, and the exit code a CI can use."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import InputError
from judge_app.io.rules import Rule, load_rules
from judge_app.services.checks import check_rule

TOP = pd.DataFrame({"doc_id": ["a", "b", "c"], "rank": [1, 2, 3]})
DOCS = pd.DataFrame({"doc_id": ["a", "b", "c"], "title": ["Red shoe", "Red boot", "Hat"],
                     "fields": [{"category": "footwear"}, {"category": " Footwear "},
                                {"category": "hats"}]})


def rule(**kwargs) -> Rule:
    return Rule(number=1, query="red shoes", **kwargs)


@pytest.mark.parametrize("made, passed, offending", [
    (rule(expect="all_field", field="category", equals="footwear", top=2), True, []),
    (rule(expect="all_field", field="category", equals="footwear", top=3), False, ["c"]),
    (rule(expect="contains", text="boot", top=3), True, []),
    (rule(expect="contains", text="sandal", top=3), False, ["a", "b", "c"]),
    (rule(expect="doc_in_top", doc="b", top=2), True, []),
    (rule(expect="doc_in_top", doc="c", top=2), False, ["c"]),
    (rule(expect="doc_not_in_top", doc="c", top=2), True, []),
    (rule(expect="doc_not_in_top", doc="a", top=2), False, ["a"]),
    (rule(expect="min_ndcg_f", min=0.99, top=3), True, []),
    (rule(expect="min_ndcg_f", min=0.9, top=3), True, []),
])
def test_each_expectation(made: Rule, passed: bool, offending: list[str]) -> None:
    result = check_rule(made, TOP, DOCS, {"a": 2, "b": 1})
    assert result.passed is passed, result.detail
    assert result.offending == offending


def test_min_ndcg_f_fails_when_order_is_wrong() -> None:
    result = check_rule(rule(expect="min_ndcg_f", min=0.9, top=3), TOP, DOCS,
                        {"a": 0, "b": 3})
    assert not result.passed and "NDCG-f@3 = " in result.detail


@pytest.mark.parametrize("content, message", [
    ("[[rule]]\nquery = 'x'\nexpect = 'nope'\n", "rule 1: expect must be one of"),
    ("[[rule]]\nexpect = 'contains'\ntext = 'x'\n", "rule 1: query is missing"),
    ("[[rule]]\nquery = 'x'\nexpect = 'doc_in_top'\n", "rule 1: doc_in_top needs doc"),
    ("[[rule]]\nquery = 'x'\nexpect = 'contains'\ntext = 'y'\ntop = 0\n",
     "top must be a positive whole number"),
    ("[[rule]]\nquery = 'x'\nexpect = 'contains'\ntext = 'y'\ncolour = 1\n",
     "unknown key 'colour'"),
    ("rule = [", "not valid TOML"),
    ("title = 'x'\n", "no [[rule]] tables found"),
])
def test_bad_rule_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(content)
    with pytest.raises(InputError, match=None) as caught:
        load_rules(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_sxs_check_exit_code(tmp_path: Path) -> None:
    db = str(tmp_path / "c.duckdb")
    runner = CliRunner()
    runner.invoke(main, ["demo", "--no-serve", "--db", db])
    good = tmp_path / "good.toml"
    good.write_text("[[rule]]\nquery = '1'\nexpect = 'doc_in_top'\ndoc = '184'\ntop = 3\n")
    bad = tmp_path / "bad.toml"
    bad.write_text(good.read_text() + "[[rule]]\nquery = '1'\nexpect = 'doc_not_in_top'\n"
                   "doc = '184'\ntop = 3\n")
    ok = runner.invoke(main, ["check", str(good), "-d", "cranfield", "--run", "bm25",
                              "--db", db])
    assert ok.exit_code == 0 and ok.output.strip().endswith("1 passed, 0 failed")
    failed = runner.invoke(main, ["check", str(bad), "-d", "cranfield", "--run", "bm25",
                                  "--db", db])
    assert failed.exit_code == 1
    assert "FAIL  rule 2: doc_not_in_top for query '1': doc '184' is at rank 1 [184]" in \
        failed.output
