"""The runner against a real endpoint: budget, resume, concurrency, progress, cancel."""

from __future__ import annotations

import threading

import pytest

from judge_app.errors import SxsError
from judge_app.llm.client import ChatClient, Endpoint, is_llm_judge
from judge_app.llm.grade import GradeItem, grade_documents
from judge_app.llm.prompts import Document
from judge_app.llm.runner import CallBudget, RetryPolicy
from metrics.scale import ESCI


def items(n: int, word: str = "") -> list[GradeItem]:
    return [GradeItem(f"q{i}", f"{word} red shoes {i}".strip(), Document(f"d{i}", "Red shoes"))
            for i in range(n)]


@pytest.mark.parametrize("concurrency", [1, 4])
def test_the_budget_is_never_exceeded(runner_for, fake, concurrency: int) -> None:
    runner = runner_for(concurrency=concurrency, max_calls=5)
    summary = grade_documents(runner, items(12), ESCI)
    assert len(fake.seen) == 5 == summary.calls == runner.calls
    assert (summary.finished, summary.unstarted, summary.total) == (5, 7, 12)
    assert summary.budget_exhausted and summary.failures == 0
    # the budget goes to the items in the order given
    assert sorted(r.item.query_id for r in summary.results) == ["q0", "q1", "q2", "q3", "q4"]


def test_retries_draw_on_the_same_budget(runner_for, fake) -> None:
    runner = runner_for(concurrency=3, max_calls=4, max_attempts=3)
    summary = grade_documents(runner, items(5, "crash"), ESCI)
    assert len(fake.seen) == 4 == summary.calls
    assert summary.budget_exhausted
    failures = sorted(r.record.failure for r in summary.results)
    assert all(f.startswith("HTTP 500;") for f in failures)
    assert any("call budget spent" in f for f in failures)
    assert sum(r.record.attempts for r in summary.results) == 4


def test_a_zero_budget_asks_nothing(runner_for, fake) -> None:
    summary = grade_documents(runner_for(max_calls=0), items(3), ESCI)
    assert (len(fake.seen), summary.finished, summary.unstarted) == (0, 0, 3)


def test_resume_skips_what_is_done(runner_for, fake) -> None:
    first = grade_documents(runner_for(max_calls=4, concurrency=2), items(10), ESCI)
    done = {r.item.key for r in first.results if r.ok}
    assert len(done) == 4
    asked_first = {seen.query for seen in fake.seen}

    second = grade_documents(runner_for(concurrency=3), items(10), ESCI, done=done)
    asked_second = [seen.query for seen in fake.seen[4:]]
    assert (second.skipped, second.total, second.finished) == (4, 6, 6)
    assert len(asked_second) == 6 and not asked_first & set(asked_second)
    assert done | {r.item.key for r in second.results} == {i.key for i in items(10)}


def test_progress_counts_up_to_the_total_with_failures(runner_for) -> None:
    seen: list[tuple[int, int, int]] = []
    batch = [*items(3), GradeItem("bad", "garble shoes", Document("x", "Shoes"))]
    grade_documents(runner_for(concurrency=2), batch, ESCI, done={("q0", "d0")},
                    progress=lambda *state: seen.append(state))
    assert seen[0] == (0, 3, 0)
    assert [done for done, _, _ in seen] == [0, 1, 2, 3]
    assert seen[-1] == (3, 3, 1)


def test_no_more_than_the_concurrency_limit_is_in_flight(runner_for, fake) -> None:
    # each request waits at the gate: the runner must send three, and no fourth
    runner = runner_for(concurrency=3)
    done: list = []
    run = threading.Thread(target=lambda: done.append(grade_documents(
        runner, items(9, "hold"), ESCI)))
    run.start()
    try:
        assert fake.wait_for(lambda: fake.active == 3, timeout=10)
        assert not fake.wait_for(lambda: len(fake.seen) > 3, timeout=0.3)
    finally:
        fake.gate.set()
        run.join(timeout=30)
    (summary,) = done
    assert summary.failures == 0 and len(fake.seen) == 9
    assert fake.max_active == 3


def test_cancel_stops_starting_new_items(runner_for, fake) -> None:
    runner = runner_for(concurrency=1)
    summary = grade_documents(runner, items(6), ESCI, on_result=lambda _: runner.cancel())
    assert summary.cancelled and (summary.finished, summary.unstarted) == (1, 5)
    assert len(fake.seen) == 1


def test_an_error_from_on_result_stops_the_run_and_is_raised(runner_for, fake) -> None:
    def store(_: object) -> None:
        raise SxsError("the store is locked")

    with pytest.raises(SxsError, match="the store is locked"):
        grade_documents(runner_for(concurrency=1), items(5), ESCI, on_result=store)
    assert len(fake.seen) == 1


def test_results_reach_on_result_as_they_arrive(runner_for) -> None:
    stored: list = []
    summary = grade_documents(runner_for(concurrency=2), items(4), ESCI, on_result=stored.append)
    assert stored == summary.results and len(stored) == 4


def test_a_missing_key_variable_is_named_and_nothing_is_asked(fake) -> None:
    endpoint = Endpoint(fake.base_url, "m", api_key_env="SXS_NO_SUCH_KEY")
    with pytest.raises(SxsError, match="SXS_NO_SUCH_KEY holding the API key is not set"):
        ChatClient(endpoint, environ={})
    assert fake.seen == []


def test_an_llm_is_a_judge_named_for_its_model() -> None:
    assert Endpoint("http://x/v1", "gpt-4o-mini").judge == "llm:gpt-4o-mini"
    assert is_llm_judge("llm:qwen2.5:7b") and not is_llm_judge("alice")


def test_a_local_server_needs_no_key(fake) -> None:
    with ChatClient(Endpoint(fake.base_url, "m")) as client:
        completion = client.complete([{"role": "user", "content": "Query: red\nLeft results:"
                                       "\n1. Title: Red\n\nRight results:\n(no results)"}])
    assert completion.text == '{"choice": "left", "reason": "topic \'red\' on top"}'
    assert fake.seen[0].authorization is None


def test_the_budget_promises_never_exceed_its_limit() -> None:
    budget = CallBudget(3)
    assert budget.claim(2) and not budget.claim(2) and budget.claim(1) and not budget.claim(1)
    budget.release(1)
    assert budget.claim(1) and budget.promised == 3
    assert CallBudget(None).claim(10**9)


def test_bad_settings_are_refused_in_one_line() -> None:
    with pytest.raises(SxsError, match="max_attempts must be at least 1"):
        RetryPolicy(max_attempts=0)
    with pytest.raises(SxsError, match="--base-url must start with http"):
        Endpoint("127.0.0.1:8080/v1", "m")
    with pytest.raises(SxsError, match="--max-calls cannot be negative"):
        CallBudget(-1)
