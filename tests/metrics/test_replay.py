"""Session replay on hand-built logs: every expected value is worked out by hand below."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.engagement import DEFAULT_WEIGHTS, EngagementWeights
from metrics.ranking import DuplicateDocError
from metrics.replay import engaged_docs, replay


def run(rankings: dict[str, list[str]]) -> pd.DataFrame:
    rows = [(q, d, r) for q, docs in rankings.items() for r, d in enumerate(docs, start=1)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "rank"])


def events(rows: list[tuple[str, str, str | None, str]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["session_id", "query_id", "doc_id", "action"])


RUN_A = run({"q1": ["d1", "d2", "d3"], "q2": ["x1", "x2"]})
RUN_B = run({"q1": ["d3", "d1", "d2"], "q2": ["x2", "x1", "x3"]})
LOG = events([
    ("s1", "q1", "d3", "click"),
    ("s2", "q1", "d1", "click"),
    ("s2", "q1", "d1", "add_to_cart"),
    ("s2", "q1", "d2", "click"),
    ("s3", "q1", "d1", "impression"),   # weight 0: not an engagement
    ("s3", "q1", "d9", "click"),        # in neither run: censored in both
    ("s3", "q1", None, "search"),       # no doc: not an engagement
    ("s1", "q2", "x3", "purchase"),     # session s1 again, other query: its own session
    ("s4", "q3", "z1", "click"),        # q3 answered by neither run: skipped
])


def test_hand_built_log_default_depth() -> None:
    result = replay(LOG, RUN_A, RUN_B, permutations=200)
    # depth per query = longer ranking: q1 -> 3, q2 -> 3 (B has 3 docs); censored rank = 4
    e = result.engagements.set_index(["session_id", "query_id", "doc_id"])
    assert e.loc[("s2", "q1", "d1"), "weight"] == 3          # click 1 + add_to_cart 2
    assert tuple(e.loc[("s1", "q1", "d3"), ["rank_a", "rank_b"]]) == (3, 1)
    assert tuple(e.loc[("s3", "q1", "d9"), ["rank_a", "rank_b"]]) == (4, 4)
    assert tuple(e.loc[("s1", "q2", "x3"), ["rank_a", "rank_b"]]) == (4, 3)
    assert e.loc[("s1", "q2", "x3"), "censored_a"]
    assert not e.loc[("s1", "q2", "x3"), "censored_b"]

    s = result.sessions.set_index(["session_id", "query_id"])
    # s1/q1: d3 (w 1): MRR_A = 1/3, MRR_B = 1/1 -> delta 2/3, improved
    assert s.loc[("s1", "q1"), "mrr_a"] == pytest.approx(1 / 3)
    assert s.loc[("s1", "q1"), "mrr_b"] == pytest.approx(1.0)
    assert s.loc[("s1", "q1"), "outcome"] == "improved"
    # s2/q1: d1 (w 3) A1 B2, d2 (w 1) A2 B3:
    #   MRR_A = (3/1 + 1/2) / 4 = 7/8; MRR_B = (3/2 + 1/3) / 4 = 11/24; delta = -10/24 = -5/12
    assert s.loc[("s2", "q1"), "mrr_a"] == pytest.approx(7 / 8)
    assert s.loc[("s2", "q1"), "mrr_b"] == pytest.approx(11 / 24)
    assert s.loc[("s2", "q1"), "delta"] == pytest.approx(-5 / 12)
    assert s.loc[("s2", "q1"), "outcome"] == "worsened"
    assert (s.loc[("s2", "q1"), "docs_down"], s.loc[("s2", "q1"), "docs_up"]) == (2, 0)
    # s3/q1: d9 censored at 4 in both: 1/4 vs 1/4 -> unchanged
    assert s.loc[("s3", "q1"), "outcome"] == "unchanged"
    assert s.loc[("s3", "q1"), "mrr_a"] == pytest.approx(1 / 4)
    # s1/q2: x3 (w 3): A censored 4, B 3 -> 1/4 vs 1/3, delta 1/12
    assert s.loc[("s1", "q2"), "delta"] == pytest.approx(1 / 12)

    q = result.per_query.set_index("query_id")
    # q1: deltas 8/12, -5/12, 0 -> mean 1/12; one session each way
    assert q.loc["q1", "delta"] == pytest.approx(1 / 12)
    assert q.loc["q1", "mrr_a"] == pytest.approx((1 / 3 + 7 / 8 + 1 / 4) / 3)
    assert q.loc["q1", "mrr_b"] == pytest.approx((1 + 11 / 24 + 1 / 4) / 3)
    assert tuple(q.loc["q1", ["improved", "worsened", "unchanged"]]) == pytest.approx(
        (1 / 3, 1 / 3, 1 / 3))
    # q1 engagements: s1 d3, s2 d1, s2 d2, s3 d9 -> 4, d9 missed by both: coverage 3/4
    assert q.loc["q1", "engagements"] == 4
    assert q.loc["q1", "coverage_a"] == pytest.approx(3 / 4)
    assert q.loc["q2", "coverage_a"] == 0.0
    assert q.loc["q2", "coverage_b"] == 1.0

    m = result.summary
    # overall = mean over queries: delta (1/12 + 1/12) / 2 = 1/12
    assert m.delta == pytest.approx(1 / 12)
    assert m.improved == pytest.approx((1 / 3 + 1) / 2)
    assert m.worsened == pytest.approx((1 / 3 + 0) / 2)
    assert m.unchanged == pytest.approx((1 / 3 + 0) / 2)
    assert m.coverage_a == pytest.approx((3 / 4 + 0) / 2)
    assert m.coverage_b == pytest.approx((3 / 4 + 1) / 2)

    b = result.basis
    assert (b.sessions, b.queries, b.engagements) == (4, 2, 5)
    assert (b.censored_a, b.censored_b) == (2, 1)        # A: d9, x3; B: d9
    assert (b.skipped_sessions, b.skipped_queries) == (1, 1)
    assert "4 over 2 queries" in str(result)


def test_fixed_depth_censors_both_runs_at_depth_plus_one() -> None:
    result = replay(LOG, RUN_A, RUN_B, depth=1, tests=False)
    # depth 1: A's top is d1 / x1, B's top is d3 / x2; everything else has rank 2
    s = result.sessions.set_index(["session_id", "query_id"])
    # s1/q1: d3 A censored 2, B 1 -> 1/2 vs 1 -> delta 1/2
    assert s.loc[("s1", "q1"), "delta"] == pytest.approx(1 / 2)
    # s2/q1: d1 (w 3) A 1, B censored 2; d2 (w 1) censored 2 in both
    #   MRR_A = (3 + 1/2) / 4 = 7/8, MRR_B = (3/2 + 1/2) / 4 = 1/2, delta -3/8
    assert s.loc[("s2", "q1"), "delta"] == pytest.approx(-3 / 8)
    # s1/q2: x3 censored 2 in both -> unchanged
    assert s.loc[("s1", "q2"), "outcome"] == "unchanged"
    # q1 mean (1/2 - 3/8 + 0) / 3 = 1/24, q2 0 -> overall 1/48
    assert result.summary.delta == pytest.approx(1 / 48)
    # A censors s1 d3, s2 d2, s3 d9, x3; B censors s2 d1, s2 d2, s3 d9, x3
    assert (result.basis.censored_a, result.basis.censored_b) == (4, 4)
    assert (result.engagements["depth"] == 1).all()


def test_weights_and_weight_column() -> None:
    only_purchase = replay(LOG, RUN_A, RUN_B, weights=EngagementWeights.parse("purchase=1"),
                           tests=False)
    assert only_purchase.basis.engagements == 1          # the one purchase, x3 of q2
    assert only_purchase.summary.delta == pytest.approx(1 / 12)
    weighted = LOG.assign(weight=DEFAULT_WEIGHTS.weigh(LOG["action"])).drop(columns="action")
    same = replay(weighted, RUN_A, RUN_B, tests=False)
    assert same.summary.delta == pytest.approx(1 / 12)


def test_engaged_docs_sums_weights_per_session_and_doc() -> None:
    table = engaged_docs(LOG).set_index(["session_id", "query_id", "doc_id"])["weight"]
    assert table.to_dict() == {("s1", "q1", "d3"): 1.0, ("s1", "q2", "x3"): 3.0,
                               ("s2", "q1", "d1"): 3.0, ("s2", "q1", "d2"): 1.0,
                               ("s3", "q1", "d9"): 1.0, ("s4", "q3", "z1"): 1.0}


def test_scores_rank_like_trec_eval() -> None:
    by_score = pd.DataFrame({"query_id": ["q1"] * 3 + ["q2"] * 3,
                             "doc_id": ["d1", "d3", "d2", "x1", "x2", "x3"],
                             "score": [5.0, 9.0, 1.0, 2.0, 3.0, 1.0]})
    # scores descending: q1 d3, d1, d2; q2 x2, x1, x3 — the same rankings as RUN_B
    assert replay(LOG, RUN_A, by_score, tests=False).summary.delta == pytest.approx(1 / 12)


def test_errors() -> None:
    with pytest.raises(ValueError, match="no engagement"):
        replay(events([("s1", "q1", "d1", "impression")]), RUN_A, RUN_B)
    doubled = pd.concat([RUN_B, pd.DataFrame({"query_id": ["q1"], "doc_id": ["d3"],
                                              "rank": [4]})], ignore_index=True)
    with pytest.raises(DuplicateDocError, match="d3"):
        replay(LOG, RUN_A, doubled)
    with pytest.raises(ValueError, match="depth"):
        replay(LOG, RUN_A, RUN_B, depth=0)


def clustered_log(big_sessions: int) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """One query with many sessions that B improves (+1/2 each) and 50 one-session queries
    that B worsens (-1/2 each)."""
    rows = [(f"big{i}", "big", "t", "click") for i in range(big_sessions)]
    rows += [(f"small{i}", f"q{i:02d}", "t", "click") for i in range(50)]
    a = {"big": ["o", "t"], **{f"q{i:02d}": ["t", "o"] for i in range(50)}}
    b = {"big": ["t", "o"], **{f"q{i:02d}": ["o", "t"] for i in range(50)}}
    return events(rows), run(a), run(b)


def test_a_query_with_many_sessions_does_not_outvote_fifty() -> None:
    log, a, b = clustered_log(500)
    result = replay(log, a, b, permutations=2000, seed=7)
    # big: 1/2 - 1/1... B puts t first: MRR 1 vs 1/2 -> +1/2; small: 1/2 - 1 = -1/2
    # mean over queries: (1/2 + 50 * -1/2) / 51 = -24.5 / 51
    assert result.summary.delta == pytest.approx(-24.5 / 51)
    pooled = result.sessions["delta"].mean()             # (500/2 - 50/2) / 550 > 0
    assert pooled == pytest.approx((250 - 25) / 550)
    assert result.summary.ci_high < 0 < pooled
    assert result.summary.improved == pytest.approx(1 / 51)


def test_bootstrap_is_clustered_and_reproducible_by_seed() -> None:
    log, a, b = clustered_log(500)
    first = replay(log, a, b, permutations=2000, seed=3).summary
    again = replay(log, a, b, permutations=2000, seed=3).summary
    assert first == again
    # clustered: a tenfold copy of the big query's sessions changes nothing at all
    more, _, _ = clustered_log(5000)
    assert replay(more, a, b, permutations=2000, seed=3).summary == first


RANKINGS = st.lists(st.permutations(["a", "b", "c", "d", "e"]).map(list), min_size=1,
                    max_size=3)


@st.composite
def logs_and_runs(draw: st.DrawFn) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    n_queries = draw(st.integers(1, 3))
    queries = [f"q{i}" for i in range(n_queries)]
    a = {q: draw(st.permutations(["a", "b", "c", "d", "e"]))[:draw(st.integers(0, 5))]
         for q in queries}
    b = {q: draw(st.permutations(["a", "b", "c", "d", "e", "f"]))[:draw(st.integers(0, 6))]
         for q in queries}
    if not any(a.values()) and not any(b.values()):
        a[queries[0]] = ["a"]
    rows = draw(st.lists(st.tuples(st.sampled_from(["s1", "s2", "s3", "s4"]),
                                   st.sampled_from(queries),
                                   st.sampled_from(["a", "b", "c", "d", "e", "f", "g"]),
                                   st.sampled_from(["click", "add_to_cart", "purchase",
                                                    "impression"])), min_size=1, max_size=25))
    rows.append(("s9", queries[0], "a", "click"))
    return events(rows), run(a), run(b)


@settings(max_examples=60, deadline=None)
@given(logs_and_runs())
def test_swapping_runs_negates_and_identical_runs_change_nothing(
        case: tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]) -> None:
    log, a, b = case
    try:
        forward = replay(log, a, b, tests=False)
    except ValueError:
        return  # every engaged query is answered by neither run
    backward = replay(log, b, a, tests=False)
    f, r = forward.summary, backward.summary
    assert r.delta == pytest.approx(-f.delta, abs=1e-12)
    assert (r.improved, r.worsened, r.unchanged) == pytest.approx(
        (f.worsened, f.improved, f.unchanged))
    assert (r.coverage_a, r.coverage_b) == pytest.approx((f.coverage_b, f.coverage_a))
    assert forward.basis.censored_a == backward.basis.censored_b
    np.testing.assert_allclose(backward.sessions["delta"], -forward.sessions["delta"],
                               atol=1e-12)

    try:
        same = replay(log, a, a, tests=False)
    except ValueError as error:  # run A answers none of the engaged queries
        assert "no session" in str(error)
        return
    assert same.summary.delta == 0
    assert (same.sessions["outcome"] == "unchanged").all()
    assert same.summary.unchanged == 1.0
