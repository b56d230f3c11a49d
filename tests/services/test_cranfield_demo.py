"""The shipped Cranfield demo: what the store holds, against counts taken from the raw files
with plain Python (no sxs code), and the demo command being idempotent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judge_app.services.demo import DEMO_DATASET, build_demo_store, demo_data_dir
from judge_app.store import Store

DATA = Path(__file__).resolve().parents[2] / "data" / "cranfield"


def raw_counts() -> dict[str, object]:
    qrels = [line.split() for line in (DATA / "qrels.txt").read_text().splitlines() if line]
    runs = {name: [line.split() for line in (DATA / f"run_{name}.txt").read_text().splitlines()
                   if line] for name in ("bm25", "title")}
    docs = [json.loads(line) for line in (DATA / "docs.jsonl").read_text().splitlines() if line]
    queries = [line for line in (DATA / "queries.tsv").read_text().splitlines() if line]
    cranqrel = [line.split() for line in (DATA / "cranqrel").read_text().splitlines() if line]
    return {
        "judgments": len(qrels),
        "judged_queries": len({q[0] for q in qrels}),
        "grade_histogram": {g: sum(1 for q in qrels if q[3] == g) for g in "1234"},
        "run_rows": {name: len(rows) for name, rows in runs.items()},
        "documents": len(docs),
        "queries": len(queries),
        "cranqrel_known": sum(1 for c in cranqrel if c[2] != "-1"),
    }


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    with Store(tmp_path_factory.mktemp("demo") / "demo.duckdb") as store:
        build_demo_store(store)
        yield store


def test_demo_store_matches_the_raw_files(demo_store: Store) -> None:
    want = raw_counts()
    dataset = demo_store.dataset(DEMO_DATASET)
    judged = demo_store.judgments(dataset)
    assert len(judged) == want["judgments"] == want["cranqrel_known"] == 1612
    assert judged["query_id"].nunique() == want["judged_queries"]
    assert {str(g): n for g, n in judged["grade"].value_counts().items()} == \
        want["grade_histogram"]
    assert len(demo_store.documents(dataset)) == want["documents"] == 1400
    assert len(demo_store.queries(dataset)) == want["queries"] == 225
    for name, rows in want["run_rows"].items():
        assert len(demo_store.run(dataset, name)) == rows == 22_500


def test_demo_is_idempotent(demo_store: Store) -> None:
    dataset = demo_store.dataset(DEMO_DATASET)
    before = len(demo_store.judgments(dataset))
    demo_store.add_expert_label(dataset, "1", "999", 2, "ann", "demo-token")
    again = build_demo_store(demo_store)
    assert again == [f"the demo dataset 'cranfield' is already in {demo_store.path}"]
    assert len(demo_store.judgments(dataset)) == before
    assert len(demo_store.expert_label_history(dataset)) == 1  # a judge's work is kept


def test_the_demo_data_is_where_the_package_looks() -> None:
    assert demo_data_dir() == DATA


def test_the_demo_round_serves_the_value_orders(demo_store: Store) -> None:
    """A newcomer sees the product's value order (issue 22, item 2): votes by
    ``moves_decision``, backfill by ``decision``."""
    found = demo_store.current_round(demo_store.dataset(DEMO_DATASET))
    assert (found.run_a, found.run_b, found.k) == ("title", "bm25", 10)
    assert (found.queue_policy, found.backfill_policy) == ("moves_decision", "decision")
