"""The votes' whole history out and in: every vote of a dataset with what it was cast on
(read for ``sxs export votes``) and votes from another store appended (``sxs import votes``).

* :meth:`VoteHistory.all_votes` reads every vote, retracted and stale ones included, with
  its view (when drawn, the round's judges per query then, the queue rule), the judging
  policy it was cast under, the judge as
  outputs show it and whether the store verified them, ``stale`` (the ``current_votes``
  rule: a recorded ranking hash that differs from the one the store's runs give now) and
  ``retracted_at`` (the first retraction).
* :meth:`VoteHistory.append_votes` appends votes as history, in one transaction: a vote is
  keyed by its view id, so a vote the store holds (this file imported before, or the store's
  own export) is skipped; its view is recorded with no lease; a judge the store does not
  know is recorded as carried over (``legacy``: cannot sign in; verified as the file says);
  a retracted vote gets its retraction (token ``import:<view id>``), time kept.  The
  ranking hash is kept as written, so a vote stale where it was cast is stale here, and a
  vote cast on the lists this store holds counts.
"""

from __future__ import annotations

import pandas as pd

from judge_app.store.backend import Backend


class VoteHistory:
    """Store methods for reading and appending the votes' history."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def all_votes(self, dataset) -> pd.DataFrame:
        """Every vote of the dataset, oldest first (columns of
        :data:`judge_app.io.votes.VOTE_COLUMNS`)."""
        return self.backend.frame("""
            SELECT p.query_id, p.run_1, p.run_2, p.left_run, p.choice, p.preferred_run,
                   p.reason, p.blind, p.k, v.overlap, v.queue_rule, p.judging_policy,
                   coalesce(n.shown, p.judge) AS judge, j.verified, p.created_at, p.ms_spent,
                   v.issued_at, p.view_id, p.ranking_hash,
                   coalesce(p.ranking_hash <> ranking_hash(p.dataset_id, p.query_id, p.run_1,
                                                           p.run_2, p.k), false) AS stale,
                   r.retracted_at
            FROM preferences p
            LEFT JOIN views v ON v.view_id = p.view_id
            LEFT JOIN judges j ON j.name = p.judge
            LEFT JOIN judge_names n ON n.name = p.judge
            LEFT JOIN (SELECT preference_id, min(created_at) AS retracted_at
                       FROM preference_retractions GROUP BY preference_id) r
                   ON r.preference_id = p.preference_id
            WHERE p.dataset_id = ? ORDER BY p.preference_id""", [dataset.dataset_id])

    def append_votes(self, dataset, frame: pd.DataFrame) -> tuple[int, int]:
        """Append the votes of ``frame`` (checked by :func:`judge_app.io.votes.read_votes`:
        judge the stored name), in frame order; returns (votes added, retractions added)."""
        rows = frame.drop(columns=["stale", "line"], errors="ignore").reset_index(drop=True)
        rows["row"] = range(len(rows))
        with self.backend.transaction() as cur:
            cur.register("incoming_votes", rows)
            cur.execute("""
                INSERT INTO judges (name, verified, via)
                SELECT judge, bool_and(verified), 'legacy' FROM incoming_votes i
                WHERE verified IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM judges j WHERE j.name = i.judge)
                GROUP BY judge ORDER BY judge""")
            cur.execute("""
                INSERT INTO views (view_id, dataset_id, query_id, run_1, run_2, left_run, k,
                                   blind, overlap, ranking_hash, judge, issued_at, queue_rule)
                SELECT view_id, $d, query_id, run_1, run_2, left_run, k, blind, overlap,
                       ranking_hash, judge, issued_at, queue_rule
                FROM incoming_votes i
                WHERE issued_at IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM views v WHERE v.view_id = i.view_id)
                ORDER BY row""", {"d": dataset.dataset_id})
            added = cur.execute("""
                INSERT INTO preferences (dataset_id, query_id, run_1, run_2, left_run, choice,
                                         preferred_run, k, blind, ranking_hash, view_id,
                                         reason, judge, created_at, ms_spent,
                                         judging_policy)
                SELECT $d, query_id, run_1, run_2, left_run, choice, preferred_run, k, blind,
                       ranking_hash, view_id, reason, judge, created_at, ms_spent,
                       judging_policy
                FROM incoming_votes i
                WHERE NOT EXISTS (SELECT 1 FROM preferences p WHERE p.view_id = i.view_id)
                ORDER BY row
                ON CONFLICT (view_id) DO NOTHING
                RETURNING preference_id""", {"d": dataset.dataset_id}).fetchall()
            retracted = cur.execute("""
                INSERT INTO preference_retractions (preference_id, judge, created_at,
                                                    client_token)
                SELECT p.preference_id, p.judge, i.retracted_at, 'import:' || i.view_id
                FROM incoming_votes i JOIN preferences p ON p.view_id = i.view_id
                WHERE i.retracted_at IS NOT NULL AND p.dataset_id = $d
                  AND NOT EXISTS (SELECT 1 FROM preference_retractions r
                                  WHERE r.preference_id = p.preference_id)
                ORDER BY i.row
                ON CONFLICT (client_token) DO NOTHING
                RETURNING preference_id""", {"d": dataset.dataset_id}).fetchall()
            cur.unregister("incoming_votes")
        return len(added), len(retracted)
