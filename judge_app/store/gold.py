"""Known-answer (gold) items: the graded items (query, doc, expected grade) and the pairs
(query, two runs, the run expected to be preferred) an admin marked, in ``gold_items``
(migration ``0015``).

Marks are history: marking an item again adds a row, and the newest row of an item counts —
its grade or preferred run, who marked it, when and where from (``file``, ``dataset``,
``adjudication``); a newest row with ``retracted`` unmarks the item.  Nothing here updates or
deletes.
"""

from __future__ import annotations

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store.backend import Backend
from judge_app.store.model import Dataset

GOLD_SOURCES = ("file", "dataset", "adjudication")

# the newest row of each graded item and of each pair, unless it unmarks the item
_CURRENT = """
    SELECT * FROM (
        SELECT g.*, row_number() OVER (
                   PARTITION BY g.query_id, g.doc_id, g.run_1, g.run_2
                   ORDER BY g.gold_id DESC) AS newest
        FROM gold_items g WHERE g.dataset_id = ?) AS marked
    WHERE newest = 1 AND NOT retracted"""


class GoldItems:
    """Store methods for gold items (forwarded by :class:`~judge_app.store.Store`)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def mark_gold_grades(self, dataset: Dataset, frame: pd.DataFrame, source: str,
                         origin: str | None = None, marked_by: str | None = None) -> int:
        """Mark graded gold items (``frame``: query_id, doc_id, grade), one transaction;
        an item already marked with the same grade is skipped.  Returns the items marked."""
        _check_source(source)
        bad = ~frame["grade"].isin(dataset.scale.values)
        if bad.any():
            raise SxsError(f"gold grade {frame['grade'][bad].iloc[0]!r} is not on the scale "
                           f"{dataset.scale.describe()}")
        rows = pd.DataFrame({"query_id": frame["query_id"].astype(str).to_numpy(),
                             "doc_id": frame["doc_id"].astype(str).to_numpy(),
                             "grade": frame["grade"].astype("int64").to_numpy()})
        with self.backend.transaction() as cur:
            cur.register("incoming_gold", rows)
            added = cur.execute(f"""
                INSERT INTO gold_items (dataset_id, query_id, doc_id, grade, source, origin,
                                        marked_by)
                SELECT $dataset, i.query_id, i.doc_id, i.grade, $source, $origin, $by
                FROM incoming_gold i
                WHERE NOT EXISTS (SELECT 1 FROM ({_CURRENT.replace('?', '$dataset')}) c
                                  WHERE c.query_id = i.query_id AND c.doc_id = i.doc_id
                                    AND c.grade = i.grade)
                RETURNING gold_id""", {"dataset": dataset.dataset_id, "source": source,
                                       "origin": origin, "by": marked_by}).fetchall()
            cur.unregister("incoming_gold")
        return len(added)

    def mark_gold_pairs(self, dataset: Dataset, frame: pd.DataFrame, source: str,
                        origin: str | None = None, marked_by: str | None = None) -> int:
        """Mark gold pairs (``frame``: query_id, run_a, run_b, preferred_run, one of the two
        runs); an item already marked alike is skipped.  Returns the pairs marked."""
        _check_source(source)
        a, b = frame["run_a"].astype(str), frame["run_b"].astype(str)
        preferred = frame["preferred_run"].astype(str)
        wrong = ~(preferred.eq(a) | preferred.eq(b)) | a.eq(b)
        if wrong.any():
            i = wrong.to_numpy().nonzero()[0][0]
            raise SxsError(f"gold pair {a.iloc[i]!r} / {b.iloc[i]!r}: the preferred run "
                           f"{preferred.iloc[i]!r} must be one of two different runs")
        rows = pd.DataFrame({"query_id": frame["query_id"].astype(str).to_numpy(),
                             "run_1": a.where(a < b, b).to_numpy(),
                             "run_2": b.where(a < b, a).to_numpy(),
                             "preferred_run": preferred.to_numpy()})
        with self.backend.transaction() as cur:
            cur.register("incoming_pairs", rows)
            added = cur.execute(f"""
                INSERT INTO gold_items (dataset_id, query_id, run_1, run_2, preferred_run,
                                        source, origin, marked_by)
                SELECT $dataset, i.query_id, i.run_1, i.run_2, i.preferred_run, $source,
                       $origin, $by
                FROM incoming_pairs i
                WHERE NOT EXISTS (SELECT 1 FROM ({_CURRENT.replace('?', '$dataset')}) c
                                  WHERE c.query_id = i.query_id AND c.run_1 = i.run_1
                                    AND c.run_2 = i.run_2
                                    AND c.preferred_run = i.preferred_run)
                RETURNING gold_id""", {"dataset": dataset.dataset_id, "source": source,
                                       "origin": origin, "by": marked_by}).fetchall()
            cur.unregister("incoming_pairs")
        return len(added)

    def gold_grades(self, dataset: Dataset) -> pd.DataFrame:
        """The dataset's graded gold items (query_id, doc_id, grade, source, origin,
        marked_by, marked_at), by query and doc."""
        return self.backend.frame(f"""
            SELECT query_id, doc_id, grade, source, origin, marked_by, marked_at
            FROM ({_CURRENT}) c WHERE doc_id IS NOT NULL
            ORDER BY query_id, doc_id""", [dataset.dataset_id])

    def gold_pairs(self, dataset: Dataset) -> pd.DataFrame:
        """The dataset's gold pairs (query_id, run_1, run_2, preferred_run, source, origin,
        marked_by, marked_at), by query and runs."""
        return self.backend.frame(f"""
            SELECT query_id, run_1, run_2, preferred_run, source, origin, marked_by, marked_at
            FROM ({_CURRENT}) c WHERE run_1 IS NOT NULL
            ORDER BY query_id, run_1, run_2""", [dataset.dataset_id])

    def gold_queries_seen(self, dataset: Dataset, run_a: str, run_b: str, judge: str
                          ) -> set[str]:
        """The queries of the pair of runs (either order) ``judge`` was ever issued a view of
        or voted on: a gold pair is never served to a judge twice."""
        run_1, run_2 = sorted((run_a, run_b))
        rows = self.backend.cursor().execute("""
            SELECT query_id FROM views
            WHERE dataset_id = $d AND run_1 = $r1 AND run_2 = $r2 AND judge = $j
            UNION SELECT query_id FROM preferences
            WHERE dataset_id = $d AND run_1 = $r1 AND run_2 = $r2 AND judge = $j""",
            {"d": dataset.dataset_id, "r1": run_1, "r2": run_2, "j": judge}).fetchall()
        return {str(row[0]) for row in rows}

    def gold_items_graded(self, dataset: Dataset, judge: str) -> set[tuple[str, str]]:
        """The (query, doc) items ``judge`` ever graded (withdrawn grades too): a graded gold
        item is never served to a judge twice."""
        rows = self.backend.cursor().execute("""
            SELECT DISTINCT query_id, doc_id FROM expert_labels
            WHERE dataset_id = ? AND judge = ?""", [dataset.dataset_id, judge]).fetchall()
        return {(str(q), str(d)) for q, d in rows}


def _check_source(source: str) -> None:
    if source not in GOLD_SOURCES:
        raise SxsError(f"a gold item comes from one of {', '.join(GOLD_SOURCES)}; "
                       f"got {source!r}")
