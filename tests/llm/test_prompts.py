"""The prompts show what the judge needs and are traceable by version and hash."""

from __future__ import annotations

import hashlib

from judge_app.llm.prompts import (
    GRADE,
    PREFER,
    Document,
    grade_messages,
    messages_sha256,
    prefer_messages,
)
from metrics.scale import ESCI, WANDS

DOC = Document("d1", "Red running shoes", {"brand": "Acme", "description": "Light\nand fast"})


def test_the_grade_prompt_names_every_grade_and_its_description() -> None:
    messages = grade_messages("red shoes", DOC, WANDS, {2: "the product asked for"})
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "Query: red shoes" in user
    assert "Title: Red running shoes\nbrand: Acme\ndescription: Light and fast" in user
    assert "- 0 Irrelevant\n- 1 Partial\n- 2 Exact: the product asked for" in user
    assert '{"grade": <one of 0, 1, 2>, "reason": "<one sentence>"}' in user


def test_the_scale_is_the_datasets_own() -> None:
    user = grade_messages("q", DOC, ESCI)[1]["content"]
    assert "- 0 Irrelevant\n- 1 Complement\n- 2 Substitute\n- 3 Exact\n" in user
    assert "<one of 0, 1, 2, 3>" in user


def test_long_fields_are_cut_to_the_snippet_length() -> None:
    doc = Document("d2", "t", {"body": "word " * 500})
    user = grade_messages("q", doc, WANDS, snippet_chars=50)[1]["content"]
    body = next(line for line in user.splitlines() if line.startswith("body: "))
    assert len(body) == len("body: ") + 50 and body.endswith("…")


def test_the_prefer_prompt_shows_left_then_right_in_rank_order() -> None:
    left = [Document("a", "Alpha"), Document("b", "Beta")]
    user = prefer_messages("greek letters", left, [])[1]["content"]
    assert "Left results:\n1. Title: Alpha\n2. Title: Beta\n\nRight results:\n(no results)" in user


def test_a_template_is_versioned_and_hashed_over_its_exact_text() -> None:
    assert GRADE.tag == "grade/v1" and PREFER.tag == "prefer/v1"
    expected = hashlib.sha256((GRADE.system + "\0" + GRADE.user).encode()).hexdigest()
    assert GRADE.sha256 == expected
    assert GRADE.sha256 != PREFER.sha256


def test_the_messages_hash_changes_with_any_word_sent() -> None:
    one = grade_messages("red shoes", DOC, WANDS)
    assert messages_sha256(one) == messages_sha256(grade_messages("red shoes", DOC, WANDS))
    assert messages_sha256(one) != messages_sha256(grade_messages("red shoe", DOC, WANDS))
