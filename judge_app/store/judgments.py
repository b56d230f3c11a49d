"""Dataset judgments (the qrels a dataset comes with) and the history of the grades an import
replaced.

``judgments`` holds one current grade per (dataset, query, doc); when an import changes one
(``--on-conflict last``, or ``max``/``min`` when the incoming grade wins), the old grade, its
source and import time go into ``judgment_history`` in the same transaction, with the source
that replaced it.  A grade imported again unchanged is not a replacement.
"""

from __future__ import annotations

import duckdb
import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.trec import TrecFile
from judge_app.policies import ConflictPolicy
from judge_app.store import qrels_load
from judge_app.store.backend import Backend
from judge_app.store.import_guard import (
    KEYS,
    Check,
    ImportFigures,
    import_figures,
    zero_padding_warning,
)
from judge_app.store.model import Dataset


class Judgments:
    """Dataset judgments and their replaced grades."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def put_judgments(self, dataset: Dataset, frame: pd.DataFrame, source: str,
                      on_conflict: str = "error", check: Check | None = None,
                      merged: int = 0, origin: str | None = None) -> int:
        """Add judgments (query_id, doc_id, grade; optionally per row ``origin`` and
        ``imported_at``, else ``origin`` — default ``source``, which errors name — and now);
        one transaction, all or nothing.

        A pair the store already judges with another grade is a conflict: ``error`` (default)
        names it and stores nothing; ``max``/``min`` keep the larger/smaller grade; ``last``
        keeps the incoming one.  A stored grade that changes is kept in ``judgment_history``
        (same transaction); a stored grade that ``max``/``min`` keep keeps its source and
        time.  ``check`` sees the import's figures first (``merged``: lines the reader
        merged); raising refuses it.  Returns the number of rows written.
        """
        if on_conflict not in tuple(ConflictPolicy):
            raise SxsError(f"on_conflict must be one of {', '.join(ConflictPolicy)}; "
                           f"got {on_conflict!r}")
        rows = frame[["query_id", "doc_id", "grade"]].assign(
            origin=frame["origin"].to_numpy() if "origin" in frame.columns else None,
            imported_at=(frame["imported_at"].to_numpy() if "imported_at" in frame.columns
                         else pd.Series(pd.NaT, index=frame.index,
                                        dtype="datetime64[us, UTC]").to_numpy()))
        def store_staged(cur) -> None:
            if check is not None:
                check(import_figures(cur, dataset.dataset_id, "judgments",
                                     "incoming_judgments", merged=merged))
            qrels_load.store_staged_judgments(cur, dataset, source, on_conflict, origin)

        def load(begin) -> None:
            with begin() as cur:
                cur.register("incoming_judgments", rows)
                store_staged(cur)
                cur.unregister("incoming_judgments")

        self.backend.load_judgments(dataset, load)
        return len(rows)

    def measure_import(self, dataset: Dataset, what: str, frame: pd.DataFrame,
                       merged: int = 0) -> ImportFigures:
        """The figures of rows about to be imported (``frame`` holding the key columns of
        ``what``, see :data:`~judge_app.store.import_guard.KEYS`, and for labels
        ``grade``), measured against the dataset as it is; writes nothing.  For imports
        that write in several steps (documents, queries, expert labels), to be checked
        before the first."""
        columns = [*KEYS[what], *(["grade"] if what in ("judgments", "labels") else [])]
        rows = frame[columns]

        def figures(cur) -> ImportFigures:
            cur.register("incoming_rows", rows)
            try:
                return import_figures(cur, dataset.dataset_id, what, "incoming_rows",
                                      merged=merged)
            finally:
                cur.unregister("incoming_rows")

        return self.backend.measure(dataset, figures)

    def zero_padding_warning(self, dataset: Dataset) -> str | None:
        """Whether judged queries lack text only because of zero padding (see
        :func:`~judge_app.store.import_guard.zero_padding_warning`); writes nothing."""
        return zero_padding_warning(self.backend.cursor(), dataset.dataset_id)

    def import_trec_qrels(self, dataset: Dataset, trec: TrecFile, on_conflict: str = "error",
                          check: Check | None = None) -> qrels_load.QrelsLoad:
        """Load TREC qrels or a SMART relevance file, parsed by DuckDB: whole-number grades on
        the dataset's scale, identical repeated lines merged, differing ones by
        ``on_conflict`` (in the file, then against the store, as :meth:`put_judgments`)."""
        return self.backend.load_judgments(dataset, lambda begin: qrels_load.load_qrels(
            begin, dataset, trec, on_conflict, check))

    def trec_qrels_rows(self, dataset: Dataset, trec: TrecFile) -> tuple[pd.DataFrame, bool]:
        """A qrels (or SMART) file's rows as read, grades still text (query_id, doc_id,
        grade, line), for imports that map grade values first; and whether it was SMART."""
        with duckdb.connect(":memory:") as cur:  # a file read: no store table involved
            rows, smart = qrels_load.qrels_rows(cur, trec, dataset.scale.values,
                                               dataset.scale.describe())
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "grade", "line"])
        return frame, smart

    def judgments(self, dataset: Dataset) -> pd.DataFrame:
        return self.backend.frame("""SELECT query_id, doc_id, grade, source, imported_at
                              FROM judgments WHERE dataset_id = ?
                              ORDER BY query_id, doc_id""", [dataset.dataset_id],
                           whole=True)

    def judgment_history(self, dataset: Dataset) -> pd.DataFrame:
        """Every replaced grade, oldest replacement first (query_id, doc_id, grade, source,
        imported_at, replaced_by, replaced_at)."""
        return self.backend.frame("""
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
        with self.backend.transaction() as cur:
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
