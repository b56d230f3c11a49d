"""Judging rounds: the settings an admin sets per dataset (the latest round is current), saved
by compare-and-set on the round the admin's form was drawn with."""

from __future__ import annotations

from dataclasses import dataclass

from judge_app.errors import SxsError
from judge_app.store.backend import Backend
from judge_app.store.runs import Runs
from judge_app.store.sql import one

DEFAULT_LEASE_SECONDS = 300
DEFAULT_GOLD_EVERY = 10  # one gold item in each block of this many items a judge is served


def pair(run_a: str, run_b: str) -> tuple[str, str]:
    """The unordered pair as stored: (the smaller name, the larger)."""
    if run_a == run_b:
        raise SxsError("choose two different runs to compare")
    return (run_a, run_b) if run_a < run_b else (run_b, run_a)


class RoundChanged(SxsError):
    """A round saved from a form drawn before the dataset's current round was set."""


ROUND_CHANGED = "the round changed since you opened this page: reload"

ANY_ROUND = -1
"""``expected_round_id`` of :meth:`Rounds.set_round` that checks nothing (the CLI, the demo)."""


@dataclass(frozen=True)
class Round:
    """The judging round of a dataset, set by an admin: the two runs (A baseline, B
    candidate), the depth, judges per query, blind mode, the lease time, whether the pair
    stops being served once it is decided (``stop_when_decided``); one gold item in each
    block of ``gold_every`` items a judge is served (0: none), and how many judges a disputed
    item may reach (``max_overlap``; None: ``overlap``); the order its vote queue serves
    queries in (``queue_policy``, a :class:`~judge_app.services.queue.QueuePolicy` value;
    None, as stored for rounds from before it could be chosen: ``difference``); the order
    its backfill page serves (query, doc) pairs in (``backfill_policy``, a name of
    :data:`~judge_app.services.queue.BACKFILL_POLICIES`; None, a round saved without
    one: ``decision``; rounds from before it could be chosen were stored ``weight``);
    ``round_id`` names the stored round (None for a round not read from the store)."""

    dataset: str
    run_a: str
    run_b: str
    k: int
    overlap: int
    blind: bool
    lease_seconds: int = DEFAULT_LEASE_SECONDS
    stop_when_decided: bool = False
    gold_every: int = DEFAULT_GOLD_EVERY
    max_overlap: int | None = None
    round_id: int | None = None
    queue_policy: str | None = None
    backfill_policy: str | None = None


class Rounds:
    """Store methods for judging rounds."""

    def __init__(self, backend: Backend, runs: Runs) -> None:
        self.backend = backend
        self.runs = runs

    # -- rounds -----------------------------------------------------------------------------

    def set_round(self, dataset, run_a: str, run_b: str, k: int, overlap: int, blind: bool,
                  by: str, lease_seconds: int = DEFAULT_LEASE_SECONDS,
                  stop_when_decided: bool = False, gold_every: int = DEFAULT_GOLD_EVERY,
                  max_overlap: int | None = None,
                  expected_round_id: int | None = ANY_ROUND,
                  queue_policy: str | None = None,
                  backfill_policy: str | None = None) -> Round:
        """Start a judging round on the dataset (it becomes the current one).

        Compare-and-set: unless ``expected_round_id`` is :data:`ANY_ROUND`, the round is saved
        only while the dataset's current round is still the one of that id (None: no round
        yet), checked and written in one transaction with the dataset's row locked (on
        PostgreSQL; DuckDB's writers take turns), else :class:`RoundChanged` and nothing is
        written: of two admins saving forms drawn on the same round, the second is refused.
        ``queue_policy`` and ``backfill_policy`` are kept as given (None: the default
        orders); the services check the names (:func:`judge_app.services.judging.start_round`)."""
        for run in (run_a, run_b):
            self.runs.run_id(dataset, run)
        pair(run_a, run_b)
        if k < 1 or overlap < 1 or lease_seconds < 1:
            raise SxsError("k, judges per query and the lease time must be at least 1")
        if gold_every < 0:
            raise SxsError(f"gold items come one in N items, N >= 0 (0: none); got {gold_every}")
        if max_overlap is not None and max_overlap < overlap:
            raise SxsError(f"the most judges a disputed item may reach ({max_overlap}) is at "
                           f"least the judges per query ({overlap})")
        with self.backend.transaction() as cur:
            if expected_round_id != ANY_ROUND:
                one(cur, "SELECT dataset_id FROM datasets WHERE dataset_id = ?"
                    + self.backend.dialect.for_update, [dataset.dataset_id])
                found = one(cur, "SELECT max(round_id) FROM rounds WHERE dataset_id = ?",
                            [dataset.dataset_id])
                current = None if found is None or found[0] is None else int(found[0])
                if current != expected_round_id:
                    raise RoundChanged(ROUND_CHANGED)
            (round_id,) = one(cur, """
                INSERT INTO rounds (dataset_id, run_a, run_b, k, overlap, blind, lease_seconds,
                                    created_by, stop_when_decided, gold_every, max_overlap,
                                    queue_policy, backfill_policy)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING round_id""",
                [dataset.dataset_id, run_a, run_b, k, overlap, blind, lease_seconds, by,
                 bool(stop_when_decided), gold_every, max_overlap, queue_policy,
                 backfill_policy])
        return Round(dataset.name, run_a, run_b, k, overlap, blind, lease_seconds,
                     bool(stop_when_decided), gold_every, max_overlap, int(round_id),
                     queue_policy, backfill_policy)

    def current_round(self, dataset) -> Round | None:
        """The dataset's current round (its latest), with its ``round_id``; None if none."""
        row = one(self.backend.cursor(), """
            SELECT run_a, run_b, k, overlap, blind, lease_seconds,
                   coalesce(stop_when_decided, false), gold_every, max_overlap, round_id,
                   queue_policy, backfill_policy
            FROM rounds WHERE dataset_id = ? ORDER BY round_id DESC LIMIT 1""",
            [dataset.dataset_id])
        if row is None:
            return None
        return Round(dataset.name, row[0], row[1], int(row[2]), int(row[3]), bool(row[4]),
                     int(row[5]), bool(row[6]),
                     DEFAULT_GOLD_EVERY if row[7] is None else int(row[7]),
                     None if row[8] is None else int(row[8]), int(row[9]),
                     None if row[10] is None else str(row[10]),
                     None if row[11] is None else str(row[11]))
