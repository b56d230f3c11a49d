"""The offline demo: the Cranfield collection shipped in ``data/cranfield`` loaded into a store.

Idempotent: a store that already holds the demo dataset is left as it is (judges' labels and
votes in it are kept).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.addresses import describe_address
from judge_app.errors import SxsError
from judge_app.io.clicks import normalise_query, read_clicks
from judge_app.services import importing
from judge_app.services.queue import QueuePolicy
from judge_app.store import Store
from metrics.engagement import DEFAULT_WEIGHTS, EngagementWeights
from metrics.judging_order import JudgingOrder
from metrics.scale import CRANFIELD, ESCI

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
        return [f"the demo dataset {DEMO_DATASET!r} is already in {describe_address(store.path)}",
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
    one judge per query, blind; served in the product's value order, so a newcomer sees it:
    votes by ``moves_decision``, backfill by ``decision`` (issue 22, item 2)."""
    if store.current_round(dataset) is not None:
        return []
    store.set_round(dataset, "title", "bm25", k=10, overlap=1, blind=True, by="sxs demo",
                    queue_policy=QueuePolicy.MOVES_DECISION.value,
                    backfill_policy=JudgingOrder.DECISION.value)
    return ["judging round: title (A) vs bm25 (B), top 10, 1 judge per query, blind; votes "
            "served by moves_decision, backfill by decision"]



# ---------------------------------------------------------------- the click-log demo (issue 13)

CLICKS_DEMO_DATASET = "esci-ubi"
CLICKS_ORACLE_RUN = "clicks-oracle"
"""The demo's second run: each query's logged docs re-ranked by the engagement they received
in the very log that is replayed (an in-sample upper bound, not a candidate ranker)."""


def clicks_demo_file() -> Path:
    """``data/esci-ubi/ubi_queries_events.ndjson`` of the repository."""
    path = Path(__file__).resolve().parents[2] / "data" / "esci-ubi" / \
        "ubi_queries_events.ndjson"
    if not path.is_file():
        raise SxsError(f"the click demo data is missing ({path}); install sxs from a clone of "
                       "its repository with: pip install -e .")
    return path


def clicks_demo_queries(log_path: Path) -> pd.DataFrame:
    """The demo dataset's queries: every distinct normalised query text of the log (its
    ubi_queries documents and events), ids ``q001``, ``q002``, ... in text order."""
    log = read_clicks(log_path)
    texts = pd.concat([log.queries["query"], log.impressions["query"], log.events["query"]])
    unique = sorted({normalise_query(t) for t in texts.dropna()} - {""})
    width = len(str(len(unique)))
    return pd.DataFrame({"query_id": [f"q{i:0{width}d}" for i in range(1, len(unique) + 1)],
                         "text": unique})


def engagement_reranked(run: pd.DataFrame, events: pd.DataFrame,
                        weights: EngagementWeights = DEFAULT_WEIGHTS) -> pd.DataFrame:
    """``run``'s docs per query re-ordered by the summed engagement weight each received in
    ``events`` (query_id, doc_id, action), most first; ties (unengaged docs included) keep
    the run's order.  Same docs, same depth: only the order changes."""
    weight = pd.Series(weights.weigh(events["action"]), index=events.index)
    engaged = (pd.DataFrame({"query_id": events["query_id"], "doc_id": events["doc_id"],
                             "w": weight}).dropna(subset=["query_id", "doc_id"])
               .groupby(["query_id", "doc_id"])["w"].sum())
    keyed = run.set_index(["query_id", "doc_id"])
    scored = run.assign(w=engaged.reindex(keyed.index).fillna(0.0).to_numpy())
    scored = scored.sort_values(["query_id", "w", "rank"], ascending=[True, False, True],
                                kind="stable", ignore_index=True)
    scored["rank"] = scored.groupby("query_id").cumcount() + 1
    return scored[["query_id", "doc_id", "rank"]].assign(
        score=np.nan, line=np.arange(1, len(scored) + 1))


def build_clicks_demo(store: Store) -> list[str]:
    """Load the ESCI UBI click-log sample as dataset ``esci-ubi`` (ESCI scale) unless it is
    there: its queries, the log (import), the logged ranking as run ``logged`` and run
    ``clicks-oracle`` (:func:`engagement_reranked` of ``logged``).  Returns what was done."""
    from judge_app.services import clicks

    path = clicks_demo_file()
    existing = store.find_dataset(CLICKS_DEMO_DATASET)
    if existing is not None and store.has_clicks(existing) and \
            set(store.run_names(existing)) >= {clicks.LOGGED_RUN, CLICKS_ORACLE_RUN}:
        return [f"the click demo dataset {CLICKS_DEMO_DATASET!r} is already in "
                f"{describe_address(store.path)}"]
    dataset = store.create_dataset(CLICKS_DEMO_DATASET, ESCI)
    said = []
    if not store.has_clicks(dataset):
        queries = clicks_demo_queries(path)
        store.put_queries(dataset, queries)
        said.append(f"imported {len(queries):,} queries (the log's distinct query texts)")
        said.append(str(clicks.import_clicks(store, dataset, path, as_run=clicks.LOGGED_RUN,
                                             replace=True)))
    oracle = engagement_reranked(store.run(dataset, clicks.LOGGED_RUN),
                                 clicks.engagement_events(store, dataset))
    rows = store.put_run(dataset, CLICKS_ORACLE_RUN, oracle,
                         "demo: run 'logged' re-ranked by the log's own engagement",
                         trust_rank=True, replace=True)
    said.append(f"stored run {CLICKS_ORACLE_RUN!r} ({rows:,} results): run 'logged' re-ranked "
                "by the engagement each doc received in this same log — an in-sample upper "
                "bound, not a candidate ranker")
    return said
