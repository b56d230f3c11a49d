"""Session-state keys, in one place (pages never spell them as loose strings)."""

from __future__ import annotations

from typing import Final

JUDGE: Final = "sxs.judge"  # the verified judge's name, written by app.py on every run
IDENTITY: Final = "sxs.identity"  # the verified Judge (name, admin, verified)
SESSION: Final = "sxs.session"  # the session token a sign-in link was exchanged for
TYPED_NAME: Final = "sxs.typed_name"  # open mode: the name typed (unverified)
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
VIEW_GRADES: Final = "sxs.view_grades"  # judge page: latest views -> grading.ViewGrades
LAST_REVEAL: Final = "sxs.last_reveal"  # what the previous vote was, with run names
BACKFILL_VIEW: Final = "sxs.backfill_view"
BACKFILL_START: Final = "sxs.backfill_start_coverage"
FOCUS: Final = "sxs.focus"  # a query to show next (after an undo)
VIEW_KEY: Final = "sxs.view_key"  # the set-up the view on screen was built for
VOTED_AT: Final = "sxs.voted_at"  # when this session last voted (double-click guard)
KEPT_REASON: Final = "sxs.kept_reason"  # a refused vote's reason, put back in the box
CALLBACK_ERROR: Final = "sxs.callback_error"  # an SxsError a widget callback raised
COUNT_LLM: Final = "sxs.count_llm"  # an admin opted in to the LLM judge's labels
PLAN: Final = "sxs.plan"  # judge page: (set-up, when computed, Plan) kept between votes
NOTICE: Final = "sxs.notice"  # a success message shown once on the page's next run
FULL_TEXT: Final = "sxs.full_text"  # judge page: whole titles and long snippets
