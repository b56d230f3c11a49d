"""What an admin decided about judges: exclusions, restorations and weights, as append-only
events in ``judge_exclusions`` (migration ``0016``), for one dataset or every dataset.

Per (dataset, judge) the newest ``exclude``/``restore`` event reaching the dataset decides
whether the judge is excluded, and the newest ``weight`` event their weight (else 1); the
``judge_standings`` view says so, and the label and vote views every figure reads
(``expert_consensus``, hence ``filled_labels``; ``counted_votes``) leave excluded judges out
and weigh the rest.  Nothing here updates or deletes: restoring is a new event.
"""

from __future__ import annotations

import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.nul import plain_text
from judge_app.store.backend import Backend
from judge_app.store.model import Dataset

ACTIONS = ("exclude", "restore", "weight")


class JudgeExclusions:
    """Store methods for judge exclusions and weights (forwarded by the Store)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def record_standing(self, judge: str, action: str, dataset: Dataset | None = None,
                        weight: float | None = None, decided_by: str | None = None,
                        reason: str | None = None) -> None:
        """Append an event: ``exclude``, ``restore`` or ``weight`` (``weight`` >= 0) for
        ``judge``, on ``dataset`` or, with None, on every dataset."""
        if action not in ACTIONS:
            raise SxsError(f"a judge's standing changes by one of {', '.join(ACTIONS)}; "
                           f"got {action!r}")
        if (action == "weight") != (weight is not None):
            raise SxsError("a weight goes with the weight action, and only with it")
        if weight is not None and not weight >= 0:
            raise SxsError(f"a judge's weight is a number >= 0; got {weight!r}")
        plain_text(reason, "reason")
        with self.backend.transaction() as cur:
            cur.execute("""INSERT INTO judge_exclusions
                               (judge, dataset_id, action, weight, decided_by, reason)
                           VALUES (?, ?, ?, ?, ?, ?)""",
                        [judge, dataset.dataset_id if dataset else None, action,
                         None if weight is None else float(weight), decided_by, reason])

    def judge_known(self, judge: str) -> bool:
        """Whether ``judge`` is a judge of the store, or wrote a label or a vote."""
        rows = self.backend.cursor().execute("""
            SELECT 1 FROM judges WHERE name = $j
            UNION ALL SELECT 1 FROM (SELECT 1 FROM expert_labels WHERE judge = $j LIMIT 1) l
            UNION ALL SELECT 1 FROM (SELECT 1 FROM preferences WHERE judge = $j LIMIT 1) p
            """, {"j": judge}).fetchall()
        return bool(rows)

    def judge_standings(self, dataset: Dataset) -> pd.DataFrame:
        """Every judge with an event reaching ``dataset``: judge, excluded, weight, by judge."""
        return self.backend.frame("""
            SELECT judge, excluded, weight FROM judge_standings WHERE dataset_id = ?
            ORDER BY judge""", [dataset.dataset_id])

    def excluded_judges(self, dataset: Dataset) -> list[str]:
        """The judges whose labels and votes ``dataset``'s figures leave out, by name."""
        standings = self.judge_standings(dataset)
        return standings.loc[standings["excluded"].astype(bool), "judge"].tolist()

    def standing_events(self, judge: str | None = None) -> pd.DataFrame:
        """Every event, oldest first (event_id, judge, dataset — NULL for every dataset —,
        action, weight, decided_by, decided_at, reason); only ``judge``'s when given."""
        sql = """SELECT e.event_id, e.judge, d.name AS dataset, e.action, e.weight,
                        e.decided_by, e.decided_at, e.reason
                 FROM judge_exclusions e LEFT JOIN datasets d USING (dataset_id)"""
        params: list = []
        if judge is not None:
            sql += " WHERE e.judge = ?"
            params.append(judge)
        return self.backend.frame(sql + " ORDER BY e.event_id", params)
