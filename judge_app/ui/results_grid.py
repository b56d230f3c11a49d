"""The judge page's results: both rankings, rank by rank, with grade buttons, as ONE element.

Drawn as Streamlit elements, a query's twenty results and their twenty grade groups made the
browser rebuild some sixty React elements on every vote (about 0.2 s of its main thread). Here
the grid is one ``st.components.v2`` component: Python sends the rows as JSON data, the
script below builds them with ``textContent`` (never as HTML, so a title holding an HTML
tag shows as the tag's text and runs nothing) and, on every grade click, sends the grid's
whole state ``{"view", "seq", "grades": [[doc, grade or null], ...]}`` as a state value.
What is accepted and written from it is :mod:`judge_app.services.grading`'s business.

The script keeps the judge's clicks on the view on screen until the server has applied them
(``acked`` in the data reaches the click's ``seq``), then shows what the server stored.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import zip_longest
from typing import Any

import streamlit as st

from judge_app.services.grading import ViewGrades
from judge_app.services.judging import ResultRow, SideBySide
from metrics.scale import GradeScale

SNIPPET_CHARS = 1000
"""How much of a field a result shows when the full text is asked for (one line otherwise)."""
LINE_CHARS = 200
"""A one-line snippet never shows more than this."""

KEY = "results"
"""The grid's widget key (one grid on the page)."""

_CSS = """
:host { display: block; }
.grid { font-family: var(--st-font); color: var(--st-text-color); font-size: 0.95rem; }
.heads, .rank { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
  column-gap: 1.5rem; }
.heads { font-weight: 600; padding-bottom: 0.2rem; }
.rank { border-top: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.12));
  padding: 0.3rem 0 0.2rem; }
.cell { min-width: 0; }
.title { margin: 0 0 0.1rem; line-height: 1.4; display: -webkit-box; -webkit-line-clamp: 2;
  -webkit-box-orient: vertical; overflow: hidden; overflow-wrap: anywhere; }
.details { margin: 0 0 0.15rem; white-space: nowrap; overflow: hidden;
  text-overflow: ellipsis; font-size: 0.82rem; line-height: 1.5; }
.full .title { display: block; }
.full .details { white-space: normal; overflow-wrap: anywhere; }
@media (max-width: 1600px) { .grid:not(.full) .title { -webkit-line-clamp: 1; } }
.badge { display: inline-block; border-radius: 0.5rem; padding: 0 0.4rem; margin-right: 0.3rem;
  font-size: 0.8rem; }
/* the theme's badge colours (light and dark themes each define them) */
.unlabelled { color: var(--st-orange-text-color); background: var(--st-orange-background-color); }
.expert { color: var(--st-violet-text-color); background: var(--st-violet-background-color); }
.relevant { color: var(--st-green-text-color); background: var(--st-green-background-color); }
.irrelevant { color: var(--st-gray-text-color); background: var(--st-gray-background-color); }
.shared { color: var(--st-blue-text-color); background: var(--st-blue-background-color); }
.snippet { opacity: 0.65; }
.empty { opacity: 0.65; font-size: 0.85rem; }
.grades { display: flex; flex-wrap: wrap; gap: 0.25rem; }
.grades button { font: inherit; font-size: 0.78rem; line-height: 1.3; min-height: 1.4rem;
  padding: 0 0.45rem; border-radius: 1rem; cursor: pointer; color: inherit;
  background: var(--st-background-color, white);
  border: 1px solid var(--st-border-color, rgba(49, 51, 63, 0.2)); }
.grades button:hover { border-color: var(--st-primary-color); color: var(--st-primary-color); }
.grades button[aria-pressed="true"] { border-color: var(--st-primary-color);
  color: var(--st-primary-color);
  background: color-mix(in srgb, var(--st-primary-color) 10%, transparent); }
"""

# Every text is set with textContent or an attribute: nothing from the data is parsed as HTML.
# Doc ids are keys of Maps, never of plain objects (an id such as "constructor" or
# "__proto__" would find the object's own properties).
_JS = """
export default function ({ data, parentElement, setStateValue }) {
  let grid = parentElement.querySelector('.grid');
  if (!grid) {
    grid = document.createElement('div');
    parentElement.appendChild(grid);
  }
  const sameView = grid.dataset.view === data.view;
  if (!sameView || !grid.sxsGrades || data.acked >= grid.sxsSeq) {
    grid.sxsGrades = new Map(data.selected);  // what the server stored; no click pending
    grid.sxsSeq = Math.max(grid.sxsSeq || 0, data.acked);  // never reused: the server
    // ignores a state whose seq is not above the last one it applied on the view
  }
  const grades = grid.sxsGrades;
  grid.className = data.full ? 'grid full' : 'grid';
  grid.dataset.view = data.view;
  const element = (tag, className, text) => {
    const made = document.createElement(tag);
    if (className) made.className = className;
    if (text !== undefined && text !== null) made.textContent = text;
    return made;
  };
  const groups = new Map();  // doc id -> its grade groups (a doc both runs show has two)
  const badges = new Map();  // doc id -> [its badge element, its row] per side showing it
  const names = new Map(data.scale);
  // the judge's own grade, once given, is the badge of a result the dataset has not
  // labelled: at the click, before the server has answered
  const badgeOf = (row) => {
    if (!row.takes_grade || grades.get(row.doc) == null) return row.badge;
    return ['expert', names.get(grades.get(row.doc)) + ' (yours)'];
  };
  const showBadge = (span, row) => {
    const [kind, text] = badgeOf(row);
    span.className = 'badge ' + kind;
    span.textContent = text;
  };
  const press = (doc) => {
    for (const group of groups.get(doc) || []) {
      for (const button of group.children) {
        const on = grades.get(doc) === Number(button.dataset.grade);
        button.setAttribute('aria-pressed', String(on));
      }
    }
    for (const [span, row] of badges.get(doc) || []) showBadge(span, row);
  };
  const choose = (doc, value) => {
    grades.delete(doc);  // set again at the end: the grades in the order last set
    grades.set(doc, value);
    grid.sxsSeq += 1;
    press(doc);
    setStateValue('grades', { view: data.view, seq: grid.sxsSeq, grades: [...grades] });
  };
  const cell = (row, side) => {
    const box = element('div', 'cell ' + side);
    if (!row) {
      box.appendChild(element('p', 'empty', 'No result at this rank.'));
      return box;
    }
    box.dataset.doc = row.doc;
    const title = element('p', 'title');
    title.appendChild(element('strong', null, row.rank + '.'));
    title.appendChild(document.createTextNode(' ' + row.title));
    title.title = row.title;
    box.appendChild(title);
    const details = element('p', 'details');
    const label = element('span', 'badge');
    showBadge(label, row);
    if (!badges.has(row.doc)) badges.set(row.doc, []);
    badges.get(row.doc).push([label, row]);
    details.appendChild(label);
    if (row.shared) details.appendChild(element('span', 'badge shared', row.shared));
    if (row.snippet) details.appendChild(element('span', 'snippet', row.snippet));
    box.appendChild(details);
    const group = element('div', 'grades');
    group.setAttribute('role', 'group');
    group.setAttribute('aria-label', 'Grade result ' + row.rank + ' ' + side);
    for (const [value, name] of data.scale) {
      const button = element('button', null, name);
      button.type = 'button';
      button.dataset.grade = String(value);
      button.addEventListener('click', () => {
        choose(row.doc, grades.get(row.doc) === value ? null : value);
      });
      group.appendChild(button);
    }
    if (!groups.has(row.doc)) groups.set(row.doc, []);
    groups.get(row.doc).push(group);
    box.appendChild(group);
    return box;
  };
  const rows = [];
  if (data.heads) {
    const heads = element('div', 'heads');
    for (const name of data.heads) heads.appendChild(element('div', 'cell', name));
    rows.push(heads);
  }
  data.rows.forEach(([left, right], index) => {
    const rank = element('div', 'rank');
    rank.dataset.rank = String(index + 1);
    rank.appendChild(cell(left, 'left'));
    rank.appendChild(cell(right, 'right'));
    rows.push(rank);
  });
  for (const doc of groups.keys()) press(doc);
  // A grade click redraws the grid: the keyboard focus stays on the same button (without
  // scrolling). A new query starts with no focus in the grid, so the page stays at its top.
  const focused = sameView ? parentElement.activeElement : null;
  const again = focused && focused.dataset && focused.dataset.grade !== undefined
    ? { rank: focused.closest('.rank')?.dataset.rank,
        side: focused.closest('.cell')?.classList.contains('left') ? 'left' : 'right',
        grade: focused.dataset.grade } : null;
  grid.replaceChildren(...rows);
  if (again) {
    grid.querySelector(`.rank[data-rank="${again.rank}"] .cell.${again.side} ` +
                       `button[data-grade="${again.grade}"]`)?.focus({ preventScroll: true });
  }
}
"""

_GRID = st.components.v2.component("sxs.results_grid", css=_CSS, js=_JS)


def badge(row: ResultRow) -> tuple[str, str]:
    """(kind, text) of a result's label badge: unlabelled, the experts' grade (as shown to
    this judge), or the dataset's grade (relevant when above 0).  Once this judge grades a
    result the dataset has not labelled, the grid's script shows their grade instead
    (``"Useful (yours)"``) at the click, and again on every redraw of the view."""
    if row.grade is None:
        return "unlabelled", "unlabelled"
    if row.label_source == "expert":
        return "expert", f"{row.grade_name} (expert)"
    return ("relevant" if row.grade > 0 else "irrelevant"), str(row.grade_name or row.grade)


def snippet(row: ResultRow, fields: list[str], full_text: bool) -> str:
    """The chosen fields, ``name: value`` joined by `` · ``, each cut at :data:`LINE_CHARS`
    (:data:`SNIPPET_CHARS` with the full text) with an ellipsis, then every run of white
    space (newlines, tabs) made one space."""
    limit = SNIPPET_CHARS if full_text else LINE_CHARS
    parts = []
    for name in fields:
        value = row.fields.get(name)
        if value:
            shown = value if len(value) <= limit else value[:limit] + "…"
            parts.append(f"{name}: {' '.join(shown.split())}")
    return " · ".join(parts)


def _row(row: ResultRow | None, fields: list[str], other_side: str,
         full_text: bool) -> dict[str, Any] | None:
    if row is None:
        return None
    return {"rank": int(row.rank), "doc": row.doc_id, "title": " ".join(row.title.split()),
            "badge": list(badge(row)),
            # the judge's grade becomes the badge unless the dataset labelled the result
            "takes_grade": row.label_source != "dataset",
            "shared": (f"#{int(row.other_rank)} {other_side}" if row.other_rank is not None
                       else None),
            "snippet": snippet(row, fields, full_text)}


def grid_data(view: SideBySide, fields: list[str], scale: GradeScale, grades: ViewGrades,
              full_text: bool, run_names: bool) -> dict[str, Any]:
    """What the grid draws for ``view``: rank rows of (left, right) results (``None`` where a
    run has no result at that rank), the scale's grades in its order, the grades this session
    stored on the view (``selected``, [doc, value] pairs) and the last state applied
    (``acked``), and the runs' names as column heads unless blind (``run_names`` false)."""
    return {
        "view": view.view_id,
        "full": bool(full_text),
        "heads": [view.left_run, view.right_run] if run_names else None,
        "scale": [[int(value), name] for value, name in scale.grades],
        "selected": [[doc, int(value)] for doc, value in grades.chosen.items()],
        "acked": int(grades.seq),
        "rows": [[_row(left, fields, "right", full_text), _row(right, fields, "left", full_text)]
                 for left, right in zip_longest(view.left, view.right)],
    }


def sent_state() -> object:
    """The grid's state as the browser last sent it (see
    :func:`judge_app.services.grading.sent_grades`), for ``on_change``."""
    return st.session_state[KEY]["grades"]


def results_grid(data: dict[str, Any], on_change: Callable[[], None]) -> None:
    """Mount the grid with :func:`grid_data`'s ``data``; ``on_change`` runs whenever the
    browser sends a new state (read it with :func:`sent_state`)."""
    _GRID(key=KEY, data=data, on_grades_change=on_change, width="stretch", height="content")
