"""The prompts the LLM judge is asked, each a versioned template.

* ``GRADE`` — one query, one document, the dataset's grade scale (each grade's name, and its
  description when the dataset gives one) → ``{"grade": <value>, "reason": "..."}``.
* ``PREFER`` — one query and two top-k lists shown as *Left* and *Right*, the human judge
  page's question → ``{"choice": "left"|"right"|"same"|"both_bad", "reason": "..."}``.

A template's ``version`` changes whenever its text does, and :attr:`PromptTemplate.sha256`
hashes that text, so a stored answer can always be traced to the words that produced it.
Each call also records the SHA-256 of the exact messages sent (:func:`messages_sha256`).

Documents are shown as their title and fields, each field cut to ``snippet_chars``
characters and flattened to one line; an empty list shows as ``(no results)``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from string import Template

from metrics import GradeScale

Messages = list[dict[str, str]]

SNIPPET_CHARS = 300


@dataclass(frozen=True)
class Document:
    """A result as the LLM sees it: its title and display fields (no label, no rank score)."""

    doc_id: str
    title: str
    fields: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PromptTemplate:
    """A system message and a ``string.Template`` user message, with a version."""

    name: str
    version: str
    system: str
    user: str

    @property
    def sha256(self) -> str:
        """SHA-256 of the template's exact text (system, NUL, user)."""
        return hashlib.sha256(f"{self.system}\0{self.user}".encode()).hexdigest()

    @property
    def tag(self) -> str:
        """``grade/v1``: what a stored answer records as its prompt version."""
        return f"{self.name}/{self.version}"

    def render(self, **values: str) -> Messages:
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": Template(self.user).substitute(values)}]


GRADE = PromptTemplate(
    name="grade", version="v1",
    system=("You are an expert search relevance judge. You grade how well one document "
            "answers a search query, on a fixed grade scale. Reply with one JSON object and "
            "nothing else."),
    user="""Query: $query

Document:
$document

Grade scale, lowest first:
$scale

How relevant is this document to the query? Reply with one JSON object:
{"grade": <one of $values>, "reason": "<one sentence>"}""")

PREFER = PromptTemplate(
    name="prefer", version="v1",
    system=("You are an expert search relevance judge. You compare two search engines' "
            "result lists for the same query and say which serves the searcher better. "
            "Reply with one JSON object and nothing else."),
    user="""Query: $query

Left results:
$left

Right results:
$right

Which list serves this query better? Judge the whole list, giving more weight to the top
results. Reply with one JSON object:
{"choice": "left" | "right" | "same" | "both_bad", "reason": "<one line>"}
"left" or "right": that list is better; "same": about equally good; "both_bad": neither list
serves the query.""")


def _line(text: str, limit: int) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def document_text(doc: Document, snippet_chars: int = SNIPPET_CHARS) -> str:
    """``Title: ...`` then one ``name: value`` line per non-empty field."""
    lines = [f"Title: {_line(doc.title, snippet_chars)}"]
    lines += [f"{_line(name, 60)}: {_line(value, snippet_chars)}"
              for name, value in doc.fields.items() if str(value).strip()]
    return "\n".join(lines)


def scale_text(scale: GradeScale, descriptions: Mapping[int, str] | None = None) -> str:
    """One line per grade: ``- 2 Exact: <description>`` (the description only when given)."""
    descriptions = descriptions or {}
    lines = []
    for value, name in scale.grades:
        note = descriptions.get(value, "").strip()
        lines.append(f"- {value} {name}" + (f": {_line(note, 400)}" if note else ""))
    return "\n".join(lines)


def ranking_text(docs: Sequence[Document], snippet_chars: int = SNIPPET_CHARS) -> str:
    """``1. Title: ...`` blocks in rank order, or ``(no results)``."""
    if not docs:
        return "(no results)"
    return "\n".join(f"{rank}. " + document_text(doc, snippet_chars).replace("\n", "\n   ")
                     for rank, doc in enumerate(docs, start=1))


def grade_messages(query: str, doc: Document, scale: GradeScale,
                   descriptions: Mapping[int, str] | None = None,
                   snippet_chars: int = SNIPPET_CHARS) -> Messages:
    """The :data:`GRADE` prompt for one (query, document)."""
    return GRADE.render(query=_line(query, 1000), document=document_text(doc, snippet_chars),
                        scale=scale_text(scale, descriptions),
                        values=", ".join(str(value) for value in scale.values))


def prefer_messages(query: str, left: Sequence[Document], right: Sequence[Document],
                    snippet_chars: int = SNIPPET_CHARS) -> Messages:
    """The :data:`PREFER` prompt with ``left`` and ``right`` in the order given."""
    return PREFER.render(query=_line(query, 1000), left=ranking_text(left, snippet_chars),
                         right=ranking_text(right, snippet_chars))


def messages_sha256(messages: Sequence[Mapping[str, str]]) -> str:
    """SHA-256 of the exact messages sent (canonical JSON: sorted keys, no spaces)."""
    text = json.dumps(list(messages), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()
