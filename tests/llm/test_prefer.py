"""Preferences: both side orders asked, answers read in run terms, conflicts become ties."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime

import pytest

from judge_app.errors import SxsError
from judge_app.llm.prefer import PreferenceResult, PreferItem, prefer_job, prefer_rankings
from judge_app.llm.prompts import PREFER, Document
from judge_app.llm.runner import CallRecord
from metrics.votes import left_run_for

A, B = "bm25", "dense"


def item(query: str, a_title: str, b_title: str, query_id: str | None = None) -> PreferItem:
    return PreferItem(query_id or query, query, A, B,
                      [Document("a1", a_title), Document("a2", "Other")],
                      [Document("b1", b_title), Document("b2", "Else")])


# (query, run A's top title, run B's top title, winner, conflicted); the topic is the first
# plain word, and the side whose top title has it is better (the server's rule)
CASES = [
    ("shoes red", "Running shoes", "Red hat", A, False),
    ("hat warm", "Shoes", "Warm hat", B, False),
    ("lamp desk", "Desk lamp", "Floor lamp", None, False),  # same
    ("chair", "Table", "Sofa", None, False),  # both bad
    ("biased mug", "Mug", "Cup", None, True),  # always "left": the orders disagree
    ("fenced bag", "Bag", "Box", A, False),
]


def test_each_query_is_asked_in_both_orders_and_read_in_run_terms(runner_for, fake) -> None:
    summary = prefer_rankings(runner_for(concurrency=3), [item(*case[:3]) for case in CASES],
                              seed=7)
    assert (summary.finished, summary.failures, summary.conflicts) == (6, 0, 1)
    assert summary.calls == 12 == len(fake.seen)
    results = {r.item.query: r for r in summary.results}
    for query, a_title, b_title, winner, conflicted in CASES:
        result = results[query]
        asked = [seen for seen in fake.seen if seen.query == query]
        first = left_run_for("llm-side-order:7", query, A, B)
        first_title = a_title if first == A else b_title
        second_title = b_title if first == A else a_title
        assert [seen.left_title for seen in asked] == [first_title, second_title]
        assert result.first_left == first
        assert [r.left_run for r in result.records] == [first, B if first == A else A]
        assert [r.prompt_version for r in result.records] == ["prefer/v1"] * 2
        assert result.records[0].template_sha256 == PREFER.sha256
        assert [r.prompt_sha256 for r in result.records] == [s.messages_sha256 for s in asked]
        assert (result.winner, result.conflicted) == (winner, conflicted)
        assert len(result.answers) == 2


def test_agreement_is_the_vote_and_a_conflict_is_about_the_same(runner_for, fake) -> None:
    batch = [item("shoes red", "Running shoes", "Red hat"), item("biased mug", "Mug", "Cup"),
             item("lamp desk", "Desk lamp", "Floor lamp"), item("chair", "Table", "Sofa")]
    results = {r.item.query: r for r in prefer_rankings(runner_for(), batch, seed=1).results}

    agreed = results["shoes red"]
    assert agreed.vote() == (agreed.first_left, "left" if agreed.first_left == A else "right")
    assert agreed.reason == "topic 'shoes' on top"

    biased = results["biased mug"]
    assert [answer.choice for answer in biased.answers] == ["left", "left"]  # raw, as answered
    assert {answer.winner for answer in biased.answers} == {A, B}  # in run terms: opposite
    assert biased.vote() == (biased.first_left, "tie") and biased.conflicted
    assert biased.reason.startswith("the two side orders disagreed: ")
    assert biased.raw_answers == tuple(['{"choice": "left", "reason": "topic \'mug\' '
                                        'on top"}'] * 2)

    assert results["lamp desk"].vote()[1] == "tie" and not results["lamp desk"].conflicted
    assert results["chair"].vote()[1] == "both_bad"


@pytest.mark.parametrize(("query", "requests", "records"), [
    ("garble chair", 1, 1),  # the first order failed: the second is not asked
    ("garble2 chair", 2, 2),  # the second order failed
    ("overshoot chair", 1, 1),  # "maybe" is not a choice
    ("crash chair", 2, 1),  # HTTP 500, retried once (max_attempts=2), then given up
])
def test_a_failed_order_gives_no_vote(runner_for, fake, query: str, requests: int,
                                      records: int) -> None:
    summary = prefer_rankings(runner_for(max_attempts=2), [item(query, "Table", "Sofa")])
    (result,) = summary.results
    assert not result.ok and result.choice is None and result.winner is None
    assert result.answers == () and not result.conflicted and result.reason is None
    assert len(result.records) == records and fake.count(query) == requests
    assert not result.records[-1].ok and result.records[-1].value is None
    assert (summary.failures, summary.conflicts) == (1, 0)
    with pytest.raises(SxsError, match="no usable answer"):
        result.vote()


def test_the_budget_never_leaves_a_query_half_asked(runner_for, fake) -> None:
    batch = [item(f"shoes {i}", "Shoes", "Hat", f"q{i}") for i in range(3)]
    summary = prefer_rankings(runner_for(max_calls=3, concurrency=3), batch)
    assert len(fake.seen) == 2 == summary.calls
    assert (summary.finished, summary.unstarted, summary.budget_exhausted) == (1, 2, True)


def test_resume_skips_compared_queries(runner_for, fake) -> None:
    batch = [item(f"shoes {i}", "Shoes", "Hat", f"q{i}") for i in range(4)]
    summary = prefer_rankings(runner_for(), batch, done={("q0", A, B), ("q2", A, B)})
    assert sorted(r.item.query_id for r in summary.results) == ["q1", "q3"]
    assert sorted(seen.query for seen in fake.seen) == ["shoes 1", "shoes 1", "shoes 3",
                                                        "shoes 3"]


def test_the_seed_draws_which_order_goes_first() -> None:
    batch = [item("q", "T", "U", f"q{i}") for i in range(40)]
    firsts = [prefer_job(one, seed=3).calls[0].left_run for one in batch]
    assert set(firsts) == {A, B}
    assert firsts == [prefer_job(one, seed=3).calls[0].left_run for one in batch]  # stable
    assert firsts != [prefer_job(one, seed=4).calls[0].left_run for one in batch]


def test_the_same_run_twice_is_refused() -> None:
    with pytest.raises(SxsError, match="two different runs"):
        PreferItem("q", "q", A, A, [], [])


# -- combining two answers, by hand ---------------------------------------------------------

def record(order: int, left_run: str, choice: str) -> CallRecord:
    return CallRecord(item_key=("q", A, B), order=order, left_run=left_run, judge="llm:m",
                      model="m", served_model=None, base_url="http://x/v1",
                      prompt_version="prefer/v1", template_sha256="t", prompt_sha256="p",
                      temperature=0.0, raw="{}", value=choice, reason=f"said {choice}",
                      failure=None, prompt_tokens=1, completion_tokens=1, latency_ms=1,
                      attempts=1, asked_at=datetime(2026, 1, 1, tzinfo=UTC))


def combined(first_left: str, first: str, second: str) -> PreferenceResult:
    other = B if first_left == A else A
    return PreferenceResult(item("q", "T", "U"), first_left,
                            (record(0, first_left, first), record(1, other, second)))


@pytest.mark.parametrize(("first_left", "first", "second", "vote", "winner", "conflicted"), [
    (A, "left", "right", (A, "left"), A, False),  # A, then A from the other side
    (A, "right", "left", (A, "right"), B, False),
    (B, "left", "right", (B, "left"), B, False),
    (A, "left", "left", (A, "tie"), None, True),  # whatever is on the left: position bias
    (A, "right", "right", (A, "tie"), None, True),
    (A, "tie", "tie", (A, "tie"), None, False),
    (A, "both_bad", "both_bad", (A, "both_bad"), None, False),
    (A, "tie", "left", (A, "tie"), None, True),
    (B, "both_bad", "tie", (B, "tie"), None, True),
    (B, "left", "both_bad", (B, "tie"), None, True),
])
def test_two_answers_combine_by_hand(first_left: str, first: str, second: str,
                                     vote: tuple[str, str], winner: str | None,
                                     conflicted: bool) -> None:
    result = combined(first_left, first, second)
    assert (result.vote(), result.winner, result.conflicted) == (vote, winner, conflicted)


def test_the_outcome_does_not_depend_on_which_order_was_asked_first() -> None:
    choices = ["left", "right", "tie", "both_bad"]
    for first, second in itertools.product(choices, repeat=2):
        a_first = combined(A, first, second)
        b_first = combined(B, second, first)
        assert (a_first.winner, a_first.conflicted) == (b_first.winner, b_first.conflicted)
        assert (a_first.choice in {"tie", "both_bad"}) == (b_first.choice in {"tie", "both_bad"})


def test_a_conflict_names_both_answers_in_the_judge_page_words() -> None:
    result = combined(A, "tie", "left")  # A left: "About the same"; B left: B better
    assert result.reason == (f"the two side orders disagreed: About the same ({A} on the "
                             f"left) / {B} better ({B} on the left)")
    result = combined(B, "right", "both_bad")
    assert result.reason == (f"the two side orders disagreed: {A} better ({B} on the left) "
                             f"/ Both bad ({A} on the left)")
