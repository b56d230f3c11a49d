"""The degenerate-import guard: an import that would leave the dataset's figures meaningless is
refused with one line naming the file, the figure and the likely fix, unless forced.

Measured by the store inside the import's transaction
(:func:`judge_app.store.import_figures.import_figures`), so a refusal stores nothing.  In
this order, the first that holds refuses:

* **no overlap** — the dataset has runs (importing judgments) or judgments (importing a run)
  and no (query, doc) pair of the file is among them.  When an id normalisation would make
  pairs meet, the line names it (``--normalize-ids strip-zeros``, or, when only normalising
  both sides would, re-importing the other side that way too);
* **every grade equal** — two or more judgments, all one grade (metrics could only tell
  judged docs from unjudged ones).  Not for a SMART file, whose listed pairs are all relevant by
  definition;
* **duplicates** — more than :data:`MAX_MERGED_SHARE` of the file's lines were repeats of a
  (query, doc) merged away (usually a wrong id column);
* **one doc per query** — two or more queries, each with exactly one doc.

``--force`` imports anyway.
"""

from __future__ import annotations

from judge_app.errors import InputError
from judge_app.store.import_figures import Check, ImportFigures

MAX_MERGED_SHARE = 0.10
"""The share of a file's lines that may be merged as duplicates before the import is refused."""
FORCE = "--force imports it anyway"


class DegenerateImport(InputError):
    """An import that would leave the dataset degenerate (see the module doc)."""


def degenerate_reason(figures: ImportFigures, merging: bool = False) -> str | None:
    """Why the import is degenerate (one clause with the figure and the fix), else None.
    ``merging``: the user asked for repeated pairs to be merged (``--on-conflict`` other than
    error, ``--dedupe``), so many merged lines are what they meant, not a wrong column."""
    if figures.overlapping is False:
        return _no_overlap(figures)
    if figures.what == "judgments" and figures.rows >= 2 and not figures.listed_relevant \
            and figures.lowest == figures.highest:
        return (f"every one of its {figures.rows:,} judgments has grade {figures.lowest}, so "
                "metrics could only tell judged docs from unjudged ones; check "
                f"--grade-column and --value-map ({FORCE}, e.g. for a file listing only "
                "relevant docs)")
    if not merging and figures.lines and figures.merged > MAX_MERGED_SHARE * figures.lines:
        return (f"{figures.merged:,} of its {figures.lines:,} lines "
                f"({figures.merged / figures.lines:.0%}) repeat a (query, doc) pair and were "
                f"merged; check the query and doc id columns ({FORCE})")
    if figures.one_doc_per_query and figures.rows >= 2:
        return (f"each of its {figures.rows:,} queries has a single doc; check the query "
                f"and doc id columns ({FORCE})")
    return None


def _no_overlap(figures: ImportFigures) -> str:
    said = (f"no overlap: none of its {figures.rows:,} (query, doc) pairs is in the "
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
    return (f"{said} (not even after --normalize-ids {'/'.join(figures.overlap_if)}); check "
            f"the query and doc id columns ({FORCE})")


def guard(source: str, force: bool = False, merging: bool = False) -> Check | None:
    """The check an import runs on its figures: refuses a degenerate one
    (:class:`DegenerateImport`, naming ``source``), unless ``force``; ``merging`` as in
    :func:`degenerate_reason`."""
    if force:
        return None

    def check(figures: ImportFigures) -> None:
        reason = degenerate_reason(figures, merging)
        if reason is not None:
            raise DegenerateImport(source, reason)

    return check
