"""Bulk loads into a PostgreSQL store: DuckDB reads the file, PostgreSQL receives the rows.

The exact parsing and every check of a qrels or run load live in
:mod:`judge_app.store.run_load` and :mod:`judge_app.store.qrels_load`, written against
DuckDB.  On PostgreSQL they run unchanged
against a *scratch* store: an in-memory DuckDB with the same schema, holding the dataset row
and what the checks compare against (the dataset's runs; its current judgments).  What the
load wrote there is then copied into PostgreSQL (``COPY … FROM STDIN``, the scratch writing the
exact CSV of :mod:`judge_app.store.pg_csv` itself: no frame between) in one transaction,
which began before the scratch was filled and holds the dataset's row lock
(``SELECT … FOR UPDATE``), so two replicas importing into one dataset take turns:

* a run: the run row is created (or emptied, with ``replace``) in PostgreSQL by the same
  :func:`~judge_app.store.run_load.run_row`, then its result rows copied (the scratch
  holds the dataset's judgments too: the degenerate-import guard compares against them);
* judgments: the dataset's judgments are replaced by the scratch's (which began as a copy of
  them), and the grades the load replaced are appended to ``judgment_history`` (the scratch
  holds the (query, doc) pairs of the dataset's runs too, for the guard).

A refused file raises while only the scratch was written: PostgreSQL is untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import duckdb

from judge_app.store import run_load
from judge_app.store.migrations import apply_migrations
from judge_app.store.model import Dataset
from judge_app.store.pg_cursor import PgCursor
from judge_app.store.transactions import transaction_on

T = TypeVar("T")

_JUDGMENTS = ["query_id", "doc_id", "grade", "source", "imported_at"]
_HISTORY = ["query_id", "doc_id", "grade", "source", "imported_at", "replaced_by",
            "replaced_at"]


@contextmanager
def scratch(dataset: Dataset) -> Iterator[duckdb.DuckDBPyConnection]:
    """An in-memory DuckDB store holding the dataset's row (same id and name)."""
    con = duckdb.connect(":memory:")
    try:
        con.execute("SET TimeZone = 'UTC'")
        apply_migrations(con, ":memory:")
        con.execute("INSERT INTO datasets (dataset_id, name) VALUES (?, ?)",
                    [dataset.dataset_id, dataset.name])
        yield con
    finally:
        con.close()


def begin_on(con: duckdb.DuckDBPyConnection) -> Callable:
    """The ``begin()`` transaction factory a load takes, on the scratch."""

    @contextmanager
    def begin() -> Iterator[duckdb.DuckDBPyConnection]:
        cur = con.cursor()
        try:
            with transaction_on(cur):
                yield cur
        finally:
            cur.close()

    return begin


def _lock_dataset(pg: PgCursor, dataset: Dataset) -> None:
    pg.execute("SELECT dataset_id FROM datasets WHERE dataset_id = ? FOR UPDATE",
               [dataset.dataset_id])


def load_run(pg: PgCursor, dataset: Dataset, load: Callable[[Any], T],
             name_of: Callable[[T], str], source: str, replace: bool) -> T:
    """Run ``load(scratch)`` (a run_load) on a scratch holding the dataset's runs,
    then store the run it wrote in PostgreSQL through ``pg`` (a transaction)."""
    _lock_dataset(pg, dataset)
    runs = pg.execute("SELECT run_id, name, source, created_at FROM runs "
                      "WHERE dataset_id = ? ORDER BY run_id", [dataset.dataset_id]).fetchall()
    with scratch(dataset) as mem:
        if runs:
            mem.executemany("INSERT INTO runs (run_id, dataset_id, name, source, created_at) "
                            "VALUES (?, ?, ?, ?, ?)",  # ids apart from the new one
                            [[-r[0], dataset.dataset_id, r[1], r[2], r[3]] for r in runs])
        _copy_judgments(pg, mem, dataset)  # what the import guard compares a run against
        result = load(mem)
        name = name_of(result)
        run_id = run_load.run_row(pg, dataset, name, source, replace)
        mem.execute("""CREATE TEMP TABLE outgoing_run AS
                       SELECT ?::INTEGER AS run_id, r.query_id, r.doc_id, r.rank, r.score
                       FROM run_results r JOIN runs u USING (run_id)
                       WHERE u.name = ? ORDER BY r.query_id, r.rank""", [run_id, name])
        pg.copy_in_from("run_results", ["run_id", "query_id", "doc_id", "rank", "score"],
                        mem, "SELECT * FROM outgoing_run")
    return result


def load_judgments(pg: PgCursor, dataset: Dataset, load: Callable[[Any], T]) -> T:
    """Run ``load(scratch)`` (a qrels_load) on a scratch holding the dataset's
    judgments, then replace them in PostgreSQL through ``pg`` (a transaction) and append the
    grades it replaced to the history."""
    _lock_dataset(pg, dataset)
    with scratch(dataset) as mem:
        _copy_judgments(pg, mem, dataset)
        _copy_run_pairs(pg, mem, dataset)  # what the import guard compares judgments against
        result = load(mem)
        pg.execute("DELETE FROM judgments WHERE dataset_id = ?", [dataset.dataset_id])
        pg.copy_in_from("judgments", ["dataset_id", *_JUDGMENTS], mem,
                        f"SELECT dataset_id, {', '.join(_JUDGMENTS)} FROM judgments")
        pg.copy_in_from("judgment_history", ["dataset_id", *_HISTORY], mem,
                        f"SELECT dataset_id, {', '.join(_HISTORY)} FROM judgment_history "
                        "ORDER BY history_id")
    return result


def measure(pg: PgCursor, dataset: Dataset, fn: Callable[[duckdb.DuckDBPyConnection], T]
            ) -> T:
    """``fn(cursor)`` in a transaction on a scratch holding the dataset's judgments and its
    runs' (query, doc) pairs: the other side an import's figures are measured against
    (:mod:`judge_app.store.import_guard`) before anything is written to PostgreSQL."""
    with scratch(dataset) as mem:
        _copy_judgments(pg, mem, dataset)
        _copy_run_pairs(pg, mem, dataset)
        with begin_on(mem)() as cur:
            return fn(cur)


def _copy_judgments(pg: PgCursor, mem: duckdb.DuckDBPyConnection, dataset: Dataset) -> None:
    """The dataset's current judgments, into the scratch."""
    current = pg.frame("SELECT query_id, doc_id, grade, source, imported_at FROM judgments "
                       "WHERE dataset_id = ?", [dataset.dataset_id])
    mem.register("current_judgments", current)
    mem.execute("INSERT INTO judgments SELECT ?, query_id, doc_id, grade, source, "
                "imported_at FROM current_judgments", [dataset.dataset_id])
    mem.unregister("current_judgments")


def _copy_run_pairs(pg: PgCursor, mem: duckdb.DuckDBPyConnection, dataset: Dataset) -> None:
    """The (query, doc) pairs of the dataset's runs, into the scratch as one run (id 0; a
    judgments load holds no other run): the other side of the degenerate-import guard's
    overlap.  The scratch's runs are never copied back from a judgments load."""
    pairs = pg.frame("""SELECT DISTINCT r.query_id, r.doc_id FROM run_results r
                        JOIN runs u ON u.run_id = r.run_id WHERE u.dataset_id = ?""",
                     [dataset.dataset_id])
    if not len(pairs):
        return
    mem.execute("INSERT INTO runs (run_id, dataset_id, name, source) VALUES (0, ?, ?, ?)",
                [dataset.dataset_id, "stored runs", "postgresql"])
    mem.register("stored_pairs", pairs)
    mem.execute("""INSERT INTO run_results (run_id, query_id, doc_id, rank)
                   SELECT 0, query_id, doc_id,
                          row_number() OVER (PARTITION BY query_id ORDER BY doc_id)
                   FROM stored_pairs""")
    mem.unregister("stored_pairs")
