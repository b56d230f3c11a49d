"""Deleting a run or a dataset: what it takes with it, said before, then done
(:mod:`judge_app.store.deletion` holds the rules: votes on a deleted run stay, no longer
counted)."""

from __future__ import annotations

from judge_app.store import Dataset, Store
from judge_app.store.deletion import describe_counts


def run_deletion_notice(store: Store, dataset: Dataset, name: str) -> str:
    """One line: what deleting run ``name`` deletes, and what it keeps."""
    counts = store.run_deletion(dataset, name)
    votes = counts["preferences"]
    kept = (f"its {votes:,} vote{'s' if votes != 1 else ''} ({counts['retracted']:,} "
            "retracted) stay as history, no longer counted"
            if votes else "no votes were cast on it")
    return (f"Deleting run {name!r} of dataset {dataset.name!r} deletes "
            f"{counts['run_results']:,} result rows; {kept}; labels and judgments stay with "
            "the dataset.")


def delete_run(store: Store, dataset: Dataset, name: str) -> str:
    store.delete_run(dataset, name)
    return f"deleted run {name!r} of dataset {dataset.name!r}"


def dataset_deletion_notice(store: Store, dataset: Dataset) -> str:
    """One line: every kind of row deleting the dataset deletes, with counts."""
    return (f"Deleting dataset {dataset.name!r} deletes: "
            f"{describe_counts(store.dataset_deletion(dataset))}.")


def delete_dataset(store: Store, dataset: Dataset) -> str:
    store.delete_dataset(dataset)
    return f"deleted dataset {dataset.name!r}"
