"""Deleting a run or a whole dataset, and saying first what goes with it.

* A run: its result rows and the run go in one transaction.  The votes cast on it stay as
  they were written (a judge's history is never rewritten), with their reasons and
  retractions, and stop counting: each vote carries the hash of the two top-k lists it was
  cast on, which no longer matches once the run is gone, so it reads as stale — and a later
  run imported under the same name does not inherit it unless it shows the very same lists.
  Labels and judgments belong to the dataset and stay.
* A dataset: everything that belongs to it, in every table — found in the catalog, so tables
  added by later migrations are covered: a table with a ``dataset_id`` column, or one owned
  through ``run_id`` (runs) or ``preference_id`` (votes).  DuckDB refuses to delete a row in
  the same transaction as the rows that reference it, so the deletion is first *recorded* in
  ``dataset_deletions`` — one transaction, after which no reader sees the dataset — then the
  tables are purged children first, one layer of the foreign-key graph per transaction, the
  record going with the ``datasets`` row.  A purge cut short is finished the next time the
  store is opened for writing (:meth:`Deletions.finish_deletions`).

Table names come from the catalog (quoted); the owning columns from :data:`OWNERS`.
"""

from __future__ import annotations

import graphlib

from judge_app.store.backend import Backend
from judge_app.store.model import Dataset
from judge_app.store.runs import Runs
from judge_app.store.sql import quote

# SQL: the dataset row is not being deleted (every dataset reader filters on it).
LIVE_DATASET = "dataset_id NOT IN (SELECT dataset_id FROM dataset_deletions)"
# How a table's rows belong to a dataset: by this column, owned through this parent table.
OWNERS = {
    "dataset_id": ("datasets", "$dataset"),
    "run_id": ("runs", "(SELECT run_id FROM runs WHERE dataset_id = $dataset)"),
    "preference_id": ("preferences",
                      "(SELECT preference_id FROM preferences WHERE dataset_id = $dataset)"),
}
# What a table's rows are, said to a user (singular, plural); others go by their table name.
NOUNS = {
    "runs": ("run", "runs"), "run_results": ("result row", "result rows"),
    "queries": ("query", "queries"), "documents": ("document", "documents"),
    "judgments": ("judgment", "judgments"), "expert_labels": ("expert label", "expert labels"),
    "preferences": ("vote", "votes"), "preference_retractions": ("retraction", "retractions"),
    "judgment_history": ("replaced grade", "replaced grades"),
    "grade_scale": ("grade name", "grade names"),
}
_NOT_OWNED = {"datasets", "dataset_deletions"}


def describe_counts(counts: dict[str, int]) -> str:
    """``2 runs, 2,800 result rows, …``: non-zero counts, known tables first."""
    order = [t for t in NOUNS if t in counts] + sorted(set(counts) - set(NOUNS))
    parts = []
    for table in order:
        n = counts[table]
        if n:
            one, many = NOUNS.get(table, (f"{table} row", f"{table} rows"))
            parts.append(f"{n:,} {one if n == 1 else many}")
    return ", ".join(parts) or "nothing else"


class Deletions:
    """Store methods that delete runs and datasets."""

    def __init__(self, backend: Backend, runs: Runs) -> None:
        self.backend = backend
        self.runs = runs


    # -- runs -------------------------------------------------------------------------------

    def run_deletion(self, dataset: Dataset, name: str) -> dict[str, int]:
        """What deleting the run touches: ``run_results`` rows, and the ``preferences`` (of
        them ``retracted``) that stay as history, no longer counted."""
        run_id = self.runs.run_id(dataset, name)
        row = self.backend.cursor().execute("""
            SELECT (SELECT count(*) FROM run_results WHERE run_id = $run),
                   count(*), count(*) FILTER (WHERE preference_id NOT IN (
                       SELECT preference_id FROM current_votes))
            FROM preferences WHERE dataset_id = $dataset AND $name IN (run_1, run_2)""",
                                     {"run": run_id, "dataset": dataset.dataset_id,
                                      "name": name}).fetchall()[0]
        return {"run_results": int(row[0]), "preferences": int(row[1]),
                "retracted": int(row[2])}

    def delete_run(self, dataset: Dataset, name: str) -> dict[str, int]:
        """Delete the run and its results in one transaction; votes on it stay as they were
        written (judges' history is never rewritten) and stop counting: the ranking they were
        cast on is gone, so their ranking hash no longer matches (they read as stale, and a
        later run of the same name does not inherit them unless it shows the very same top-k
        lists).  Returns :meth:`run_deletion`'s counts."""
        counts = self.run_deletion(dataset, name)
        run_id = self.runs.run_id(dataset, name)
        owned = [t for t, columns in self._owned_tables().items()
                 if columns == "run_id" and t != "runs"]
        with self.backend.transaction() as cur:
            for table in owned:
                cur.execute(f"DELETE FROM {quote(table)} WHERE run_id = ?", [run_id])
            cur.execute("DELETE FROM runs WHERE run_id = ?", [run_id])
        return counts

    # -- datasets ---------------------------------------------------------------------------

    def _owned_tables(self) -> dict[str, str]:
        """Each table holding rows of datasets, with the column that says whose."""
        rows = self.backend.cursor().execute(self.backend.dialect.columns_sql).fetchall()
        owned = {}
        for table, columns in rows:
            column = next((c for c in OWNERS if c in columns), None)
            if column is not None and table not in _NOT_OWNED:
                owned[table] = column
        return owned

    def _purge_order(self) -> list[list[str]]:
        """The owned tables in layers, children first: a table comes after every table that
        references it (its foreign keys, and ownership through ``run_id``/``preference_id``)."""
        owned = self._owned_tables()
        graph: dict[str, set[str]] = {t: set() for t in owned}
        for table, column in owned.items():
            parent = OWNERS[column][0]
            if parent in graph and parent != table:
                graph[parent].add(table)
        fks = self.backend.cursor().execute(self.backend.dialect.foreign_keys_sql).fetchall()
        for child, parent in fks:
            if child in graph and parent in graph and child != parent:
                graph[parent].add(child)
        sorter = graphlib.TopologicalSorter(graph)
        sorter.prepare()
        layers = []
        while sorter.is_active():
            ready = sorted(sorter.get_ready())
            layers.append(ready)
            sorter.done(*ready)
        return layers

    def dataset_deletion(self, dataset: Dataset) -> dict[str, int]:
        """Rows per table that deleting the dataset removes (tables with none left out)."""
        counts = {}
        for table, column in self._owned_tables().items():
            (n,) = self.backend.cursor().execute(
                f"SELECT count(*) FROM {quote(table)} WHERE {column} IN {_owner_set(column)}",
                {"dataset": dataset.dataset_id}).fetchall()[0]
            if n:
                counts[table] = int(n)
        return counts

    def delete_dataset(self, dataset: Dataset) -> dict[str, int]:
        """Delete the dataset and everything of it (see the module); returns
        :meth:`dataset_deletion`'s counts."""
        counts = self.dataset_deletion(dataset)
        with self.backend.transaction() as cur:
            cur.execute("INSERT INTO dataset_deletions (dataset_id, name) VALUES (?, ?) "
                        "ON CONFLICT DO NOTHING", [dataset.dataset_id, dataset.name])
        self._purge(dataset.dataset_id)
        return counts

    def finish_deletions(self) -> list[str]:
        """Finish the dataset deletions a stopped process left; returns their names."""
        rows = self.backend.cursor().execute(
            "SELECT dataset_id, name FROM dataset_deletions ORDER BY dataset_id").fetchall()
        for dataset_id, _ in rows:
            self._purge(dataset_id)
        return [name for _, name in rows]

    def _purge(self, dataset_id: int) -> None:
        layers = self._purge_order()
        for layer in layers:
            self._purge_layer(dataset_id, layer)
        with self.backend.transaction() as cur:
            cur.execute("DELETE FROM datasets WHERE dataset_id = ?", [dataset_id])
            cur.execute("DELETE FROM dataset_deletions WHERE dataset_id = ?", [dataset_id])

    def _purge_layer(self, dataset_id: int, tables: list[str]) -> None:
        """Delete the dataset's rows from ``tables`` (none references another) at once."""
        owned = self._owned_tables()
        with self.backend.transaction() as cur:
            for table in tables:
                column = owned[table]
                cur.execute(f"DELETE FROM {quote(table)} WHERE {column} IN "
                            f"{_owner_set(column)}", {"dataset": dataset_id})


def _owner_set(column: str) -> str:
    """SQL for the set of ``column`` values that belong to dataset ``$dataset``."""
    parent = OWNERS[column][1]
    return "($dataset)" if column == "dataset_id" else parent
