"""The LLM grades (query, document) pairs on the dataset's own scale.

The caller chooses the items and their order — the unlabelled top-k results, heaviest on the
metric first (the backfill order) — and the budget is spent in that order.  Each item is one
call of the :data:`~judge_app.llm.prompts.GRADE` prompt; a failed call gives a result with
``grade`` None and the failure in its record, never a grade.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass

from judge_app.llm.answers import parse_grade
from judge_app.llm.prompts import GRADE, Document, grade_messages
from judge_app.llm.runner import CallRecord, CallSpec, Job, Progress, Runner, RunSummary
from metrics import GradeScale


@dataclass(frozen=True)
class GradeItem:
    """One (query, document) to grade."""

    query_id: str
    query: str
    doc: Document

    @property
    def key(self) -> tuple[str, str]:
        """``(query_id, doc_id)``: what ``done`` holds for an item already graded."""
        return (self.query_id, self.doc.doc_id)


@dataclass(frozen=True)
class GradeResult:
    """The LLM's grade of one item, or its failure (``grade`` None, ``record.failure`` set)."""

    item: GradeItem
    record: CallRecord

    @property
    def ok(self) -> bool:
        return self.record.ok

    @property
    def grade(self) -> int | None:
        value = self.record.value
        return value if self.record.ok and isinstance(value, int) else None

    @property
    def reason(self) -> str | None:
        return self.record.reason if self.record.ok else None


def grade_job(item: GradeItem, scale: GradeScale,
              descriptions: Mapping[int, str] | None = None) -> Job[GradeResult]:
    """The job that grades ``item``: one call of the GRADE prompt."""

    def parse(text: str) -> tuple[int, str]:
        answer = parse_grade(text, scale)
        return answer.grade, answer.reason

    spec = CallSpec(grade_messages(item.query, item.doc, scale, descriptions), GRADE, parse)
    return Job(item.key, (spec,), lambda records: GradeResult(item, records[0]))


def grade_documents(runner: Runner, items: Iterable[GradeItem], scale: GradeScale, *,
                    descriptions: Mapping[int, str] | None = None,
                    done: Collection[Hashable] = frozenset(),
                    on_result: Callable[[GradeResult], object] | None = None,
                    progress: Progress | None = None) -> RunSummary[GradeResult]:
    """Grade ``items`` in order, skipping those whose ``key`` is in ``done``."""
    jobs = [grade_job(item, scale, descriptions) for item in items]
    return runner.run(jobs, done=done, on_result=on_result, progress=progress)
