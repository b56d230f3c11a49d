"""Runs: a dataset's ranked results per query, stored whole or not at all.

A run is loaded from rows (:meth:`Runs.put_run`) or straight from a TREC file parsed by DuckDB
(:meth:`Runs.import_trec_run`, see :mod:`judge_app.store.run_load`); the backend decides where
the load runs (:meth:`~judge_app.store.backend.Backend.load_run`).
"""

from __future__ import annotations

import pandas as pd

from judge_app.errors import NotFound, SxsError
from judge_app.io.trec import TrecFile
from judge_app.store import run_load
from judge_app.store.backend import Backend
from judge_app.store.import_guard import Check
from judge_app.store.model import Dataset
from judge_app.store.sql import one


class Runs:
    """The runs of the store's datasets."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def put_run(self, dataset: Dataset, name: str, frame: pd.DataFrame, source: str, *,
                trust_rank: bool = False, dedupe: bool = False, replace: bool = False) -> int:
        """Store a run from (query_id, doc_id, rank, score, line) rows, all or nothing.

        Ranks are re-derived from score descending, then doc id descending (trec_eval's rule),
        unless ``trust_rank`` keeps the file's (which must be positive and distinct within a
        query).  A doc twice in one query is an error naming both lines, unless ``dedupe``
        keeps its first line.  An existing run name needs ``replace``.  Returns rows stored.
        """
        if not name.strip():
            raise SxsError("a run needs a name")
        rows = frame[["query_id", "doc_id", "rank", "score", "line"]]

        def load(begin) -> int:
            with begin() as cur:
                cur.register("incoming_run", rows)
                stored = run_load.store_staged_run(cur, dataset, name, source,
                                                    trust_rank=trust_rank, dedupe=dedupe,
                                                    replace=replace)
                cur.unregister("incoming_run")
            return int(stored)

        return self.backend.load_run(dataset, load, lambda _: name, source, replace)

    def import_trec_run(self, dataset: Dataset, trec: TrecFile, name: str | None = None, *,
                        trust_rank: bool = False, dedupe: bool = False, replace: bool = False,
                        check: Check | None = None) -> tuple[str, int]:
        """Load a TREC run file, parsed by DuckDB, with the checks of :meth:`put_run`; the
        name defaults to the file's one tag (else the file name).  Returns (name, rows)."""
        return self.backend.load_run(dataset, lambda begin: run_load.load_run(
            begin, dataset, trec, name, trust_rank=trust_rank, dedupe=dedupe, replace=replace,
            check=check), lambda result: result[0], trec.source, replace)

    def run_names(self, dataset: Dataset) -> list[str]:
        rows = self.backend.cursor().execute(
            "SELECT name FROM runs WHERE dataset_id = ? ORDER BY name",
            [dataset.dataset_id]).fetchall()
        return [r[0] for r in rows]

    def run(self, dataset: Dataset, name: str, query_ids: list[str] | None = None,
            depth: int | None = None) -> pd.DataFrame:
        """A run's rows (query_id, doc_id, rank, score) in (query, rank) order."""
        run_id = self.run_id(dataset, name)
        sql = "SELECT query_id, doc_id, rank, score FROM run_results WHERE run_id = ?"
        params: list = [run_id]
        if query_ids is not None:
            sql += " AND list_contains(?, query_id)"
            params.append(list(query_ids))
        if depth is not None:
            sql += " AND rank <= ?"
            params.append(depth)
        return self.backend.frame(sql + " ORDER BY query_id, rank", params, whole=query_ids is None)

    def run_id(self, dataset: Dataset, name: str) -> int:
        row = one(self.backend.cursor(),
                  "SELECT run_id FROM runs WHERE dataset_id = ? AND name = ?",
                  [dataset.dataset_id, name])
        if row is None:
            known = ", ".join(self.run_names(dataset)) or "none yet"
            raise NotFound(f"no run {name!r} in dataset {dataset.name!r} (runs: {known})")
        return row[0]

