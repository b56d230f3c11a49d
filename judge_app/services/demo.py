"""The offline demo: the Cranfield collection shipped in ``data/cranfield`` loaded into a store.

Idempotent: a store that already holds the demo dataset is left as it is (judges' labels and
votes in it are kept).
"""

from __future__ import annotations

from pathlib import Path

from judge_app.errors import SxsError
from judge_app.services import importing
from judge_app.store import Store
from metrics.scale import CRANFIELD

DEMO_DATASET = "cranfield"


def demo_data_dir() -> Path:
    """``data/cranfield`` of the repository this package is installed from."""
    folder = Path(__file__).resolve().parents[2] / "data" / "cranfield"
    if not (folder / "qrels.txt").is_file():
        raise SxsError(f"the demo data is missing ({folder}); install sxs from a clone of its "
                       "repository with: pip install -e .")
    return folder


def build_demo_store(store: Store) -> list[str]:
    """Load the Cranfield demo into ``store`` unless it is there; returns what was done."""
    folder = demo_data_dir()
    existing = store.find_dataset(DEMO_DATASET)
    if existing is not None and set(store.run_names(existing)) >= {"bm25", "title"}:
        return [f"the demo dataset {DEMO_DATASET!r} is already in {store.path}",
                *_demo_round(store, existing)]
    dataset = store.create_dataset(DEMO_DATASET, CRANFIELD)
    reports = [
        importing.import_queries(store, dataset, folder / "queries.tsv"),
        importing.import_documents(store, dataset, folder / "docs.jsonl"),
        importing.import_qrels(store, dataset, folder / "qrels.txt", on_conflict="last"),
        importing.import_run(store, dataset, folder / "run_bm25.txt", "bm25", replace=True),
        importing.import_run(store, dataset, folder / "run_title.txt", "title", replace=True),
    ]
    return [*(str(r) for r in reports), *_demo_round(store, dataset)]


def _demo_round(store: Store, dataset) -> list[str]:
    """The demo's judging round, unless the dataset has one: title (A) vs bm25 (B), top 10,
    one judge per query, blind."""
    if store.current_round(dataset) is not None:
        return []
    store.set_round(dataset, "title", "bm25", k=10, overlap=1, blind=True, by="sxs demo")
    return ["judging round: title (A) vs bm25 (B), top 10, 1 judge per query, blind"]
