"""Grades sent by the judge page's results grid: which are accepted, and what is written.

The grid (:mod:`judge_app.ui.results_grid`) sends its whole state on every click, never a
single event: ``{"view": view id, "seq": n, "grades": [[doc id, grade or null], ...]}``,
the judge's grades on that view in the order they were last set.  Streamlit keeps only the
newest of several widget values sent before the server answers, so a state loses nothing
where a series of click events would keep only the last one; the server works out what
changed against what it has already stored from this session (:func:`apply_grades`).

A state is hostile input like any other: :func:`sent_grades` accepts it only whole, for a
view this session was issued (the one on screen, or one of the few before it: a click sent
while the next query was being drawn still names the query and result it was made on),
naming only docs that view shows and grades of the dataset's scale (or null).
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field

from judge_app.services import judging
from judge_app.services.judging import SideBySide
from judge_app.store import Dataset, Store
from metrics.scale import GradeScale

RECENT_VIEWS = 4
"""How many of a session's latest views still accept grades."""


@dataclass
class ViewGrades:
    """One view issued to this session, and the grades this session stored on it."""

    view: SideBySide
    chosen: dict[str, int] = field(default_factory=dict)  # doc -> the grade stored last
    edits: dict[str, int] = field(default_factory=dict)  # doc -> grades stored so far
    seq: int = 0  # the last state applied (the grid redraws from ``chosen`` once it sees it)


def remember_view(views: MutableMapping[str, ViewGrades], view: SideBySide) -> ViewGrades:
    """Keep ``view`` among the session's views that accept grades (the latest
    :data:`RECENT_VIEWS`, oldest dropped first)."""
    kept = views.get(view.view_id)
    if kept is None:
        kept = views[view.view_id] = ViewGrades(view)
        for stale in list(views)[:-RECENT_VIEWS]:
            del views[stale]
    return kept


@dataclass(frozen=True)
class SentGrades:
    """A grid state accepted for one of the session's views.  It holds every doc the judge
    has graded on the view; a doc missing from it is unchanged (never withdrawn: a withdrawal
    is the doc with a null grade)."""

    view_id: str
    seq: int
    grades: list[tuple[str, int | None]]  # (doc, grade or None), in the order last set


def sent_grades(state: object, views: MutableMapping[str, ViewGrades],
                scale: GradeScale) -> SentGrades | None:
    """``state`` if it is a whole, well-formed grid state for one of ``views``: an ``int``
    ``seq`` (not a bool), each doc at most once and shown by that view, each grade a value of
    ``scale`` (an ``int``: not ``true``, ``2.0`` or ``"2"``) or null; else None."""
    if not isinstance(state, dict) or not isinstance(state.get("view"), str):
        return None
    kept = views.get(state["view"])
    seq, sent = state.get("seq"), state.get("grades")
    if kept is None or type(seq) is not int or not isinstance(sent, list):
        return None
    shown = {row.doc_id for row in (*kept.view.left, *kept.view.right)}
    grades: list[tuple[str, int | None]] = []
    seen: set[str] = set()
    for entry in sent:
        if not (isinstance(entry, list) and len(entry) == 2):
            return None
        doc, value = entry
        if not isinstance(doc, str) or doc not in shown or doc in seen:
            return None
        seen.add(doc)
        if value is not None and (type(value) is not int or value not in scale.values):
            return None
        grades.append((doc, value))
    return SentGrades(state["view"], seq, grades)


def apply_grades(store: Store, dataset: Dataset, judge: str, state: object,
                 views: MutableMapping[str, ViewGrades], scale: GradeScale) -> int:
    """Store what changed in the grid state ``state`` since this session's last one, in the
    order the judge set it: a new or different grade is a label (its token counts the
    judge's edits of the doc on this view, so the same state sent twice stores once), a
    grade set back to null withdraws it (a row; history kept).

    Nothing is stored from a state :func:`sent_grades` refuses, nor from one older than (or
    the same as) the last applied on its view (``seq`` not above :attr:`ViewGrades.seq`: a
    state delayed behind a newer one must not undo it).  If the store raises part-way (a
    revoked judge, a lost connection), what was stored stays stored, the state still counts
    as applied (so the grid shows what the store holds) and the error propagates.  Returns
    the number of rows written (a label whose token was already stored, or a withdrawal of
    a grade the store no longer holds as current, writes none)."""
    sent = sent_grades(state, views, scale)
    if sent is None or sent.seq <= views[sent.view_id].seq:
        return 0
    kept = views[sent.view_id]
    written = 0
    try:
        for doc, value in sent.grades:
            if kept.chosen.get(doc) == value:
                continue
            if value is None:
                written += judging.withdraw_grade(store, dataset, kept.view.query_id, doc, judge)
                del kept.chosen[doc]
            else:
                count = kept.edits.get(doc, 0)
                written += judging.record_grade(store, dataset, kept.view.view_id,
                                                kept.view.query_id, doc, value, judge,
                                                change=count, policy=kept.view.policy)
                kept.edits[doc] = count + 1
                kept.chosen[doc] = value
    finally:
        kept.seq = sent.seq
    return written
