"""Reading the LLM's answers, strictly.

An answer is a JSON object — the whole reply, or the whole reply inside one Markdown fence
(```` ```json ... ``` ```` or ```` ``` ... ``` ````).  Prose around it, two objects, a grade
that is not an integer on the dataset's scale, or a choice outside the four words is an
:class:`AnswerError`: the caller stores a failure with the raw text, never a grade or a vote.

The LLM answers a preference in the words of :data:`LLM_CHOICES` (``left``, ``right``,
``same``, ``both_bad``); they are read into the app's vote vocabulary
(:data:`metrics.votes.CHOICES`), where *same* is ``tie``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from metrics import GradeScale
from metrics.votes import CHOICES

# The app's choices as the prompt spells them: the tie is asked for as "same".
_SPOKEN = {"tie": "same"}
LLM_CHOICES: dict[str, str] = {_SPOKEN.get(choice, choice): choice for choice in CHOICES}

_FENCE = re.compile(r"\A```[A-Za-z]*[ \t]*\n(?P<body>.*?)\n?```\Z", re.DOTALL)


class AnswerError(ValueError):
    """The reply is not a usable answer; ``reason`` says why in one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class GradeAnswer:
    grade: int
    reason: str


@dataclass(frozen=True)
class ChoiceAnswer:
    choice: str  # one of metrics.votes.CHOICES, relative to the sides as shown
    reason: str


def json_object(text: str) -> dict:
    """The one JSON object that is the whole reply, or the whole of one fenced block."""
    body = text.strip()
    if not body:
        raise AnswerError("empty answer")
    fenced = _FENCE.match(body)
    if fenced:
        body = fenced.group("body").strip()
    try:
        data = json.loads(body)
    except ValueError:
        raise AnswerError("the answer is not a JSON object") from None
    if not isinstance(data, dict):
        raise AnswerError(f"the answer is JSON {type(data).__name__}, not an object")
    return data


def _reason(data: dict) -> str:
    reason = data.get("reason", "")
    if not isinstance(reason, str):
        raise AnswerError("'reason' must be a string")
    return " ".join(reason.split())


def parse_grade(text: str, scale: GradeScale) -> GradeAnswer:
    """``{"grade": g, "reason": "..."}`` with ``g`` an integer on ``scale``.

    ``2`` and ``2.0`` are the grade 2; ``"2"``, ``true``, ``2.5`` and a grade's name are not
    accepted (the prompt asks for the number)."""
    data = json_object(text)
    if "grade" not in data:
        raise AnswerError("the answer has no 'grade'")
    grade = data["grade"]
    if isinstance(grade, float) and grade.is_integer():
        grade = int(grade)
    if isinstance(grade, bool) or not isinstance(grade, int):
        raise AnswerError(f"'grade' must be an integer; got {json.dumps(grade)}")
    if grade not in scale.values:
        raise AnswerError(f"grade {grade} is not on the scale {scale.describe()}")
    return GradeAnswer(grade, _reason(data))


def parse_choice(text: str) -> ChoiceAnswer:
    """``{"choice": c, "reason": "..."}`` with ``c`` one of :data:`LLM_CHOICES` (case and
    surrounding blanks ignored), read into the app's vocabulary."""
    data = json_object(text)
    said = data.get("choice")
    if not isinstance(said, str):
        raise AnswerError("the answer has no 'choice' string")
    choice = LLM_CHOICES.get(said.strip().casefold())
    if choice is None:
        raise AnswerError(f"choice {said!r} is not one of {', '.join(LLM_CHOICES)}")
    return ChoiceAnswer(choice, _reason(data))
