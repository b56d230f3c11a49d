"""Grading through real HTTP: provenance, failures kept as failures, retries as specified."""

from __future__ import annotations

import pytest

from judge_app.llm.grade import GradeItem, grade_documents
from judge_app.llm.prompts import GRADE, Document, grade_messages, messages_sha256
from judge_app.llm.runner import EndpointUnreachable, Prices
from metrics.scale import ESCI
from tests.llm.conftest import API_KEY
from tests.llm.fake_endpoint import COMPLETION_TOKENS, PROMPT_TOKENS


def item(query: str, title: str, doc_id: str | None = None) -> GradeItem:
    return GradeItem(query, query, Document(doc_id or f"doc-{query}", title,
                                            {"brand": "Acme"}))


# (query, title, grade by the server's rule: query words in the title, capped at 3)
GOOD = [
    ("red shoes", "Red running shoes", 2),
    ("blue shirt", "Green trousers", 0),
    ("wool winter hat cap", "Winter wool hat and cap", 3),
    ("fenced lamp", "Desk lamp", 1),
]


def test_grades_follow_the_rule_and_carry_their_provenance(runner_for, fake) -> None:
    runner = runner_for(concurrency=2, prices=Prices(prompt_per_1k=1.0, completion_per_1k=2.0))
    items = [item(query, title) for query, title, _ in GOOD]
    summary = grade_documents(runner, items, ESCI, descriptions={3: "exactly what was asked"})

    assert {r.item.query: r.grade for r in summary.results} == {q: g for q, _, g in GOOD}
    assert (summary.total, summary.finished, summary.failures, summary.calls) == (4, 4, 0, 4)
    assert summary.prompt_tokens == 4 * PROMPT_TOKENS
    assert summary.completion_tokens == 4 * COMPLETION_TOKENS
    assert summary.cost == pytest.approx(4 * (0.1 + 0.02))
    by_query = {seen.query: seen for seen in fake.seen}
    for result in summary.results:
        record = result.record
        assert record.item_key == (result.item.query_id, result.item.doc.doc_id)
        assert record.judge == "llm:judge-model" and record.model == "judge-model"
        assert record.served_model == "judge-model-2026-01-01"
        assert record.base_url == fake.base_url
        assert record.prompt_version == "grade/v1" and record.template_sha256 == GRADE.sha256
        # the hash is of exactly what the server received
        assert record.prompt_sha256 == by_query[result.item.query].messages_sha256
        assert record.prompt_sha256 == messages_sha256(grade_messages(
            result.item.query, result.item.doc, ESCI, {3: "exactly what was asked"}))
        assert record.temperature == 0.0
        assert (record.prompt_tokens, record.completion_tokens) == (100, 10)
        assert record.attempts == 1 and record.latency_ms is not None and record.ok
        assert record.asked_at.tzinfo is not None
        assert record.value == result.grade and record.reason == result.reason
        assert record.reason.endswith("query words in the title")
    assert by_query["fenced lamp"].body["temperature"] == 0.0
    assert "3 Exact: exactly what was asked" in by_query["red shoes"].body["messages"][1][
        "content"]


@pytest.mark.parametrize(("query", "raw", "failure"), [
    ("garble shoes", "Sure! This document looks quite relevant to me.",
     "the answer is not a JSON object"),
    ("empty shoes", "", "empty answer"),
    ("refuse shoes", "I can't help with that request.",
     "refused: I can't help with that request."),
    ("overshoot shoes", '{"grade": 9, "reason": "1 query words in the title"}',
     "grade 9 is not on the scale"),
])
def test_a_bad_answer_is_a_failure_with_its_text_and_no_grade(runner_for, fake, query: str,
                                                              raw: str, failure: str) -> None:
    summary = grade_documents(runner_for(), [item(query, "Shoes")], ESCI)
    (result,) = summary.results
    assert not result.ok and result.grade is None and result.reason is None
    assert result.record.value is None and result.record.reason is None
    assert result.record.raw == raw
    assert result.record.failure.startswith(failure)
    assert (result.record.prompt_tokens, result.record.attempts) == (100, 1)
    assert fake.count(query) == 1  # a bad answer is not asked again
    assert (summary.failures, summary.finished) == (1, 1)


def test_429_waits_at_least_retry_after_then_succeeds(runner_for, fake, waits) -> None:
    summary = grade_documents(runner_for(backoff_s=0.01), [item("busy shoes", "Shoes")], ESCI)
    (result,) = summary.results
    assert result.grade == 1 and result.record.attempts == 2
    assert fake.count("busy shoes") == 2
    assert waits.seconds == [1.0]  # Retry-After: 1 beats the 0.01 s backoff


def test_a_retry_after_beyond_the_limit_ends_the_call(runner_for, fake, waits) -> None:
    runner = runner_for(max_retry_after_s=0.5)
    (result,) = grade_documents(runner, [item("busy shoes", "Shoes")], ESCI).results
    assert result.record.failure == "HTTP 429; the server asked to wait 1 s"
    assert fake.count("busy shoes") == 1 and waits.seconds == []


def test_cancel_during_a_retry_wait_fails_the_call(runner_for, fake) -> None:
    holder: list = []
    runner = runner_for(concurrency=1, sleep=lambda _: holder[0].cancel())
    holder.append(runner)
    summary = grade_documents(runner, [item("crash shoes", "Shoes"), item("red", "Red")], ESCI)
    (result,) = summary.results
    assert result.record.failure == "HTTP 500; cancelled" and fake.count("crash shoes") == 1
    assert summary.cancelled and summary.unstarted == 1


def test_500_is_retried_with_exponential_backoff_then_given_up(runner_for, fake,
                                                               waits) -> None:
    runner = runner_for(max_attempts=4, backoff_s=0.01, jitter=0.0)
    (result,) = grade_documents(runner, [item("crash shoes", "Shoes")], ESCI).results
    assert fake.count("crash shoes") == 4
    assert waits.seconds == pytest.approx([0.01, 0.02, 0.04])
    assert result.grade is None and result.record.attempts == 4
    assert result.record.failure == "HTTP 500; gave up after 4 attempts"
    assert result.record.raw == '{"error": {"message": "upstream failed"}}'
    assert result.record.prompt_tokens == 0


def test_jitter_shortens_each_wait_by_at_most_its_share(runner_for, fake, waits) -> None:
    runner = runner_for(max_attempts=5, backoff_s=0.1, jitter=0.5)
    grade_documents(runner, [item("crash shoes", "Shoes")], ESCI)
    full = [0.1, 0.2, 0.4, 0.8]
    assert len(waits.seconds) == 4
    for wait, ceiling in zip(waits.seconds, full, strict=True):
        assert ceiling / 2 <= wait <= ceiling


def test_a_500_then_ok_is_one_grade(runner_for, fake) -> None:
    (result,) = grade_documents(runner_for(), [item("flaky red shoes", "Red shoes")],
                                ESCI).results
    assert result.grade == 2 and result.record.attempts == 2 and fake.count(
        "flaky red shoes") == 2


def test_a_call_beyond_the_timeout_is_retried_then_fails(runner_for, fake) -> None:
    runner = runner_for(timeout_s=1.0, max_attempts=2)
    summary = grade_documents(runner, [item("slow shoes", "Shoes"), item("red", "Red")], ESCI)
    by_query = {r.item.query: r for r in summary.results}
    assert by_query["red"].grade == 1
    slow = by_query["slow shoes"]
    assert slow.grade is None
    assert slow.record.failure == "no answer within 1 s; gave up after 2 attempts"
    assert fake.count("slow shoes") == 2


def test_an_endpoint_never_reached_ends_the_run(runner_for, fake, waits) -> None:
    """Connection failures are retried with backoff; the third in a row gives up on the
    endpoint: the failed item is still delivered (as a failure), then the run raises."""
    closed = fake.base_url
    fake.stop()  # nothing listens on the port any more
    runner = runner_for(base_url=closed, max_attempts=5, concurrency=1)
    delivered = []
    with pytest.raises(EndpointUnreachable, match=f"cannot reach the LLM endpoint {closed} "
                                                  r"\(3 connection failures in a row"):
        grade_documents(runner, [item("red shoes", "Red shoes"), item("blue", "Blue")], ESCI,
                        on_result=delivered.append)
    assert len(waits.seconds) == 2 and runner.calls == 3
    (result,) = delivered  # the second item never started
    assert result.grade is None and result.record.attempts == 3
    assert result.record.failure.startswith("connection failed: ConnectError")
    assert result.record.failure.endswith("; the endpoint is unreachable")


def test_a_connection_failure_once_the_endpoint_answered_is_a_failed_item(runner_for, fake,
                                                                          waits) -> None:
    """Any answer resets the count: an endpoint that went away mid-run fails items (retried,
    resumable) until ``max_unreachable`` connection failures in a row."""
    runner = runner_for(max_attempts=2, concurrency=1)
    assert grade_documents(runner, [item("red shoes", "Red shoes")], ESCI).results[0].ok
    fake.stop()
    (failed,) = grade_documents(runner, [item("blue", "Blue")], ESCI).results
    assert failed.record.failure.startswith("connection failed: ConnectError: [Errno 111]")
    assert failed.record.failure.endswith("; gave up after 2 attempts")
    with pytest.raises(EndpointUnreachable, match="3 connection failures in a row"):
        grade_documents(runner, [item("green", "Green")], ESCI)


def test_a_run_where_no_request_reached_the_endpoint_fails(runner_for, fake) -> None:
    closed = fake.base_url
    fake.stop()
    runner = runner_for(base_url=closed, max_attempts=1)
    with pytest.raises(EndpointUnreachable, match="1 connection failure in a row"):
        grade_documents(runner, [item("red shoes", "Red shoes")], ESCI)


def test_the_key_is_sent_as_a_bearer_header_and_kept_nowhere(runner_for, fake, caplog,
                                                               capsys) -> None:
    caplog.set_level("DEBUG")
    runner = runner_for()
    summary = grade_documents(runner, [item("red shoes", "Red shoes"),
                                       item("garble shoes", "Shoes"),
                                       item("echokey shoes", "Shoes")], ESCI)
    assert {seen.authorization for seen in fake.seen} == {f"Bearer {API_KEY}"}
    echoed = next(r for r in summary.results if r.item.query == "echokey shoes").record
    assert echoed.failure == "HTTP 401" and "Incorrect API key Bearer ***" in echoed.raw
    written = [repr(summary), repr(runner.client), repr(runner.client.endpoint), caplog.text,
               *capsys.readouterr()]
    written += [repr(r.record.row()) for r in summary.results]
    assert caplog.text  # the run did log (retries, failures)
    for text in written:
        assert API_KEY not in text
