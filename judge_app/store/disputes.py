"""Adjudications: an admin's grade that settles a disputed (query, doc), in ``adjudications``
(migration ``0020``), append-only — the newest row of an item counts, and ``filled_labels``
gives its grade over every other under every policy (source ``adjudicated``).  Nothing here
updates or deletes: settling an item again is a new row."""

from __future__ import annotations

import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.nul import plain_text
from judge_app.store.backend import Backend
from judge_app.store.model import Dataset


class Adjudications:
    """Store methods for adjudications (forwarded by the Store)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def adjudicate(self, dataset: Dataset, query_id: str, doc_id: str, grade: int,
                   decided_by: str | None = None, note: str | None = None) -> None:
        """Settle (query, doc) at ``grade`` (on the dataset's scale)."""
        if grade not in dataset.scale.values:
            raise SxsError(f"grade {grade!r} is not on the scale {dataset.scale.describe()}")
        plain_text(note, "note")
        with self.backend.transaction() as cur:
            cur.execute("""INSERT INTO adjudications (dataset_id, query_id, doc_id, grade,
                                                      decided_by, note)
                           VALUES (?, ?, ?, ?, ?, ?)""",
                        [dataset.dataset_id, str(query_id), str(doc_id), int(grade),
                         decided_by, note])

    def adjudications(self, dataset: Dataset) -> pd.DataFrame:
        """The settled items of ``dataset``, the newest adjudication of each: query_id,
        doc_id, grade, decided_by, decided_at, note."""
        return self.backend.frame("""
            SELECT query_id, doc_id, grade, decided_by, decided_at, note FROM (
                SELECT a.*, row_number() OVER (PARTITION BY query_id, doc_id
                                               ORDER BY adjudication_id DESC) AS newest
                FROM adjudications a WHERE dataset_id = ?) AS s
            WHERE newest = 1 ORDER BY query_id, doc_id""", [dataset.dataset_id])
