"""The degenerate-import guard: an import that would leave the dataset's figures meaningless is
refused with one line naming the file, the figure and the likely fix, unless forced.

Measured by the store before anything is kept
(:func:`judge_app.store.import_figures.import_figures`), so a refusal stores nothing.  In
this order, the first that holds refuses:

* **no overlap** — the dataset has runs (importing judgments), judgments (importing a run)
  or either (importing expert labels, documents or queries) and no (query, doc) pair of the
  file — no doc id of a catalog, no query id of a query file — is among them.  When an id
  normalisation would make them meet, the line names it (``--normalize-ids strip-zeros``,
  or, when only normalising both sides would, re-importing the other side that way too).
  Documents and queries are refused only then: a catalog may hold docs no run retrieved;
* **every grade equal** — two or more judgments (or expert labels), all one grade (metrics
  could only tell judged docs from unjudged ones).  Not for a SMART file, whose listed pairs
  are all relevant by definition;
* **duplicates** — more than :data:`MAX_MERGED_SHARE` of the file's lines were repeats of a
  (query, doc) merged away (for labels: of a judge's label of a pair at the same time),
  usually a wrong id column;
* **one doc per query** — two or more queries, each with exactly one doc (judgments, runs).

``--force`` imports anyway.  An import that is kept but whose overlap with the other side is
partial and would be much larger with a normalisation (:func:`partial_overlap_warning`: at
least twice the keys, and a tenth more of them) gets a one-line warning naming the figures
and the option.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge_app.errors import InputError
from judge_app.store.import_figures import PAIRS, ImportFigures

MAX_MERGED_SHARE = 0.10
"""The share of a file's lines that may be merged as duplicates before the import is refused."""
FORCE = "--force imports it anyway"
WARN_GROWTH = 2.0
"""A partial overlap is worth a warning when a normalisation multiplies it at least by this,"""
WARN_SHARE = 0.10
"""... and adds at least this share of the keys counted."""
_NOUNS = {"judgments": "judgments", "labels": "labels", "run": "(query, doc) pairs",
          "documents": "doc ids", "queries": "query ids"}
_GRADE_HINTS = {"judgments": "--grade-column and --value-map", "labels": "the grade column"}


class DegenerateImport(InputError):
    """An import that would leave the dataset degenerate (see the module doc)."""


def degenerate_reason(figures: ImportFigures, merging: bool = False) -> str | None:
    """Why the import is degenerate (one clause with the figure and the fix), else None.
    ``merging``: the user asked for repeated pairs to be merged (``--on-conflict`` other than
    error, ``--dedupe``), so many merged lines are what they meant, not a wrong column."""
    if figures.overlapping is False:
        return _no_overlap(figures)
    if figures.what in ("judgments", "labels") and figures.rows >= 2 \
            and not figures.listed_relevant and figures.lowest == figures.highest:
        return (f"every one of its {figures.rows:,} {_NOUNS[figures.what]} has grade "
                f"{figures.lowest}, so "
                "metrics could only tell judged docs from unjudged ones; check "
                f"{_GRADE_HINTS[figures.what]} ({FORCE}, e.g. for a file listing only "
                "relevant docs)")
    if not merging and figures.lines and figures.merged > MAX_MERGED_SHARE * figures.lines:
        return (f"{figures.merged:,} of its {figures.lines:,} lines "
                f"({figures.merged / figures.lines:.0%}) repeat a (query, doc) pair and were "
                f"merged; check the query and doc id columns ({FORCE})")
    if figures.one_doc_per_query and figures.rows >= 2:
        return (f"each of its {figures.rows:,} queries has a single doc; check the query "
                f"and doc id columns ({FORCE})")
    return None


def _things(figures: ImportFigures) -> str:
    return "(query, doc) pairs" if figures.keys == PAIRS else _NOUNS[figures.what]


def _no_overlap(figures: ImportFigures) -> str | None:
    said = (f"no overlap: none of its {figures.rows:,} {_things(figures)} is in the "
            f"dataset's {figures.against}")
    alone = [(n, how) for how, (n, _) in figures.overlap_if.items() if n]
    both = [(n, how) for how, (_, n) in figures.overlap_if.items() if n]
    if alone:
        count, how = max(alone)
        return (f"{said}; with --normalize-ids {how}, {count:,} "
                f"{'is' if count == 1 else 'are'} ({FORCE})")
    if both:
        count, how = max(both)
        return (f"{said}; {count:,} {'is' if count == 1 else 'are'} when both sides use "
                f"--normalize-ids {how}: re-import the {figures.against} with it first, then "
                f"this file with it ({FORCE})")
    if figures.keys != PAIRS:
        return None  # a catalog may hold docs (a file queries) that no run has met yet
    return (f"{said} (not even after --normalize-ids {'/'.join(figures.overlap_if)}); check "
            f"the query and doc id columns ({FORCE})")


def partial_overlap_warning(figures: ImportFigures) -> str | None:
    """The clause warning that only part of the keys meet the other side while a
    normalisation of the imported ids would make many more meet (see the module doc)."""
    if not figures.overlapping or not figures.sample or not figures.matched_if:
        return None
    best, how = max((n, how) for how, n in figures.matched_if.items())
    matched, sample = figures.matched, figures.sample
    if best < WARN_GROWTH * matched or best - matched < WARN_SHARE * sample:
        return None
    first = "" if figures.sampled_all else "first "
    return (f"only {matched:,} of its {first}{sample:,} {_things(figures)} "
            f"({matched / sample:.0%}) are in the dataset's {figures.against}; with "
            f"--normalize-ids {how}, {best:,} ({best / sample:.0%}) would be (ids are kept "
            "as written unless it is given)")


@dataclass
class Guard:
    """The check an import runs on its figures (a
    :data:`~judge_app.store.import_figures.Check`): refuses a degenerate one
    (:class:`DegenerateImport`, naming ``source``); keeps the warning lines of one it lets
    through in ``warnings`` (each naming ``source``)."""

    source: str
    merging: bool = False
    warnings: list[str] = field(default_factory=list)

    def __call__(self, figures: ImportFigures) -> None:
        reason = degenerate_reason(figures, self.merging)
        if reason is not None:
            raise DegenerateImport(self.source, reason)
        warning = partial_overlap_warning(figures)
        if warning is not None:
            self.warnings.append(f"warning: {self.source}: {warning}")


def guard(source: str, force: bool = False, merging: bool = False) -> Guard | None:
    """The :class:`Guard` of an import of ``source``; None when ``force`` (nothing is
    measured); ``merging`` as in :func:`degenerate_reason`."""
    if force:
        return None
    return Guard(source, merging)


def warnings_of(check: Guard | None) -> tuple[str, ...]:
    """The warning lines a guard collected (none when forced)."""
    return tuple(check.warnings) if check is not None else ()
