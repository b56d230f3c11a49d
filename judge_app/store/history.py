"""The history of dataset grades: what an import replaced (``judgment_history``).

``judgments`` holds one current grade per (dataset, query, doc); when an import changes one
(``--on-conflict last``, or ``max``/``min`` when the incoming grade wins), the old grade, its
source and import time go into ``judgment_history`` in the same transaction, with the source
that replaced it.  A grade imported again unchanged is not a replacement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from judge_app.store.store import Dataset


class JudgmentHistoryMixin:
    """Store methods for the replaced dataset grades."""

    def judgment_history(self, dataset: Dataset) -> pd.DataFrame:
        """Every replaced grade, oldest replacement first (query_id, doc_id, grade, source,
        imported_at, replaced_by, replaced_at)."""
        return self._frame("""
            SELECT query_id, doc_id, grade, source, imported_at, replaced_by, replaced_at
            FROM judgment_history WHERE dataset_id = ? ORDER BY history_id""",
                           [dataset.dataset_id])

    def append_judgment_history(self, dataset: Dataset, frame: pd.DataFrame,
                                replaced_by: str) -> int:
        """Add replaced grades read from a file (query_id, doc_id, grade, origin,
        imported_at), in frame order; a row the history already holds (same pair, grade,
        source and time) is skipped, so reading the same file twice adds nothing.  Returns
        the rows added."""
        rows = pd.DataFrame({
            "query_id": frame["query_id"].to_numpy(), "doc_id": frame["doc_id"].to_numpy(),
            "grade": frame["grade"].to_numpy(), "origin": frame["origin"].to_numpy(),
            "imported_at": frame["imported_at"].to_numpy(), "row": range(len(frame))})
        with self._transaction() as cur:
            cur.register("incoming_history", rows)
            added = cur.execute("""
                INSERT INTO judgment_history (dataset_id, query_id, doc_id, grade, source,
                                              imported_at, replaced_by)
                SELECT $dataset, i.query_id, i.doc_id, i.grade, i.origin,
                       coalesce(i.imported_at, current_timestamp), $by
                FROM incoming_history i
                WHERE NOT EXISTS (
                    SELECT 1 FROM judgment_history h
                    WHERE h.dataset_id = $dataset AND h.query_id = i.query_id
                      AND h.doc_id = i.doc_id AND h.grade = i.grade AND h.source = i.origin
                      AND h.imported_at = i.imported_at)
                ORDER BY i.row
                RETURNING history_id""", {"dataset": dataset.dataset_id, "by": replaced_by}
                                ).fetchall()
            cur.unregister("incoming_history")
        return len(added)
