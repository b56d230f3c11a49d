"""The LLM answers the human judge page's question: which of two rankings serves the query
better?

Each query is asked twice, once per side order: run A left and run B right, then the other way
round; which order goes first is a seeded coin flip per (query, pair of runs)
(:func:`metrics.votes.left_run_for`, the app's own draw).  Both answers are read in run
terms.  When they agree, that is the LLM's vote; when they differ — the model followed the
position, not the content — the vote is *About the same* (``tie``) and the result says it
``conflicted``.  If either call fails there is no vote, only the failure records.

The vote is stored like a human's: ``left_run`` is the run shown on the left in the first
order asked, and ``choice`` is relative to it (:meth:`PreferenceResult.vote`).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Hashable, Iterable, Sequence
from dataclasses import dataclass

from judge_app.errors import SxsError
from judge_app.llm.answers import parse_choice
from judge_app.llm.prompts import PREFER, Document, prefer_messages
from judge_app.llm.runner import CallRecord, CallSpec, Job, Progress, Runner, RunSummary
from metrics.votes import Choice, left_run_for, preferred_run


@dataclass(frozen=True)
class PreferItem:
    """One query and the two runs' top-k documents, in rank order."""

    query_id: str
    query: str
    run_a: str
    run_b: str
    a_docs: Sequence[Document]
    b_docs: Sequence[Document]

    def __post_init__(self) -> None:
        if self.run_a == self.run_b:
            raise SxsError("choose two different runs to compare")

    @property
    def key(self) -> tuple[str, str, str]:
        """``(query_id, run_a, run_b)``: what ``done`` holds for a query already compared."""
        return (self.query_id, self.run_a, self.run_b)

    def docs(self, run: str) -> Sequence[Document]:
        return self.a_docs if run == self.run_a else self.b_docs

    def other(self, run: str) -> str:
        return self.run_b if run == self.run_a else self.run_a


@dataclass(frozen=True)
class SideAnswer:
    """One answer, with the sides it was given: ``choice`` is relative to ``left_run``."""

    left_run: str
    right_run: str
    choice: str
    reason: str

    @property
    def winner(self) -> str | None:
        """The run preferred, or None for *same* and *both bad*."""
        return preferred_run(self.choice, self.left_run, self.right_run)

    @property
    def said(self) -> str:
        """The answer whichever side each run was on: the run preferred, else the choice
        (*tie* or *both_bad*, which read the same from either side)."""
        return self.winner or self.choice

    def describe(self) -> str:
        return f"{self.winner} better" if self.winner else Choice(self.choice).label


@dataclass(frozen=True)
class PreferenceResult:
    """The LLM's vote on one query, from both side orders.

    ``records`` are the calls made (two, or fewer when one failed); ``answers`` their parsed
    answers in the order asked (empty unless both calls succeeded)."""

    item: PreferItem
    first_left: str
    records: tuple[CallRecord, ...]

    @property
    def ok(self) -> bool:
        return len(self.records) == 2 and all(record.ok for record in self.records)

    @property
    def raw_answers(self) -> tuple[str, ...]:
        """The replies as received, in the order asked (a failed call's error text too)."""
        return tuple(record.raw for record in self.records)

    @property
    def answers(self) -> tuple[SideAnswer, ...]:
        if not self.ok:
            return ()
        return tuple(SideAnswer(str(r.left_run), self.item.other(str(r.left_run)),
                                str(r.value), r.reason or "") for r in self.records)

    @property
    def conflicted(self) -> bool:
        """Both answers read, and they differ once put on the same sides (position bias)."""
        first, second = self.answers or (None, None)
        return first is not None and first.said != second.said

    @property
    def choice(self) -> str | None:
        """The vote relative to ``first_left`` (app vocabulary); ``tie`` on a conflict."""
        if not self.ok:
            return None
        return Choice.TIE.value if self.conflicted else self.answers[0].choice

    @property
    def winner(self) -> str | None:
        """The run the vote favours (:func:`metrics.votes.preferred_run`), None for none."""
        choice = self.choice
        return None if choice is None else preferred_run(choice, self.first_left,
                                                         self.item.other(self.first_left))

    @property
    def reason(self) -> str | None:
        if not self.ok:
            return None
        first, second = self.answers
        if self.conflicted:
            return (f"the two side orders disagreed: {first.describe()} "
                    f"({first.left_run} on the left) / {second.describe()} "
                    f"({second.left_run} on the left)")
        return first.reason

    def vote(self) -> tuple[str, str]:
        """``(left_run, choice)`` as the store records a vote; only for an ``ok`` result."""
        if self.choice is None:
            raise SxsError(f"query {self.item.query_id}: the LLM gave no usable answer")
        return self.first_left, self.choice


def _parse(text: str) -> tuple[str, str]:
    answer = parse_choice(text)
    return answer.choice, answer.reason


def prefer_job(item: PreferItem, seed: int = 0) -> Job[PreferenceResult]:
    """The job for one query: two calls, the first order drawn from ``seed``."""
    first = left_run_for(f"llm-side-order:{seed}", item.query_id, item.run_a, item.run_b)
    specs = tuple(
        CallSpec(prefer_messages(item.query, item.docs(left), item.docs(item.other(left))),
                 PREFER, _parse, order=order, left_run=left)
        for order, left in enumerate((first, item.other(first))))
    return Job(item.key, specs, lambda records: PreferenceResult(item, first, records))


def prefer_rankings(runner: Runner, items: Iterable[PreferItem], *, seed: int = 0,
                    done: Collection[Hashable] = frozenset(),
                    on_result: Callable[[PreferenceResult], object] | None = None,
                    progress: Progress | None = None) -> RunSummary[PreferenceResult]:
    """Ask each query in both side orders; the summary counts ``conflicts``."""
    jobs = [prefer_job(item, seed) for item in items]
    return runner.run(jobs, done=done, on_result=on_result, progress=progress)
