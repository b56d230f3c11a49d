"""Expert labels (append-only history) and the label views every figure reads.

Expert labels are history: a re-grade adds a row and the current label per (judge, query, doc)
is the latest; nothing here updates or deletes them.  Every app write carries a client
token; writing the same token twice is a no-op, so a double submit stores one row.  The
views (``label_sources``, ``ranked_labels``, ``filled_labels``, see
:mod:`judge_app.store.migrations`) put dataset grades and the judges' consensus side by side
per label basis.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judge_app.errors import SxsError
from judge_app.io.nul import plain_text
from judge_app.policies import ExpertShare, LabelPolicy
from judge_app.store.backend import Backend
from judge_app.store.filled_sql import filled_labels_of
from judge_app.store.model import EXPERTS, Dataset, check_basis
from judge_app.store.runs import Runs
from judge_app.store.sql import one

# an expert share (:meth:`Labels.expert_share`), counted over the filled set ``f`` of one
# dataset, policy and basis, rows not from the dataset only (gaps filled, grades replaced)
_SHARE_SUMS = """
        CAST(coalesce(sum(CASE WHEN j.grade IS NULL OR j.grade < 0 THEN 1 ELSE 0 END), 0)
             AS BIGINT),
        CAST(coalesce(sum(CASE WHEN j.grade >= 0 AND f.grade <> j.grade THEN 1 ELSE 0 END),
                      0) AS BIGINT),
        CAST(coalesce(sum(CASE WHEN j.grade >= 0 AND f.grade = j.grade THEN 1 ELSE 0 END),
                      0) AS BIGINT)"""
_SHARE_JOIN = """LEFT JOIN judgments j ON j.dataset_id = f.dataset_id
                  AND j.query_id = f.query_id AND j.doc_id = f.doc_id"""


def _object_frame(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """A frame of these arrays as they are (text stays object: no string column built)."""
    return pd.DataFrame({name: pd.Series(values, dtype=values.dtype, copy=False)
                         for name, values in columns.items()})


class Labels:
    """Expert labels and the labels each (query, doc) has."""

    def __init__(self, backend: Backend, runs: Runs) -> None:
        self.backend = backend
        self.runs = runs

    def add_expert_label(self, dataset: Dataset, query_id: str, doc_id: str, grade: int,
                         judge: str, client_token: str, note: str | None = None,
                         judging_policy: str | None = None) -> bool:
        """Append an expert label; False if ``client_token`` was already stored (no-op).
        ``judging_policy``: the policy in force when it was given (the value of a
        :data:`~judge_app.services.queue.JUDGING_POLICIES` name; None: not known)."""
        if grade not in dataset.scale.values:
            raise SxsError(f"grade {grade!r} is not on the scale {dataset.scale.describe()}")
        if not judge.strip():
            raise SxsError("an expert label needs a judge name")
        plain_text(note, "note")
        with self.backend.transaction() as cur:
            inserted = cur.execute("""
                INSERT INTO expert_labels (dataset_id, query_id, doc_id, grade, judge, note,
                                           client_token, judging_policy)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_token) DO NOTHING
                RETURNING label_id""",
                [dataset.dataset_id, query_id, doc_id, grade, judge, note, client_token,
                 judging_policy]
            ).fetchall()
        return bool(inserted)

    def append_expert_labels(self, dataset: Dataset, frame: pd.DataFrame, source: str) -> int:
        """Append many expert labels at once (query_id, doc_id, grade, judge, and optionally
        note and created_at), e.g. labels collected elsewhere, in frame order; one
        transaction.  Tokens derive from ``source`` and the row, so appending the same
        ``source`` again is a no-op; and a label the store already holds is skipped (a store's
        own export imported back adds nothing): with a time, one of the same judge, pair,
        grade and time; without one, the judge's current label for the pair when it has the
        same grade (for the judge's first row of the pair only: a later row changes a label
        the file itself set).  Returns the number of labels added."""
        bad = ~frame["grade"].isin(dataset.scale.values)
        if bad.any():
            raise SxsError(f"grade {frame['grade'][bad].iloc[0]!r} is not on the scale "
                           f"{dataset.scale.describe()}")
        if (frame["judge"].astype(str).str.strip() == "").any():
            raise SxsError("an expert label needs a judge name")
        created = (frame["created_at"] if "created_at" in frame.columns
                   else pd.Series(pd.NaT, index=frame.index, dtype="datetime64[us, UTC]"))
        rows = pd.DataFrame({
            "query_id": frame["query_id"].to_numpy(), "doc_id": frame["doc_id"].to_numpy(),
            "grade": frame["grade"].to_numpy(), "judge": frame["judge"].to_numpy(),
            "note": frame["note"].to_numpy() if "note" in frame.columns else None,
            "created_at": created.to_numpy(),
            "token": [f"{source}:{i}" for i in range(len(frame))],
            "row": range(len(frame))})
        with self.backend.transaction() as cur:
            cur.register("incoming_labels", rows)
            added = cur.execute("""
                INSERT INTO expert_labels
                    (dataset_id, query_id, doc_id, grade, judge, note, client_token, created_at)
                SELECT $dataset, query_id, doc_id, grade, judge, note, token,
                       coalesce(created_at, current_timestamp)
                FROM (SELECT *, row_number() OVER (PARTITION BY judge, query_id, doc_id
                                                   ORDER BY row) = 1 AS first_of_pair
                      FROM incoming_labels) i
                WHERE NOT EXISTS (SELECT 1 FROM expert_labels e  -- anti joins, not a probe
                                  WHERE i.created_at IS NOT NULL       -- per row
                                    AND e.dataset_id = $dataset AND e.judge = i.judge
                                    AND e.query_id = i.query_id AND e.doc_id = i.doc_id
                                    AND e.grade = i.grade AND e.created_at = i.created_at)
                  AND NOT EXISTS (SELECT 1 FROM current_expert_labels c
                                  WHERE i.created_at IS NULL AND i.first_of_pair
                                    AND c.dataset_id = $dataset AND c.judge = i.judge
                                    AND c.query_id = i.query_id AND c.doc_id = i.doc_id
                                    AND c.grade = i.grade)
                ORDER BY row
                ON CONFLICT (client_token) DO NOTHING
                RETURNING label_id""", {"dataset": dataset.dataset_id}).fetchall()
            cur.unregister("incoming_labels")
        return len(added)

    def expert_label_history(self, dataset: Dataset) -> pd.DataFrame:
        """Every expert label ever written, oldest first, with whether it was withdrawn
        (unverified judges marked) and the judging policy it was given under (None:
        imported, or given before policies were recorded)."""
        return self.backend.frame("""
            SELECT e.label_id, e.query_id, e.doc_id, e.grade,
                   coalesce(n.shown, e.judge) AS judge, e.created_at, e.note,
                   w.label_id IS NOT NULL AS withdrawn, e.judging_policy
            FROM expert_labels e LEFT JOIN judge_names n ON n.name = e.judge
            LEFT JOIN label_withdrawals w USING (label_id)
            WHERE e.dataset_id = ? ORDER BY e.label_id""", [dataset.dataset_id])

    def current_expert_labels(self, dataset: Dataset, judge: str | None = None,
                              counted_only: bool = False) -> pd.DataFrame:
        """The latest label of each (judge, query, doc), every witness (query_id, doc_id,
        judge, witness, grade, created_at, note, judging_policy); only ``judge``'s when
        given; only the judges the dataset's figures count (none excluded) with
        ``counted_only``.  Withdrawn grades are left out; unverified judges are marked in
        ``judge``."""
        sql = """SELECT c.query_id, c.doc_id, coalesce(n.shown, c.judge) AS judge, c.witness,
                        c.grade, c.created_at, c.note, e.judging_policy
                 FROM current_expert_labels c LEFT JOIN judge_names n ON n.name = c.judge
                 JOIN expert_labels e ON e.label_id = c.label_id
                 WHERE c.dataset_id = ?"""
        params: list = [dataset.dataset_id]
        if counted_only:
            sql += """ AND NOT EXISTS (SELECT 1 FROM judge_standings s
                                       WHERE s.dataset_id = c.dataset_id
                                         AND s.judge = c.judge AND s.excluded)"""
        if judge is not None:
            sql += " AND c.judge = ?"
            params.append(judge)
        return self.backend.frame(sql + " ORDER BY c.query_id, c.doc_id, c.judge", params)

    def data_version(self, dataset: Dataset) -> tuple:
        """Changes whenever the dataset's labels, votes, judgments, runs, judge exclusions,
        adjudications or gold items change: a cache key for figures computed from them.
        Rows are counted beside their newest id: on PostgreSQL an id is taken before its
        row commits, so a lower id may land after a higher one without moving the max."""
        row = one(self.backend.cursor(), """
            SELECT (SELECT count(*) || ':' || max(label_id) FROM expert_labels
                        WHERE dataset_id = $d),
                   (SELECT count(*) || ':' || max(preference_id) FROM preferences
                        WHERE dataset_id = $d),
                   (SELECT count(*) FROM preference_retractions r JOIN preferences p
                        USING (preference_id) WHERE p.dataset_id = $d),
                   (SELECT count(*) FROM label_withdrawals w JOIN expert_labels e
                        USING (label_id) WHERE e.dataset_id = $d),
                   (SELECT count(*) || ':' || max(event_id) FROM judge_exclusions),
                   (SELECT count(*) || ':' || max(adjudication_id) FROM adjudications
                        WHERE dataset_id = $d),
                   (SELECT count(*) || ':' || max(gold_id) FROM gold_items
                        WHERE dataset_id = $d),
                   (SELECT count(*) || ':' || max(imported_at) FROM judgments
                        WHERE dataset_id = $d),
                   (SELECT string_agg(run_id || ':' || created_at, ',' ORDER BY run_id)
                        FROM runs WHERE dataset_id = $d)""", {"d": dataset.dataset_id})
        return tuple(str(v) for v in row) if row else ()

    def current_labels(self, dataset: Dataset, query_ids: list[str] | None = None,
                       basis: str = EXPERTS) -> pd.DataFrame:
        """Every labelled (query, doc): the dataset grade and the lower median of the counted
        judges' latest grades (query_id, doc_id, dataset_grade, expert_grade, experts)."""
        sql = """SELECT query_id, doc_id, dataset_grade, median_grade AS expert_grade,
                        judges AS experts
                 FROM label_sources WHERE dataset_id = ? AND basis = ?"""
        params: list = [dataset.dataset_id, check_basis(basis)]
        if query_ids is not None:
            sql += " AND list_contains(?, query_id)"
            params.append(list(query_ids))
        return self.backend.frame(sql, params)

    def ranked_labels(self, dataset: Dataset, run: str, k: int, basis: str = EXPERTS
                      ) -> pd.DataFrame:
        """The top k of every query of a run with whether each result is labelled (a dataset
        grade >= 0 or an expert's) and by how many judges (query_id, doc_id, rank, labelled,
        judges)."""
        return self.backend.frame("""
            SELECT query_id, doc_id, rank, labelled, judges FROM ranked_labels
            WHERE run_id = ? AND basis = ? AND rank <= ? ORDER BY query_id, rank""",
                           [self.runs.run_id(dataset, run), check_basis(basis), k])

    def judged_at_k(self, dataset: Dataset, runs: list[str], k: int, basis: str = EXPERTS
                    ) -> float:
        """Label coverage of the top k over the given runs: labelled results divided by
        k slots per (run, query); 0.0 when the runs are empty."""
        ids = [self.runs.run_id(dataset, run) for run in runs]
        row = one(self.backend.cursor(), """
            SELECT coalesce(sum(hits), 0), count(*) FROM (
                SELECT count(*) FILTER (WHERE labelled) AS hits FROM ranked_labels
                WHERE list_contains(?, run_id) AND basis = ? AND rank <= ?
                GROUP BY run_id, query_id) AS per_query""", [ids, check_basis(basis), k])
        hits, queries = row if row else (0, 0)
        return float(hits) / (queries * k) if queries else 0.0

    def backfill_candidates(self, dataset: Dataset, runs: list[str], k: int, judge: str,
                            basis: str = EXPERTS) -> pd.DataFrame:
        """Top-k results of the given runs with no dataset grade >= 0 that ``judge`` has not
        graded (query_id, doc_id, rank, experts), one row per run it appears in."""
        ids = [self.runs.run_id(dataset, run) for run in runs]
        return self.backend.frame("""
            SELECT r.query_id, r.doc_id, r.rank, r.judges AS experts FROM ranked_labels r
            WHERE list_contains($runs, r.run_id) AND r.basis = $basis AND r.rank <= $k
              AND NOT coalesce(r.dataset_grade >= 0, false)
              AND NOT EXISTS (SELECT 1 FROM current_expert_labels c
                              WHERE c.dataset_id = $dataset AND c.judge = $judge
                                AND c.query_id = r.query_id AND c.doc_id = r.doc_id)
            ORDER BY r.query_id, r.doc_id, r.rank""",
                           {"runs": ids, "k": k, "dataset": dataset.dataset_id,
                            "judge": judge, "basis": check_basis(basis)})

    def filled_judgments(self, dataset: Dataset, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                         basis: str = EXPERTS) -> pd.DataFrame:
        """Dataset judgments with expert labels filling the gaps, under ``policy``, counting
        the judges of ``basis`` (the ``filled_labels`` view; see
        :class:`~judge_app.policies.LabelPolicy` and :func:`~judge_app.policies.label_basis`).

        Columns: query_id, doc_id, grade, source (``dataset``, ``expert`` or
        ``expert_override``), judges (how many judges' latest labels went into it).
        """
        policy = LabelPolicy(policy)
        return self.backend.frame("""
            SELECT query_id, doc_id, grade, source, judges FROM filled_labels
            WHERE dataset_id = ? AND policy = ? AND basis = ? ORDER BY query_id, doc_id""",
                           [dataset.dataset_id, policy.value, check_basis(basis)])

    def expert_share(self, dataset: Dataset, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                     basis: str = EXPERTS) -> ExpertShare:
        """What the labels of ``basis`` did to the dataset's grades in the filled set under
        ``policy`` (:class:`~judge_app.policies.ExpertShare`): the gaps they filled (no
        dataset grade, or a negative one), the dataset grades they overrode with a different
        grade, and those they replaced with the same grade.  (Policy ``dawid-skene`` counts
        the consensus stored; its service computes it first.)"""
        policy = LabelPolicy(policy)
        row = one(self.backend.cursor(), f"""
            SELECT {_SHARE_SUMS}
            FROM filled_labels f {_SHARE_JOIN}
            WHERE f.dataset_id = ? AND f.policy = ? AND f.basis = ? AND f.source <> 'dataset'
            """, [dataset.dataset_id, policy.value, check_basis(basis)])
        filled, overridden, agreed = (int(v) for v in row) if row else (0, 0, 0)
        return ExpertShare(basis, policy.value, filled, overridden, agreed)


    def pool_labels(self, dataset: Dataset, run_a: str, run_b: str, k: int,
                    policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = EXPERTS
                    ) -> tuple[pd.DataFrame, pd.DataFrame, ExpertShare]:
        """What a decision between two runs reads, in one statement (one snapshot): their
        depth-``k`` judging pool with each pair's filled label, the filled labels counted
        per query and grade (for NDCG's ideal, which counts the labels outside the pool
        too) — :func:`metrics.judging_pool.pool_from_rows` takes them — and the filled set's
        :meth:`expert_share`.

        ``pairs``: query_id, doc_id, rank_a, rank_b (0: not in that run's top k), grade
        (NaN: no filled label), one row per (query, doc) in either top k, in no order.
        ``counts``: query_id, grade, labels — every filled label of the dataset (``policy``,
        ``basis``: as :meth:`filled_judgments`).  Ids come as object columns (the rows are
        read as arrays, :meth:`~judge_app.store.backend.Backend.arrays`: no frame built).
        The filled labels are read as one policy's SQL
        (:func:`~judge_app.store.filled_sql.filled_labels_of`): planning the whole view
        would cost more than the read."""
        policy = LabelPolicy(policy)
        ids = [self.runs.run_id(dataset, name) for name in (run_a, run_b)]
        rows = self.backend.arrays(f"""
            WITH a AS (SELECT query_id, doc_id, rank FROM run_results
                       WHERE run_id = $a AND rank <= $k),
                 b AS (SELECT query_id, doc_id, rank FROM run_results
                       WHERE run_id = $b AND rank <= $k),
                 filled AS (SELECT dataset_id, query_id, doc_id, grade, source
                            FROM ({filled_labels_of(policy, self.backend.dialect
                                                    .settled_adjudications)}) AS one_policy
                            WHERE dataset_id = $d AND basis = $basis),
                 pairs AS (SELECT coalesce(a.query_id, b.query_id) AS query_id,
                                  coalesce(a.doc_id, b.doc_id) AS doc_id,
                                  coalesce(a.rank, 0) AS rank_a, coalesce(b.rank, 0) AS rank_b
                           FROM a FULL JOIN b
                               ON a.query_id = b.query_id AND a.doc_id = b.doc_id)
            SELECT 0 AS part, p.query_id, p.doc_id, CAST(p.rank_a AS BIGINT) AS rank_a,
                   CAST(p.rank_b AS BIGINT) AS rank_b, f.grade, CAST(NULL AS BIGINT) AS labels
            FROM pairs p LEFT JOIN filled f
                ON f.query_id = p.query_id AND f.doc_id = p.doc_id
            UNION ALL
            SELECT 1, query_id, '', NULL, NULL, grade, count(*) FROM filled
            GROUP BY query_id, grade
            UNION ALL
            SELECT 2, '', '', share.*, CAST(NULL AS BIGINT) FROM (
                SELECT {_SHARE_SUMS}
                FROM filled f {_SHARE_JOIN} WHERE f.source <> 'dataset') AS share""",
                                   {"a": ids[0], "b": ids[1], "k": int(k),
                                    "d": dataset.dataset_id, "basis": check_basis(basis)},
                                   whole=True)
        part = rows["part"]  # 0: pairs, 1: counts, 2: the share ('' in text columns, never NULL)
        pairs = _object_frame({name: rows[name][part == 0] for name in
                               ("query_id", "doc_id", "rank_a", "rank_b", "grade")})
        counts = _object_frame({"query_id": rows["query_id"][part == 1],
                                "grade": rows["grade"][part == 1],
                                "labels": rows["labels"][part == 1]})
        share = [rows[name][part == 2] for name in ("rank_a", "rank_b", "grade")]
        filled, overridden, agreed = (int(np.nan_to_num(v[0])) if len(v) else 0 for v in share)
        return pairs, counts, ExpertShare(basis, policy.value, filled, overridden, agreed)

    def put_consensus_labels(self, dataset: Dataset, basis: str, frame: pd.DataFrame,
                             data_version: str) -> int:
        """Replace the stored Dawid-Skene consensus of ``dataset`` and ``basis`` by ``frame``
        (query_id, doc_id, grade, confidence, judges), computed at ``data_version``; one
        transaction.  Returns the rows stored."""
        rows = pd.DataFrame({"query_id": frame["query_id"].astype(str).to_numpy(),
                             "doc_id": frame["doc_id"].astype(str).to_numpy(),
                             "grade": frame["grade"].astype("int64").to_numpy(),
                             "confidence": frame["confidence"].astype(float).to_numpy(),
                             "judges": frame["judges"].astype("int64").to_numpy()})
        keys = {"d": dataset.dataset_id, "b": check_basis(basis), "v": data_version}
        with self.backend.transaction() as cur:
            cur.execute("DELETE FROM consensus_labels WHERE dataset_id = ? AND basis = ?",
                        [keys["d"], keys["b"]])
            cur.register("incoming_consensus", rows)
            cur.execute("""INSERT INTO consensus_labels (dataset_id, basis, query_id, doc_id,
                               grade, confidence, judges, data_version)
                           SELECT $d, $b, query_id, doc_id, grade, confidence, judges, $v
                           FROM incoming_consensus""", keys)
            cur.unregister("incoming_consensus")
        return len(rows)

    def consensus_labels(self, dataset: Dataset, basis: str = EXPERTS) -> pd.DataFrame:
        """The stored Dawid-Skene consensus (query_id, doc_id, grade, confidence, judges,
        data_version, computed_at), by query and doc."""
        return self.backend.frame("""
            SELECT query_id, doc_id, grade, confidence, judges, data_version, computed_at
            FROM consensus_labels WHERE dataset_id = ? AND basis = ?
            ORDER BY query_id, doc_id""", [dataset.dataset_id, check_basis(basis)])
