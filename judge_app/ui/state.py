"""Session-state keys, in one place (pages never spell them as loose strings)."""

from __future__ import annotations

from typing import Final

JUDGE: Final = "sxs.judge"
DATASET: Final = "sxs.dataset"
RUN_A: Final = "sxs.run_a"
RUN_B: Final = "sxs.run_b"
DEPTH: Final = "sxs.depth"
BLIND: Final = "sxs.blind"
FIELDS: Final = "sxs.fields"
OVERLAP: Final = "sxs.overlap"
VIEW: Final = "sxs.view"  # the SideBySide on screen
VIEW_SHOWN_AT: Final = "sxs.view_shown_at"
SKIPPED: Final = "sxs.skipped"  # queries skipped this session, shown last
GRADE_EDITS: Final = "sxs.grade_edits"  # (view, doc) -> edits so far, for grade tokens
LAST_REVEAL: Final = "sxs.last_reveal"  # what the previous vote was, with run names
BACKFILL_VIEW: Final = "sxs.backfill_view"
BACKFILL_START: Final = "sxs.backfill_start_coverage"
FOCUS: Final = "sxs.focus"  # a query to show next (after an undo)
VIEW_KEY: Final = "sxs.view_key"  # the set-up the view on screen was built for
CALLBACK_ERROR: Final = "sxs.callback_error"  # an SxsError a widget callback raised
COUNT_LLM: Final = "sxs.count_llm"  # an admin opted in to the LLM judge's labels
FULL_TEXT: Final = "sxs.full_text"  # judge page: whole titles and long snippets
