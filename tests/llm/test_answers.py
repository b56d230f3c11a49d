"""Replies are read strictly: one JSON object (possibly fenced), values from the vocabulary."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from judge_app.llm.answers import LLM_CHOICES, AnswerError, parse_choice, parse_grade
from judge_app.llm.prompts import PREFER
from metrics.scale import ESCI, WANDS
from metrics.votes import CHOICES


@pytest.mark.parametrize("text", [
    '{"grade": 2, "reason": "close match"}',
    '  {"grade": 2, "reason": "close match"}\n',
    '```json\n{"grade": 2, "reason": "close match"}\n```',
    '```\n{"grade": 2, "reason": "close match"}\n```',
    '{"grade": 2.0, "reason": "close match"}',
    '{"reason": "close   match", "grade": 2, "confidence": 0.8}',
])
def test_a_grade_is_read_from_a_json_object_or_a_fenced_one(text: str) -> None:
    answer = parse_grade(text, WANDS)
    assert (answer.grade, answer.reason) == (2, "close match")


@pytest.mark.parametrize(("text", "why"), [
    ("", "empty answer"),
    ("   \n", "empty answer"),
    ("The grade is 2.", "not a JSON object"),
    ('Here you go: {"grade": 2, "reason": "x"}', "not a JSON object"),
    ('{"grade": 2, "reason": "x"} I hope that helps', "not a JSON object"),
    ('{"grade": 2}\n{"grade": 1}', "not a JSON object"),
    ('```json\n{"grade": 2}\n```\nAnd also...', "not a JSON object"),
    ("[2]", "JSON list, not an object"),
    ('{"reason": "x"}', "no 'grade'"),
    ('{"grade": "2", "reason": "x"}', "must be an integer"),
    ('{"grade": true, "reason": "x"}', "must be an integer"),
    ('{"grade": 1.5, "reason": "x"}', "must be an integer"),
    ('{"grade": "Exact", "reason": "x"}', "must be an integer"),
    ('{"grade": 3, "reason": "x"}', "not on the scale 0 Irrelevant, 1 Partial, 2 Exact"),
    ('{"grade": -1, "reason": "x"}', "not on the scale"),
    ('{"grade": 2, "reason": 7}', "'reason' must be a string"),
])
def test_anything_else_is_an_answer_error_saying_why(text: str, why: str) -> None:
    with pytest.raises(AnswerError, match=why.replace("(", r"\(")):
        parse_grade(text, WANDS)


@given(st.sampled_from(ESCI.values), st.text(max_size=40))
def test_every_grade_on_the_scale_reads_back(grade: int, reason: str) -> None:
    answer = parse_grade(json.dumps({"grade": grade, "reason": reason}), ESCI)
    assert answer.grade == grade
    assert answer.reason == " ".join(reason.split())


@given(st.integers().filter(lambda value: value not in ESCI.values))
def test_no_grade_off_the_scale_is_accepted(grade: int) -> None:
    with pytest.raises(AnswerError, match="not on the scale"):
        parse_grade(json.dumps({"grade": grade, "reason": ""}), ESCI)


@given(st.text(max_size=60))
def test_arbitrary_text_is_a_grade_or_an_answer_error(text: str) -> None:
    try:
        answer = parse_grade(text, ESCI)
    except AnswerError:
        return
    assert answer.grade in ESCI.values


def test_the_llm_says_same_and_the_app_stores_tie() -> None:
    assert LLM_CHOICES == {"left": "left", "right": "right", "same": "tie",
                           "both_bad": "both_bad"}
    assert set(LLM_CHOICES.values()) == set(CHOICES)
    for said in LLM_CHOICES:
        assert f'"{said}"' in PREFER.user  # the prompt offers every word it may answer


@pytest.mark.parametrize(("said", "stored"), [
    ("left", "left"), ("right", "right"), ("same", "tie"), ("both_bad", "both_bad"),
    (" LEFT ", "left"), ("Same", "tie"),
])
def test_a_choice_is_read_into_the_app_vocabulary(said: str, stored: str) -> None:
    answer = parse_choice(json.dumps({"choice": said, "reason": "more on topic"}))
    assert (answer.choice, answer.reason) == (stored, "more on topic")


@pytest.mark.parametrize("text", [
    '{"choice": "tie", "reason": "x"}', '{"choice": "both bad", "reason": "x"}',
    '{"choice": "Left better"}', '{"choice": 1}', '{"reason": "x"}', "left", "",
    '{"choice": "left", "reason": ["x"]}',
])
def test_a_choice_outside_the_four_words_is_refused(text: str) -> None:
    with pytest.raises(AnswerError):
        parse_choice(text)
