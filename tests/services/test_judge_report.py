"""The per-judge report from a store, on DuckDB and PostgreSQL: graded gold matched to the
judges' labels, gold pairs to their votes, the shown side of blind votes, time spent."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.services import gold, judge_report, judge_standing, judging
from judge_app.services.importing import create_dataset
from judge_app.store import Store
from tests.votes import ensure_runs

QUERIES = [f"q{i:02d}" for i in range(24)]


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def test_gold_side_and_speed_figures_from_the_store(store: Store, tmp_path) -> None:
    dataset = create_dataset(store, "r", "esci")
    ensure_runs(store, dataset, "A", "B", queries=QUERIES)
    for judge in ("lefty", "fair"):
        store.invite_judge(judge)
    for n, query_id in enumerate(QUERIES):
        for judge in ("lefty", "fair"):
            view = judging.side_by_side(store, dataset, "A", "B", query_id, 3, judge)
            # lefty always clicks the left side; fair always prefers run A, wherever shown
            choice = "left" if judge == "lefty" or view.left_run == "A" else "right"
            judging.record_vote(store, dataset, view, choice, judge,
                                ms_spent=900 if judge == "lefty" else 8000 + n)
    store.append_expert_labels(dataset, pd.DataFrame(
        [(q, "d1", j, 2 if j == "fair" else 3) for q in QUERIES[:12] for j in ("lefty", "fair")],
        columns=["query_id", "doc_id", "judge", "grade"]), "t")
    path = tmp_path / "gold.csv"
    path.write_text("query_id,doc_id,grade\n" + "".join(f"{q},d1,2\n" for q in QUERIES[:12]))
    gold.import_gold(store, dataset, path)
    pairs = tmp_path / "pairs.csv"
    pairs.write_text("query_id,run_a,run_b,preferred_run\n"
                     + "".join(f"{q},B,A,A\n" for q in QUERIES[:10]))
    gold.import_gold(store, dataset, pairs)
    judge_standing.exclude(store, "lefty", dataset)

    figures, raised = judge_report.judge_report(store, dataset)
    fair, lefty = figures.loc["fair"], figures.loc["lefty"]
    assert (fair["gold_items"], fair["gold_exact"], lefty["gold_exact"]) == (12, 1.0, 0.0)
    assert lefty["gold_offset"] == 1.0
    assert (lefty["decided_votes"], lefty["left_share"]) == (24, 1.0)
    assert fair["gold_pairs"] == 10 and fair["gold_pair_agree"] == 1.0
    assert lefty["median_seconds"] == 0.9 and fair["median_seconds"] > 8
    assert bool(lefty["excluded"]) and not bool(fair["excluded"])
    assert {"side_bias", "too_fast", "gold_inaccurate", "grades_high"} <= set(
        lefty["flags"].split(", "))
    assert fair["flags"] == ""
    assert set(raised["judge"]) == {"lefty"}
