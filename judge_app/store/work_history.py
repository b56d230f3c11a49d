"""One judge's own work on a dataset, every row of it: their votes (retracted ones included)
and their grades (withdrawn ones included), each with the query's text — what the My work
page lists (:mod:`judge_app.services.my_work`).  Rows are never deleted, so a re-vote or a
re-grade adds a row and the earlier one stays, marked no longer current."""

from __future__ import annotations

import pandas as pd

from judge_app.store.backend import Backend


class WorkHistory:
    """Store methods for reading a judge's own history."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def judge_votes(self, dataset, judge: str) -> pd.DataFrame:
        """Every vote ``judge`` cast on the dataset, newest first: preference_id, query_id,
        query_text (None for a query the dataset no longer has), run_1, run_2, left_run,
        choice, preferred_run, reason, created_at, retracted (undone, or replaced by a
        re-vote)."""
        return self.backend.frame("""
            SELECT p.preference_id, p.query_id, q.text AS query_text, p.run_1, p.run_2,
                   p.left_run, p.choice, p.preferred_run, p.reason, p.created_at,
                   EXISTS (SELECT 1 FROM preference_retractions r
                           WHERE r.preference_id = p.preference_id) AS retracted
            FROM preferences p LEFT JOIN queries q
                ON q.dataset_id = p.dataset_id AND q.query_id = p.query_id
            WHERE p.dataset_id = ? AND p.judge = ?
            ORDER BY p.preference_id DESC""", [dataset.dataset_id, judge])

    def judge_grades(self, dataset, judge: str) -> pd.DataFrame:
        """Every grade ``judge`` gave on the dataset, newest first: label_id, query_id,
        query_text, doc_id, grade, note, created_at, withdrawn."""
        return self.backend.frame("""
            SELECT e.label_id, e.query_id, q.text AS query_text, e.doc_id, e.grade, e.note,
                   e.created_at,
                   EXISTS (SELECT 1 FROM label_withdrawals w
                           WHERE w.label_id = e.label_id) AS withdrawn
            FROM expert_labels e LEFT JOIN queries q
                ON q.dataset_id = e.dataset_id AND q.query_id = e.query_id
            WHERE e.dataset_id = ? AND e.judge = ?
            ORDER BY e.label_id DESC""", [dataset.dataset_id, judge])
