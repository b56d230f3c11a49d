"""NDCG-f's observed Δ from the judging pool's arrays (``pool_observed_delta``, what ``sxs
decide`` computes) is the Δ ``evaluate`` gives on the two runs' top k and the labels
(``observed_delta``, the trec_eval-checked path), on random small cases with unjudged docs,
"pooled, not judged" grades, ties in scores, queries one run answers or no label mentions,
labels of queries neither run answers, text or integer ids, and no label at all.

Equal up to the last bit of the DCG sums: both sum through ``metrics.dcg.dcg_rows``, whose
matrix product (BLAS) may round a row differently with the number of rows beside it
(``evaluate`` has a row per query of the labels, the pool a row per query of the runs).
``decide`` takes the pool's figure only when the runs hold nothing below their top k, and
evaluates the runs otherwise."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.decision import decide, observed_delta, pool_observed_delta
from metrics.errors import ArgumentError
from metrics.judging_pool import judging_pool
from metrics.measures import parse_measure
from metrics.scale import ESCI

MEASURES = ("ndcg_f@{k}", "ndcg_f(gain=exponential)@{k}", "ndcg_f(discount=reciprocal)@{k}")


@st.composite
def cases(draw: st.DrawFn, deeper: bool = False
          ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, int]:
    """Two scored runs (ties likely) of at most k docs per query (``deeper``: some more) and
    labels: grades 0-3 or -1, on docs in or out of the runs, possibly none."""
    k = draw(st.integers(1, 5))
    n = draw(st.integers(1, 4))
    candidates = draw(st.integers(1, 8))
    as_int = draw(st.booleans())
    depth = candidates if deeper else min(k, candidates)

    def qid(q: int) -> object:
        return q if as_int else f"q{q}"

    def did(q: int, d: int) -> object:
        return q * 100 + d if as_int else f"d{q}_{d}"

    runs = []
    for _ in range(2):
        rows = []
        for q in range(n):
            size = draw(st.integers(0, depth))  # 0: the run does not answer the query
            docs = draw(st.permutations(range(candidates)))[:size]
            rows += [(qid(q), did(q, d), float(draw(st.integers(0, 2)))) for d in docs]
        runs.append(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    if len(runs[0]) + len(runs[1]) == 0:
        runs[0] = pd.DataFrame([(qid(0), did(0, 0), 1.0)],
                               columns=["query_id", "doc_id", "score"])
    pairs = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, candidates - 1)),
                          unique=True, max_size=n * candidates))  # query n: no run has it
    labels = pd.DataFrame([(qid(q), did(q, d), float(draw(st.sampled_from([-1, 0, 1, 2, 3]))))
                           for q, d in pairs], columns=["query_id", "doc_id", "grade"])
    if not len(labels):
        labels = labels.astype({"grade": float})
    return runs[0], runs[1], labels, k


def close(got: np.ndarray, want: np.ndarray) -> None:
    """Equal but for the rounding of the DCG sums (module doc)."""
    np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-15)


def top(run: pd.DataFrame, k: int) -> pd.DataFrame:
    """The run cut at k, as ``sxs decide`` reads it (rank by score, then doc id, descending)."""
    ranked = run.sort_values(["query_id", "score", "doc_id"], ascending=[True, False, False])
    return ranked.groupby("query_id", sort=False).head(k)


@settings(max_examples=300, deadline=None)
@given(cases())
def test_pool_observed_delta_is_evaluate_on_the_top_k(case) -> None:
    run_a, run_b, labels, k = case
    pool = judging_pool(run_a, run_b, labels, k, ESCI)
    for text in MEASURES:
        measure = parse_measure(text.format(k=k))
        want = observed_delta(run_a, run_b, labels, measure, ESCI, pool.query_ids)
        got = pool_observed_delta(pool, measure)
        close(got, want)
    empty = judging_pool(run_a, run_b, None, k, ESCI)
    assert not pool_observed_delta(empty, f"ndcg_f@{k}").any()


@settings(max_examples=100, deadline=None)
@given(cases(deeper=True))
def test_decide_reads_below_the_top_k_when_the_runs_go_deeper(case) -> None:
    run_a, run_b, labels, k = case
    measure = f"ndcg_f@{k}"
    pool = judging_pool(run_a, run_b, labels, k, ESCI)
    found = decide(run_a, run_b, labels, measure, max_grade=ESCI, samples=8)
    want = observed_delta(run_a, run_b, labels, parse_measure(measure), ESCI, pool.query_ids)
    close(found.per_query["observed"].to_numpy(), want)
    cut = observed_delta(top(run_a, k), top(run_b, k), labels, parse_measure(measure), ESCI,
                         pool.query_ids)
    close(pool_observed_delta(pool, measure), cut)


def test_pool_observed_delta_is_ndcg_f_at_the_pool_depth_only() -> None:
    run = pd.DataFrame({"query_id": ["q"], "doc_id": ["d"], "rank": [1]})
    pool = judging_pool(run, run, None, 5, ESCI)
    for wrong in ("ndcg@5", "ndcg_f@3"):
        with pytest.raises(ArgumentError):
            pool_observed_delta(pool, wrong)
