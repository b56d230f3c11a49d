"""The judging replay: on the shipped Cranfield demo (its judgments as the oracle, no label
to start from) the decision order decides with at most 20% of the depth-10 pool and agrees
with the verdict on the fully judged pool; on small simulated pools every order ends in the
pool's reference or earlier, and the replay never writes its inputs."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from metrics.decision import Verdict
from metrics.errors import ArgumentError, GradeError
from metrics.judging_order import JudgingOrder
from metrics.judging_simulation import replay, simulate_judging
from metrics.scale import CRANFIELD
from tests.metrics.simulated_pairs import simulated_pool

CRANFIELD_DIR = Path(__file__).resolve().parents[2] / "data" / "cranfield"


def _trec_run(name: str) -> pd.DataFrame:
    frame = pd.read_csv(CRANFIELD_DIR / f"run_{name}.txt", sep=" ", header=None,
                        names=["query_id", "q0", "doc_id", "rank", "score", "tag"],
                        dtype={"query_id": str, "doc_id": str})
    return frame[["query_id", "doc_id", "rank"]]


def _qrels() -> pd.DataFrame:
    frame = pd.read_csv(CRANFIELD_DIR / "qrels.txt", sep=" ", header=None,
                        names=["query_id", "iteration", "doc_id", "grade"],
                        dtype={"query_id": str, "doc_id": str})
    return frame[["query_id", "doc_id", "grade"]]


def test_cranfield_title_vs_bm25_decides_with_a_fifth_of_the_pool_at_most() -> None:
    """The issue's target, with the decision order judging one pair at a time: the oracle is
    the demo's qrels (a pool doc they do not grade is grade 0)."""
    title, bm25, qrels = _trec_run("title"), _trec_run("bm25"), _qrels()
    found = simulate_judging(title, bm25, qrels, "ndcg_m@10", max_grade=CRANFIELD)
    print(f"\ncranfield title vs bm25, ndcg_m@10, decision order: {found.judgments} of "
          f"{found.pool} pool pairs ({found.share:.1%}), {found.verdict.label}; "
          f"all judged: {found.reference.verdict.label}")
    assert found.pool == 3633  # the depth-10 pool of the two runs
    assert found.decided and found.share <= 0.20
    assert found.agrees and found.reference.verdict is Verdict.B_BETTER
    assert len(found.trace) == found.judgments + 1  # one decision before each judgment
    assert found.trace["verdict"].iloc[-1] == found.verdict.value
    assert (found.trace["verdict"].iloc[:-1] == "undecided").all()


@pytest.mark.parametrize("order", list(JudgingOrder))
def test_every_order_stops_at_a_decision_or_with_the_pool_judged(order: JudgingOrder) -> None:
    pool, truth = simulated_pool(np.random.default_rng(21), 30, 0.8, judged_share=0.0)
    before = pool.grade.copy()
    found = replay(pool, truth, "ndcg_m@5", order=order, batch=5)
    assert np.array_equal(pool.grade, before, equal_nan=True)  # the input is not written
    assert found.decided or found.judgments == pool.size
    assert 0 < found.judgments <= pool.size
    judged = ~np.isnan(found.final.grade)
    assert judged.sum() == found.judgments
    assert np.array_equal(found.final.grade[judged], truth[judged])  # the oracle's grades
    assert found.reference.unjudged == 0
    if found.judgments == pool.size:
        assert found.verdict is found.reference.verdict


def test_replay_can_start_from_labels_and_stop_early() -> None:
    pool, truth = simulated_pool(np.random.default_rng(22), 40, 0.0, judged_share=0.3)
    found = replay(pool, truth, "ndcg_m@5", max_judgments=7)
    assert found.judged_at_start == int(pool.judged.sum())
    assert found.judgments <= 7


def test_bad_input() -> None:
    pool, truth = simulated_pool(np.random.default_rng(23), 5, 0.0)
    with pytest.raises(ArgumentError, match="truth"):
        replay(pool, truth[:-1], "ndcg_m@5")
    with pytest.raises(ArgumentError, match="batch"):
        replay(pool, truth, "ndcg_m@5", batch=0)
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "rank": [1]})
    oracle = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "grade": [2.5]})
    with pytest.raises(GradeError, match="unjudged doc may take"):
        simulate_judging(run, run, oracle, "ndcg_m@5", max_grade=CRANFIELD)
