"""The dashboard's Checks panel (issue 25): the same TOML rules as ``sxs check``, run on run B
with the filled labels.  The box opens with rules written for the dataset on screen
(:func:`judge_app.services.checks.example_rules`: a query of this dataset, its own top
result), so "Run checks" works as it stands; each result says what the rule expected, what
was found, and which results broke it."""

from __future__ import annotations

import streamlit as st

from judge_app.io.rules import parse_rules
from judge_app.services.checks import CheckResult, example_rules, run_checks
from judge_app.store import Dataset, Store
from judge_app.ui.components import plain, user_errors

RUN_BUTTON = "Run checks"


def result_rows(results: list[CheckResult]) -> list[dict[str, str]]:
    """One row per rule: pass/FAIL, its name, what it expected, what was found, and the
    results that broke it (the first ten)."""
    return [{"result": "pass" if r.passed else "FAIL", "rule": r.rule.label,
             "expected": r.rule.expectation, "found": r.detail,
             "offending docs": ", ".join(r.offending[:10])} for r in results]


def summary(results: list[CheckResult], run: str) -> str:
    failed = sum(not r.passed for r in results)
    return (f"{len(results) - failed} of {len(results)} rules passed on {run} (B), "
            f"{failed} failed")


def checks_panel(store: Store, dataset: Dataset, run: str, policy: str) -> None:
    """The panel: rules (an example for ``dataset`` and ``run`` until edited), a Run checks
    button, the results explained."""
    st.header("Checks")
    st.caption("Unit-test-style expectations (the same TOML as `sxs check`), run on B with "
               "the filled labels. The rules below are an example written for this dataset: "
               "run them, then edit them to state what you expect of your queries.")
    with st.form(f"checks:{dataset.name}:{run}", border=False):
        rules_text = st.text_area("Rules (TOML)", height=260,
                                  value=example_rules(store, dataset, run))
        clicked = st.form_submit_button(RUN_BUTTON, type="primary")
    if not clicked or not rules_text.strip():
        return
    with user_errors():
        results = run_checks(store, dataset, run, parse_rules(rules_text, "the rules above"),
                             filled=True, policy=policy)
    failed = sum(not r.passed for r in results)
    (st.error if failed else st.success)(plain(summary(results, run)))
    st.dataframe(result_rows(results), hide_index=True)
    st.caption("A rule passes when what it expected was found in the run's ranking for its "
               "query. Offending docs are the results that broke it; for NDCG-f they are the "
               "unlabelled results in its top k, left out of the figure (grade them on the "
               "Backfill page to count them).")
