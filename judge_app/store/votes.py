"""Side-by-side votes bound to what was shown, judging rounds and query leases.

Rules enforced here, in one write transaction each, whatever the page does:

* A vote names a *view*, issued when the page was drawn for one judge; the view records the
  dataset, query, the unordered pair of runs (``run_1 < run_2``), the left run, k, blind and
  the ranking hash (``ranking_hash`` macro: MD5 of the query text and both top-k lists).
* The same view voted twice, or a second vote by a judge who already has a counted vote on
  that query and pair (a second tab), stores nothing and is no error (:func:`cast_vote`
  returns False).
* A view whose query text or top-k lists changed since it was drawn is refused
  (:class:`StaleView`, "this query changed").
* With a round's "judges per query" N: a view is a lease on its query until ``lease_until``;
  a query is issued to at most N judges at a time (judges with a counted vote plus judges
  holding a live lease) and refuses votes once N other judges voted (:class:`QueryFull`).
* Votes are keyed by the unordered pair; readers orient them to the order asked for, so
  counts never depend on the order runs are named in.  A vote whose ranking hash no longer
  matches the store's runs (``import run --replace``) is *stale*: kept, excluded from counted
  votes, and counted separately.
* Undo retracts the judge's own latest vote; a grade is withdrawn by a row.  Nothing here
  deletes a vote or a label.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

import pandas as pd

from judge_app.errors import NotFound, SxsError
from judge_app.io.nul import plain_text
from judge_app.policies import LABEL_BASES
from judge_app.store.backend import Backend
from judge_app.store.judges import Judges, SignInRefused
from judge_app.store.rounds import (  # noqa: F401  (re-exported: pages import them here)
    ANY_ROUND,
    DEFAULT_GOLD_EVERY,
    DEFAULT_LEASE_SECONDS,
    ROUND_CHANGED,
    Round,
    RoundChanged,
    pair,
)
from judge_app.store.runs import Runs
from judge_app.store.sql import one
from metrics.votes import CHOICES, Choice, preferred_run


class StaleView(SxsError):
    """The query or its rankings changed since the view was drawn."""


class QueryFull(SxsError):
    """The query already has its N judges."""


@dataclass(frozen=True)
class IssuedView:
    """What the store issued for a judge: the view id, and exactly what it hashed."""

    view_id: str
    query_id: str
    query_text: str | None
    left_run: str
    top: dict[str, list[str]]  # run name -> doc ids by rank (top k)
    ranking_hash: str


_CURRENT_VOTES = """SELECT judge, k, ranking_hash, preference_id FROM preferences p
                    WHERE dataset_id = $d AND query_id = $q AND run_1 = $r1 AND run_2 = $r2
                      AND NOT EXISTS (SELECT 1 FROM preference_retractions r
                                      WHERE r.preference_id = p.preference_id)"""
_LEASES = """SELECT DISTINCT judge FROM views
             WHERE dataset_id = $d AND query_id = $q AND run_1 = $r1 AND run_2 = $r2
               AND lease_until > current_timestamp"""


class Votes:
    """Store methods for rounds, views, votes and grade withdrawals."""

    def __init__(self, backend: Backend, runs: Runs, judges: Judges) -> None:
        self.backend = backend
        self.runs = runs
        self.judges = judges


    # -- views and leases -------------------------------------------------------------------

    def issue_view(self, dataset, query_id: str, run_a: str, run_b: str, left_run: str,
                   k: int, judge: str, blind: bool, overlap: int | None = None,
                   lease_seconds: int = DEFAULT_LEASE_SECONDS,
                   rule: str | None = None) -> IssuedView | None:
        """Issue a view of one query for ``judge`` (a lease on it when ``overlap`` is set),
        recording ``rule``, the queue rule that chose the query (``queue_rule``; NULL when
        the query was named, not drawn); None when the query already has ``overlap`` other
        judges voting or holding it."""
        run_1, run_2 = pair(run_a, run_b)
        if left_run not in (run_1, run_2):
            raise SxsError(f"the left run {left_run!r} is neither {run_a!r} nor {run_b!r}")
        self.judges.active_judge(judge)
        ids = [self.runs.run_id(dataset, run) for run in (run_1, run_2)]
        keys = {"d": dataset.dataset_id, "q": query_id, "r1": run_1, "r2": run_2}
        view_id = uuid.uuid4().hex
        with self.backend.transaction() as cur:
            if overlap is not None and not _take_slot(cur, keys, self.backend.dialect.skip_locked):
                return None  # another replica is assigning this query at this moment
            digest = _ranking_hash(cur, keys, k)
            if overlap is not None:
                others = (_counted_voters(cur, keys, k, digest)
                          | {row[0] for row in cur.execute(_LEASES, keys).fetchall()})
                if len(others - {judge}) >= overlap:
                    return None
            tops = cur.execute("""
                SELECT run_id, array_agg(doc_id ORDER BY rank) FROM run_results
                WHERE list_contains($ids, run_id) AND query_id = $q AND rank <= $k
                GROUP BY run_id""", {"ids": ids, "q": query_id, "k": k}).fetchall()
            text = one(cur, "SELECT text FROM queries WHERE dataset_id = ? AND query_id = ?",
                        [dataset.dataset_id, query_id])
            cur.execute(f"""
                INSERT INTO views (view_id, dataset_id, query_id, run_1, run_2, left_run, k,
                                   blind, overlap, ranking_hash, judge, lease_until,
                                   queue_rule)
                VALUES ($v, $d, $q, $r1, $r2, $left, $k, $blind, $n, $h, $me,
                        {'current_timestamp + to_seconds($lease)' if overlap else 'NULL'},
                        $rule)""",
                        {**keys, "v": view_id, "left": left_run, "k": k, "blind": blind,
                         "n": overlap, "h": digest, "me": judge, "rule": rule,
                         **({"lease": lease_seconds} if overlap else {})})
        by_id = dict(tops)
        return IssuedView(view_id, query_id, text[0] if text else None, left_run,
                          {run_1: list(by_id.get(ids[0], [])),
                           run_2: list(by_id.get(ids[1], []))}, digest)

    def labels_shown(self, dataset, query_id: str, judge: str, blind: bool
                     ) -> dict[str, tuple[int | None, int | None]]:
        """The labels a judge may see on one query, in one read: doc id -> (dataset grade,
        expert grade).  The expert grade is, in a blind round, the judge's own current grade
        (never another judge's); otherwise the lower median of the experts' current grades.
        Docs with neither are left out."""
        expert = ("""SELECT doc_id, NULL, grade FROM current_expert_labels
                     WHERE dataset_id = $d AND query_id = $q AND judge = $me""" if blind else
                  """SELECT doc_id, NULL, median_grade FROM expert_consensus
                     WHERE dataset_id = $d AND query_id = $q AND basis = $basis""")
        rows = self.backend.cursor().execute(f"""
            SELECT doc_id, max(dataset_grade), max(expert_grade) FROM (
                SELECT doc_id, grade AS dataset_grade, CAST(NULL AS INTEGER) AS expert_grade
                FROM judgments WHERE dataset_id = $d AND query_id = $q
                UNION ALL
                {expert}) AS shown
            GROUP BY doc_id""", {"d": dataset.dataset_id, "q": query_id,
                                 **({"me": judge} if blind else {"basis": LABEL_BASES[0]})}
                                      ).fetchall()
        return {str(doc): (None if g is None else int(g), None if e is None else int(e))
                for doc, g, e in rows}

    def release_view(self, view_id: str, judge: str) -> None:
        """End the judge's lease of a view (skip): another judge may take the query."""
        with self.backend.transaction() as cur:
            cur.execute("UPDATE views SET lease_until = NULL WHERE view_id = ? AND judge = ?",
                        [view_id, judge])

    # -- votes ------------------------------------------------------------------------------

    def cast_vote(self, dataset, view_id: str, choice: str, judge: str,
                  reason: str | None = None, ms_spent: int | None = None,
                  revote: bool = False, judging_policy: str | None = None) -> bool:
        """Store ``judge``'s vote on the view; False (nothing stored, no error) when this view
        was voted already or the judge already has a counted vote on its query and pair.
        With ``revote`` (a query the judge opened again to change their vote), their counted
        vote on the query and pair is retracted instead (a retraction row, token
        ``revote:<view id>``; the vote row stays) and the new vote stored, in one
        transaction.  ``judging_policy``: the vote queue's policy in force (None: not known).

        Raises :class:`StaleView` if the query or its top-k lists changed since the view was
        drawn, :class:`QueryFull` if its N judges voted meanwhile."""
        if choice not in CHOICES:
            raise SxsError(f"choice must be one of {', '.join(Choice)}; got {choice!r}")
        plain_text(reason, "reason")
        self.judges.active_judge(judge)
        with self.backend.transaction() as cur:
            view = one(cur, """
                SELECT query_id, run_1, run_2, left_run, k, blind, overlap, ranking_hash, judge
                FROM views WHERE view_id = ? AND dataset_id = ?""",
                        [view_id, dataset.dataset_id])
            if view is None:
                raise NotFound(f"no view {view_id!r} in dataset {dataset.name!r}")
            query_id, run_1, run_2, left, k, blind, overlap, digest, owner = view
            keys = {"d": dataset.dataset_id, "q": query_id, "r1": run_1, "r2": run_2}
            if owner != judge:
                raise SignInRefused("this view was drawn for another judge")
            if one(cur, "SELECT 1 FROM preferences WHERE view_id = ?", [view_id]):
                return False
            _take_slot(cur, keys, self.backend.dialect.for_update)  # waits for the slot's holder
            # the lists as they are now, read once the slot is held (a --replace committed
            # while waiting is seen), with the view's values bound (the macro correlated with
            # the views row costs DuckDB five times as much)
            now = _ranking_hash(cur, keys, k)
            counted = _counted_votes(cur, keys, k, now)
            voters = set(counted)
            if judge in voters and not revote:
                return False
            if digest != now:
                raise StaleView("this query changed since it was shown: your vote was not "
                                "stored; here it is as it is now")
            if judge in voters:  # the re-vote replaces the judge's own counted vote(s)
                for preference_id in counted[judge]:  # stale ones stay as they were
                    cur.execute("""
                        INSERT INTO preference_retractions (preference_id, judge, client_token)
                        VALUES (?, ?, ?)""",
                                [preference_id, judge, f"revote:{view_id}:{preference_id}"])
                voters = voters - {judge}
            if overlap is not None and len(voters) >= overlap:
                raise QueryFull(f"this query already has its {overlap} judge"
                                f"{'s' if overlap > 1 else ''}: your vote was not stored")
            other = run_2 if left == run_1 else run_1
            preferred = preferred_run(choice, left, other)
            cur.execute("""
                INSERT INTO preferences (dataset_id, query_id, run_1, run_2, left_run, choice,
                                         preferred_run, k, blind, ranking_hash, view_id,
                                         reason, judge, ms_spent, judging_policy)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
                        [dataset.dataset_id, query_id, run_1, run_2, left, choice, preferred,
                         k, blind, digest, view_id, reason or None, judge, ms_spent,
                         judging_policy])
        return True

    def retract_preference(self, dataset, preference_id: int, judge: str,
                           client_token: str) -> bool:
        """Append a retraction of the judge's own vote (undo); the vote row stays."""
        with self.backend.transaction() as cur:
            owner = one(cur, "SELECT judge FROM preferences WHERE preference_id = ? "
                              "AND dataset_id = ?", [preference_id, dataset.dataset_id])
            if owner is None:
                raise NotFound(f"no vote {preference_id} in dataset {dataset.name!r}")
            if owner[0] != judge:
                raise SxsError(f"vote {preference_id} is another judge's: a judge can only "
                               "undo their own votes")
            inserted = cur.execute("""
                INSERT INTO preference_retractions (preference_id, judge, client_token)
                VALUES (?, ?, ?) ON CONFLICT (client_token) DO NOTHING
                RETURNING preference_id""", [preference_id, judge, client_token]).fetchall()
        return bool(inserted)

    def last_vote(self, dataset, judge: str, run_a: str, run_b: str) -> tuple[int, str] | None:
        """The judge's latest current vote on this pair of runs: (preference_id, query_id)."""
        run_1, run_2 = pair(run_a, run_b)
        row = one(self.backend.cursor(), """
            SELECT preference_id, query_id FROM preferences p
            WHERE dataset_id = ? AND judge = ? AND run_1 = ? AND run_2 = ?
              AND NOT EXISTS (SELECT 1 FROM preference_retractions r
                              WHERE r.preference_id = p.preference_id)
            ORDER BY preference_id DESC LIMIT 1""", [dataset.dataset_id, judge, run_1, run_2])
        return (int(row[0]), str(row[1])) if row else None

    def has_votes(self, dataset, run_a: str, run_b: str) -> bool:
        """Whether any vote was ever cast on the pair (either order; retracted, stale and
        excluded judges' votes included): without one, :meth:`preferences` of the pair is
        empty and its views need not be read."""
        run_1, run_2 = pair(run_a, run_b)
        row = one(self.backend.cursor(), """
            SELECT EXISTS (SELECT 1 FROM preferences
                           WHERE dataset_id = ? AND run_1 = ? AND run_2 = ?)""",
                  [dataset.dataset_id, run_1, run_2])
        return bool(row and row[0])

    def preferences(self, dataset, run_a: str | None = None, run_b: str | None = None,
                    include_retracted: bool = False, include_stale: bool = True
                    ) -> pd.DataFrame:
        """Votes, oldest first, with run_a/run_b oriented as asked (both given: only that
        pair, whichever order it was judged in; else run_a < run_b as stored).

        Columns: preference_id, query_id, run_a, run_b, left_run, choice, preferred_run, k,
        blind, reason, judge (unverified judges marked), created_at, ms_spent, retracted,
        stale, excluded (the judge is excluded from the dataset's figures, which leave the
        vote out), judging_policy (the vote queue's policy in force; None: not known).
        Retracted votes only with ``include_retracted``; stale ones (cast on a ranking since
        replaced) unless ``include_stale`` is False."""
        params: dict = {"d": dataset.dataset_id}
        where = "p.dataset_id = $d"
        a, b = "p.run_1", "p.run_2"
        if run_a is not None and run_b is not None:
            run_1, run_2 = pair(run_a, run_b)
            where += " AND p.run_1 = $r1 AND p.run_2 = $r2"
            params |= {"r1": run_1, "r2": run_2, "a": run_a, "b": run_b}
            a, b = "$a", "$b"
        if not include_retracted:
            where += " AND NOT p.retracted"
        if not include_stale:
            where += " AND NOT p.stale"
        return self.backend.frame(f"""
            SELECT p.preference_id, p.query_id, {a} AS run_a, {b} AS run_b, p.left_run,
                   p.choice, p.preferred_run, p.k, p.blind, p.reason,
                   coalesce(n.shown, p.judge) AS judge, p.created_at, p.ms_spent,
                   p.retracted, p.stale,
                   EXISTS (SELECT 1 FROM judge_standings s
                           WHERE s.dataset_id = p.dataset_id AND s.judge = p.judge
                             AND s.excluded) AS excluded, p.judging_policy
            FROM (SELECT v.*, c.preference_id IS NULL AS retracted,
                         coalesce(c.stale, false) AS stale
                  FROM preferences v LEFT JOIN current_votes c USING (preference_id)) p
            LEFT JOIN judge_names n ON n.name = p.judge
            WHERE {where} ORDER BY p.preference_id""", params)

    def vote_counts(self, dataset, run_a: str, run_b: str, judge: str) -> pd.DataFrame:
        """Per query voted on for this pair of runs (either order): how many judges (counted
        votes) and whether ``judge`` is one of them (query_id, judges, mine)."""
        run_1, run_2 = pair(run_a, run_b)
        return self.backend.frame("""
            SELECT query_id, count(DISTINCT judge) AS judges, bool_or(judge = ?) AS mine
            FROM counted_votes WHERE dataset_id = ? AND run_1 = ? AND run_2 = ?
            GROUP BY query_id ORDER BY query_id""",
                           [judge, dataset.dataset_id, run_1, run_2])

    # -- grades -----------------------------------------------------------------------------

    def withdraw_label(self, dataset, query_id: str, doc_id: str, judge: str) -> bool:
        """Withdraw the judge's current grade of (query, doc); False if they have none."""
        with self.backend.transaction() as cur:
            found = one(cur, """
                SELECT label_id FROM current_expert_labels
                WHERE dataset_id = ? AND judge = ? AND query_id = ? AND doc_id = ?""",
                         [dataset.dataset_id, judge, query_id, doc_id])
            if found is None:
                return False
            cur.execute("INSERT INTO label_withdrawals (label_id, judge) VALUES (?, ?)",
                        [found[0], judge])
        return True


def _ranking_hash(cur, keys: dict, k: int) -> str | None:
    """The hash a view records of its query's text and the two runs' top ``k`` now."""
    (digest,) = one(cur, "SELECT ranking_hash($d, $q, $r1, $r2, $k)", {**keys, "k": k})
    return digest


def _counted_voters(cur, keys: dict, k: int, digest: str | None) -> set[str]:
    """The judges with a counted vote on the query and pair: the rule of the
    ``counted_votes`` view (not retracted, and not stale: no ranking hash recorded, or the
    one the vote's k gives now) evaluated for one query, with ``digest`` the hash at ``k``
    now.  The view computes the hash once per vote row (~15 ms a vote on the demo store);
    here it is computed once per distinct k, and usually not at all."""
    return set(_counted_votes(cur, keys, k, digest))


def _counted_votes(cur, keys: dict, k: int, digest: str | None) -> dict[str, list[int]]:
    """Each judge with a counted vote on the query and pair (:func:`_counted_voters`) and the
    ids of those votes: a re-vote retracts these, never the judge's stale ones."""
    hashes = {k: digest}
    counted: dict[str, list[int]] = {}
    for judge, vote_k, recorded, preference_id in cur.execute(_CURRENT_VOTES, keys).fetchall():
        if recorded is not None:
            if vote_k not in hashes:
                hashes[vote_k] = _ranking_hash(cur, keys, vote_k)
            if recorded != hashes[vote_k]:
                continue
        counted.setdefault(judge, []).append(int(preference_id))
    return counted


def _take_slot(cur, keys: dict, lock: str) -> bool:
    """Lock the query's judging slot (created on first use) with ``lock`` (the dialect's
    ``FOR UPDATE [SKIP LOCKED]``; nothing on DuckDB); False when it is skipped."""
    cur.execute("""INSERT INTO judging_slots VALUES ($d, $q, $r1, $r2)
                   ON CONFLICT DO NOTHING""", keys)
    return one(cur, f"""SELECT 1 FROM judging_slots WHERE dataset_id = $d AND query_id = $q
                         AND run_1 = $r1 AND run_2 = $r2{lock}""", keys) is not None
