"""The LLM judge wired to the store, through the real local chat-completions server: what is
stored (labels and votes under llm:<model>, one provenance row per call, nothing but that row
for a failure), resume, budget, both side orders, and the agreement figures by hand."""

from __future__ import annotations

import pytest

from judge_app.llm.prompts import GRADE, PREFER
from judge_app.services import llm_agreement, llm_judging
from judge_app.services.llm_judging import LlmOptions
from judge_app.store import Store
from tests.llm.conftest import API_KEY
from tests.llm.fake_endpoint import COMPLETION_TOKENS, PROMPT_TOKENS
from tests.llm.shop import FAILED_GRADES, LLM_GRADES, TITLES, build_shop

JUDGE = "llm:judge-model"


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


@pytest.fixture
def options(fake) -> LlmOptions:
    return LlmOptions(fake.base_url, "judge-model", api_key_env="SXS_TEST_LLM_KEY",
                      concurrency=2, max_attempts=2, backoff_s=0.01, timeout_s=10,
                      price_prompt=1.0, price_completion=2.0)


def grade(store, options, environ, **kw):
    dataset = store.dataset("shop")
    return llm_judging.grade(store, dataset, ["A", "B"], 2, options, environ=environ, **kw)


def prefer(store, options, environ, **kw):
    dataset = store.dataset("shop")
    return llm_judging.prefer(store, dataset, "A", "B", 2, options, environ=environ, **kw)


def test_grades_are_stored_as_labels_of_the_llm_with_their_calls(store, options, environ,
                                                                  fake) -> None:
    dataset = build_shop(store)
    humans = store.current_expert_labels(dataset)
    run = grade(store, options, environ)
    assert (run.total, run.finished, run.failures, run.unstarted) == (10, 10, 2, 0)
    assert run.calls == 10 == len(fake.seen)
    assert run.cost == pytest.approx(10 * (PROMPT_TOKENS / 1000 + COMPLETION_TOKENS / 1000 * 2))

    labels = store.current_expert_labels(dataset, judge=JUDGE)
    assert {(r.query_id, r.doc_id): r.grade for r in labels.itertuples()} == LLM_GRADES
    assert set(labels["witness"]) == {"llm"}
    # the people's labels are all still there and still current; no dataset judgment added
    after = store.current_expert_labels(dataset)
    columns = ["query_id", "doc_id", "judge", "grade", "created_at"]
    assert (after[after["judge"] != JUDGE][columns].values.tolist()
            == humans[columns].values.tolist())
    assert len(store.judgments(dataset)) == 1
    # the experts-only consensus does not see the LLM; experts+llm does, and says so
    experts = store.current_labels(dataset).set_index(["query_id", "doc_id"])
    assert ("q3", "d6") not in experts.index
    with_llm = store.current_labels(dataset, basis="experts+llm").set_index(
        ["query_id", "doc_id"])
    assert with_llm.loc[("q3", "d6"), "expert_grade"] == 2

    calls = store.llm_calls(dataset)
    assert len(calls) == 10 and set(calls["kind"]) == {"grade"}
    ok = calls[calls["failure"].isna()]
    history = store.expert_label_history(dataset).set_index(["query_id", "doc_id", "judge"])
    for row in ok.itertuples():
        assert row.judge == JUDGE and row.model == "judge-model"
        assert row.served_model == "judge-model-2026-01-01" and row.base_url == fake.base_url
        assert row.prompt_version == GRADE.tag and row.template_sha256 == GRADE.sha256
        assert len(row.prompt_sha256) == 64 and row.temperature == 0.0
        assert (row.prompt_tokens, row.completion_tokens, row.attempts) == (100, 10, 1)
        assert row.latency_ms >= 0 and row.asked_at is not None
        assert int(row.value) == LLM_GRADES[(row.query_id, row.doc_id)]
        assert row.raw.startswith('{"grade"') and API_KEY not in row.raw
        assert row.output_token.startswith("llm:")
        # the label carries the LLM's reason
        assert history.loc[(row.query_id, row.doc_id, JUDGE), "note"] == row.reason
    prompts = {seen.messages_sha256 for seen in fake.seen}
    assert set(calls["prompt_sha256"]) == prompts  # the hash of exactly what was sent


def test_a_failed_call_stores_its_row_and_nothing_else(store, options, environ) -> None:
    dataset = build_shop(store, with_experts=False)
    labels_before = len(store.expert_label_history(dataset))
    run = llm_judging.grade(store, dataset, ["A"], 1, options, environ=environ)
    assert (run.finished, run.failures) == (5, 1)  # q4's d7 is garbled
    calls = store.llm_calls(dataset)
    failed = calls[calls["failure"].notna()]
    assert list(zip(failed["query_id"], failed["doc_id"], strict=True)) == [("q4", "d7")]
    row = failed.iloc[0]
    assert row["raw"] == "Sure! This document looks quite relevant to me."
    assert failed[["value", "output_token", "reason"]].isna().all(axis=None)
    labels = store.expert_label_history(dataset)
    assert len(labels) == labels_before + 4
    assert ("q4", "d7") not in set(zip(labels["query_id"], labels["doc_id"], strict=True))


def test_the_missing_labels_come_first_and_the_budget_stops_the_run(store, options,
                                                                   environ, fake) -> None:
    dataset = build_shop(store)
    order = llm_judging.grade_items(store, dataset, ["A", "B"], 2, JUDGE)
    # weights d(1) = 1, d(2) = 1/log2(3): no expert label first, heaviest first
    assert list(zip(order["query_id"], order["doc_id"], strict=True)) == [
        ("q3", "d6"), ("q3", "d7"), ("q4", "d7"), ("q4", "d8"), ("q5", "d10"), ("q5", "d9"),
        ("q1", "d3"), ("q2", "d4"), ("q2", "d5"), ("q1", "d1")]
    budget = LlmOptions(**{**vars(options), "max_calls": 3, "concurrency": 1})
    run = grade(store, budget, environ)
    assert (run.finished, run.unstarted, run.calls, len(fake.seen)) == (3, 7, 3, 3)
    assert run.budget_exhausted and "stopped by --max-calls" in "\n".join(run.lines())
    graded = store.current_expert_labels(dataset, judge=JUDGE)
    assert set(zip(graded["query_id"], graded["doc_id"], strict=True)) == {("q3", "d6"),
                                                                            ("q3", "d7")}


def test_a_second_run_asks_only_what_is_not_done(store, options, environ, fake) -> None:
    build_shop(store)
    grade(store, LlmOptions(**{**vars(options), "max_calls": 3, "concurrency": 1}), environ)
    assert len(fake.seen) == 3
    second = grade(store, options, environ)
    # the seven never asked, and q4/d7 whose garbled answer stored nothing
    assert len(fake.seen) == 3 + 8
    assert (second.total, second.failures) == (8, 2)
    third = grade(store, options, environ)  # the two failures are asked again, nothing else
    assert len(fake.seen) == 11 + 2
    assert {seen.query for seen in fake.seen[11:]} == {"garble lamp"}
    assert (third.total, third.failures) == (2, 2)
    grades = store.current_expert_labels(store.dataset("shop"), judge=JUDGE)
    assert len(grades) == len(LLM_GRADES)
    assert not FAILED_GRADES & set(zip(grades["query_id"], grades["doc_id"], strict=True))


def test_votes_are_asked_in_both_side_orders_and_stored_as_the_llm(store, options, environ,
                                                                   fake) -> None:
    dataset = build_shop(store)
    run = prefer(store, options, environ)
    # q3's two lists are identical: not asked; q4 is garbled on its first call (no second)
    assert (run.total, run.finished, run.failures, run.conflicts) == (4, 4, 1, 1)
    assert run.calls == 7 == len(fake.seen)
    lefts = {}
    for seen in fake.seen:
        lefts.setdefault(seen.query, set()).add(seen.left_title)
    assert lefts["red shoes"] == {TITLES["d1"], TITLES["d2"]}
    assert lefts["blue shirt"] == {TITLES["d4"], TITLES["d5"]}
    assert lefts["biased tea"] == {TITLES["d9"], TITLES["d10"]}

    votes = store.preferences(dataset)
    mine = votes[votes["judge"] == JUDGE].set_index("query_id")
    assert set(mine.index) == {"q1", "q2", "q5"}
    winner = {q: (row.left_run if row.choice == "left" else
                  ({"A", "B"} - {row.left_run}).pop() if row.choice == "right" else row.choice)
              for q, row in mine.iterrows()}
    assert winner == {"q1": "A", "q2": "A", "q5": "tie"}  # q5: the orders conflicted
    assert mine.loc["q1", "reason"] == "topic 'red' on top"
    assert "the two side orders disagreed" in mine.loc["q5", "reason"]

    calls = store.llm_calls(dataset, kinds=["prefer"])
    assert len(calls) == 7 and set(calls["prompt_version"]) == {PREFER.tag}
    links = set()
    for query_id in ("q1", "q2", "q5"):
        both = calls[calls["query_id"] == query_id]
        assert sorted(both["side_order"]) == [0, 1] and set(both["left_run"]) == {"A", "B"}
        assert both["output_token"].nunique() == 1  # both calls link to the one vote
        links.add(both["output_token"].iloc[0])  # the view the vote was cast on
    assert len(links) == 3 and None not in links
    q4 = calls[calls["query_id"] == "q4"]
    assert len(q4) == 1 and q4["failure"].notna().all() and q4["output_token"].isna().all()
    assert "q4" not in set(votes["query_id"][votes["judge"] == JUDGE])

    again = prefer(store, options, environ)  # resume: only q4 again, one garbled call
    assert (again.skipped, again.total, len(fake.seen)) == (3, 1, 8)


def test_the_agreement_figures_by_hand(store, options, environ) -> None:
    """Grades (LLM, ann, bob): q1/d1 (2, 2, 1), q2/d4 (2, 3, -), q2/d5 (0, 0, 1); consensus
    (lower median) 1, 3, 0.  Quadratic kappa: vs ann 1 - (1/3)/(23/9) = 20/23; vs bob
    1 - 1/1 = 0; vs consensus 1 - (2/3)/(22/9) = 8/11.
    Votes as B (+1) / A (-1) / neither (0): LLM q1 -1, q2 -1, q5 0; ann -1, -1, +1; bob q1
    +1; majority q1 0, q2 -1, q5 +1.  Vs ann: 2/3 agree, kappa (2/3 - 4/9)/(5/9) = 0.4; vs
    bob: 0 agree, kappa 0; vs the majority: 1/3 agree, kappa (1/3 - 1/3)/(2/3) = 0."""
    dataset = build_shop(store)
    grade(store, options, environ)
    prefer(store, options, environ)
    found = llm_agreement.llm_agreement(store, dataset, "A", "B")

    grades = found.grades.set_index("versus")
    assert set(grades["llm_judge"]) == {JUDGE}
    assert grades.loc["ann", "items"] == 3 and grades.loc["bob", "items"] == 2
    assert grades.loc["ann", "weighted_kappa"] == pytest.approx(20 / 23)
    assert grades.loc["bob", "weighted_kappa"] == pytest.approx(0.0)
    assert grades.loc["expert consensus", "items"] == 3
    assert grades.loc["expert consensus", "weighted_kappa"] == pytest.approx(8 / 11)
    assert grades.loc["ann", "same_grade"] == pytest.approx(2 / 3)

    votes = found.votes.set_index("versus")
    assert votes.loc["ann", "queries"] == 3 and votes.loc["bob", "queries"] == 1
    assert votes.loc["ann", "agreement"] == pytest.approx(2 / 3)
    assert votes.loc["ann", "cohen_kappa"] == pytest.approx(0.4)
    assert votes.loc["bob", "agreement"] == 0 and votes.loc["bob", "cohen_kappa"] == 0
    assert votes.loc["expert consensus", "agreement"] == pytest.approx(1 / 3)
    assert votes.loc["expert consensus", "cohen_kappa"] == pytest.approx(0.0)

    (bias,) = found.bias.itertuples()
    assert (bias.llm_judge, bias.queries, bias.conflicts) == (JUDGE, 3, 1)
    # the same pair asked the other way round reads the same
    flipped = llm_agreement.vote_agreement(store, dataset, "B", "A").set_index("versus")
    assert flipped.loc["ann", "agreement"] == pytest.approx(2 / 3)
    assert flipped.loc["ann", "cohen_kappa"] == pytest.approx(0.4)


def test_no_llm_yet_gives_empty_tables(store) -> None:
    dataset = build_shop(store)
    assert llm_agreement.llm_agreement(store, dataset, "A", "B").empty


def test_without_the_extra_the_error_says_how_to_install(monkeypatch) -> None:
    monkeypatch.setattr(llm_judging.importlib.util, "find_spec",
                        lambda name: None if name == "httpx" else object())
    with pytest.raises(llm_judging.SxsError, match=r"pip install 'sxs\[llm\]'"):
        llm_judging.require_llm_extra()


def test_the_llm_reason_stands_beside_the_experts(store, options, environ) -> None:
    dataset = build_shop(store)
    prefer(store, options, environ)
    reasons = llm_agreement.reasons_beside(store, dataset, "A", "B")
    rows = {(r.query_id, r.judge): (r.preferred, r.reason) for r in reasons.itertuples()}
    assert rows[("q1", JUDGE)] == ("A", "topic 'red' on top")
    assert rows[("q1", "ann")] == ("A", "ann thinks so")
    assert rows[("q1", "bob")] == ("B", "bob thinks so")
    assert rows[("q5", "ann")] == ("B", "ann thinks so")
    assert rows[("q5", JUDGE)][0] == "tie"
    assert {q for q, _ in rows} == {"q1", "q2", "q5"}  # q4: no LLM vote


def test_the_report_has_the_llm_section_and_names_the_label_basis(store, options,
                                                                   environ) -> None:
    from judge_app.services import dashboard, report

    dataset = build_shop(store)
    before = report.render(dashboard.dashboard(store, dataset, "A", "B",
                                               dashboard.Settings(k=2), permutations=200))
    assert "The LLM judge against the experts" not in before
    grade(store, options, environ)
    prefer(store, options, environ)
    board = dashboard.dashboard(store, dataset, "A", "B",
                                dashboard.Settings(k=2, basis="experts+llm"), permutations=200)
    page = report.render(board)
    assert "The LLM judge against the experts" in page
    assert "labels: experts+llm" in page and "the labels of experts+llm" in page
    assert "<td>expert consensus</td>" in page.replace(' style="text-align:left"', "")
