"""Property: whatever the budget, concurrency and failures, the endpoint never sees more
requests than ``max_calls``, and every item is either answered once or left unstarted."""

from __future__ import annotations

import json
import threading
from collections import Counter

import httpx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.llm.client import ChatClient, Endpoint
from judge_app.llm.grade import GradeItem, grade_documents
from judge_app.llm.prefer import PreferItem, prefer_rankings
from judge_app.llm.prompts import Document
from judge_app.llm.runner import RetryPolicy, Runner
from metrics.scale import BINARY


class Endpoint500s:
    """In-process transport: ``crash`` queries always 500, ``flaky`` ones 500 once."""

    def __init__(self) -> None:
        self.requests: Counter[str] = Counter()
        self.lock = threading.Lock()

    def __call__(self, request: httpx.Request) -> httpx.Response:
        user = json.loads(request.content)["messages"][-1]["content"]
        query = user.split("Query: ", 1)[1].split("\n", 1)[0]
        with self.lock:
            self.requests[query] += 1
            nth = self.requests[query]
        if "crash" in query or ("flaky" in query and nth == 1):
            return httpx.Response(503, text="unavailable")
        answer = ({"choice": "left", "reason": "r"} if "Left results" in user
                  else {"grade": 1, "reason": "r"})
        return httpx.Response(200, json={"choices": [{"message": {"content": json.dumps(
            answer)}}], "usage": {"prompt_tokens": 5, "completion_tokens": 1}})


kinds = st.lists(st.sampled_from(["ok", "crash", "flaky"]), min_size=0, max_size=12)


def runner(transport: Endpoint500s, max_calls: int, concurrency: int) -> Runner:
    client = ChatClient(Endpoint("http://llm.invalid/v1", "m"),
                        transport=httpx.MockTransport(transport))
    return Runner(client, concurrency=concurrency, max_calls=max_calls,
                  retry=RetryPolicy(max_attempts=3, backoff_s=0), sleep=lambda _: None)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kinds, st.integers(0, 15), st.integers(1, 4))
def test_grading_never_exceeds_the_budget(kinds: list[str], max_calls: int,
                                          concurrency: int) -> None:
    transport = Endpoint500s()
    items = [GradeItem(f"q{i}", f"{kind} {i}", Document(f"d{i}", "t"))
             for i, kind in enumerate(kinds)]
    summary = grade_documents(runner(transport, max_calls, concurrency), items, BINARY)
    made = sum(transport.requests.values())
    assert made <= max_calls and made == summary.calls
    assert made == sum(r.record.attempts for r in summary.results)
    assert summary.finished + summary.unstarted == len(items)
    assert len({r.item.key for r in summary.results}) == summary.finished
    # an unstarted item was never asked; the budget went to the items in order
    asked = {r.item.query for r in summary.results}
    assert set(transport.requests) == asked
    assert asked == {item.query for item in items[:len(asked)]}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kinds, st.integers(0, 15), st.integers(1, 4))
def test_preferences_never_exceed_the_budget(kinds: list[str], max_calls: int,
                                             concurrency: int) -> None:
    transport = Endpoint500s()
    items = [PreferItem(f"q{i}", f"{kind} {i}", "a", "b", [Document("x", "t")], [])
             for i, kind in enumerate(kinds)]
    summary = prefer_rankings(runner(transport, max_calls, concurrency), items)
    made = sum(transport.requests.values())
    assert made <= max_calls and made == summary.calls
    assert summary.finished + summary.unstarted == len(items)
    for result in summary.results:
        # a query is asked in both orders unless one of them failed
        assert len(result.records) == 2 or not result.ok
        assert result.ok == (result.choice is not None)
