"""The worked examples of "Golden search datasets are anything but", with the expected values
derived from the definitions (the essay's own tables use a 1/rank discount, mix gain
conventions and contain arithmetic slips; each is noted where it matters).
"""

from __future__ import annotations

from math import log2

import pytest

from metrics import (
    ESCI,
    WANDS,
    DuplicateDocError,
    best_ndcg_m,
    graded_precision,
    ndcg,
    ndcg_bounds,
    ndcg_f,
    ndcg_m,
)

# "!awnmower tires without rims": seven 3s, three 2s, one 1, five 0s in ESCI.
AWNMOWER = {
    "B08L3B9B9P": 3, "B07C1WZG12": 3, "B077QMNXTS": 3, "B06XX6BM2R": 3, "B0089RNSNM": 3,
    "B005O5Y3QI": 3, "B0018TWDOI": 3, "B07P4CF3DP": 2, "B01DBGLLUC": 2, "B0089RA0HY": 2,
    "B01M3SJ699": 1, "B075SCHMPY": 0, "B082K7V2GZ": 0, "B00N16T5D8": 0, "B00004RA3F": 0,
    "B01H3KC5U2": 0,
}
MEH = ["B01DBGLLUC", "B0089RA0HY", "B0089RNSNM", "B075SCHMPY", "B082K7V2GZ"]  # grades 2,2,3,0,0


def dcg_of(grades: list[float], discount=lambda r: 1 / log2(r + 1)) -> float:
    return sum(g * discount(r) for r, g in enumerate(grades, start=1))


def test_meh_ranking_ndcg_at_5_log2() -> None:
    expected = dcg_of([2, 2, 3, 0, 0]) / dcg_of([3, 3, 3, 3, 3])
    assert ndcg(MEH, AWNMOWER, 5) == pytest.approx(expected, abs=1e-12)
    assert expected == pytest.approx(0.5383, abs=1e-4)


def test_meh_ranking_ndcg_at_5_reciprocal_corrects_the_essays_ideal() -> None:
    # The essay's ideal row says 3/4 = 0.25 and sums to 6.35; 3/4 is 0.75, so IDCG = 6.85.
    reciprocal = lambda r: 1 / r  # noqa: E731
    assert dcg_of([3] * 5, reciprocal) == pytest.approx(6.85)
    got = ndcg(MEH, AWNMOWER, 5, discount="reciprocal")
    assert got == pytest.approx(4.0 / 6.85, abs=1e-12)  # not the essay's 0.6299


def test_meh_ranking_graded_precision_matches_the_essay() -> None:
    assert graded_precision(MEH, AWNMOWER, 5, ESCI) == pytest.approx(7 / 15)


STAR_WARS_RUG = {doc: 1 for doc in ("5204", "9137", "9138", "9140", "9150", "12098", "22768")}


def test_star_wars_rug_best_ndcg_m_depends_on_the_gain() -> None:
    # Linear gain: DCG(1,1,1,1,1) / DCG(2,2,2,2,2) = 1/2.  The essay's "about 0.33" is the
    # exponential gain: (2^1 - 1) / (2^2 - 1) = 1/3.
    assert best_ndcg_m(STAR_WARS_RUG, 5, WANDS) == pytest.approx(0.5)
    assert best_ndcg_m(STAR_WARS_RUG, 5, WANDS, gain="exponential") == pytest.approx(1 / 3)


def test_star_wars_rug_classic_ndcg_is_one_while_ndcg_m_is_not() -> None:
    ranking = list(STAR_WARS_RUG)[:5]
    assert ndcg(ranking, STAR_WARS_RUG, 5) == pytest.approx(1.0)
    assert ndcg_m(ranking, STAR_WARS_RUG, 5, max_grade=WANDS) == pytest.approx(0.5)


def test_missing_label_at_rank_3_bounds() -> None:
    ranking = ["B01DBGLLUC", "B0089RA0HY", "B087BRYT1Z", "B075SCHMPY", "B082K7V2GZ"]
    ideal = dcg_of([3, 3, 3, 3, 3])  # seven 3s already labelled: a new label cannot change it
    low = dcg_of([2, 2, 0, 0, 0]) / ideal
    high = dcg_of([2, 2, 3, 0, 0]) / ideal
    assert ndcg(ranking, AWNMOWER, 5) == pytest.approx(low)
    bounds = ndcg_bounds(ranking, AWNMOWER, 5, ESCI)
    assert (bounds.lower, bounds.upper) == pytest.approx((low, high))
    assert bounds.unlabelled == 1


# The NDCG-f example: ranks 1, 2, 3, 10, 11, 20, 21, 22 shown; the rest unlabelled fillers.
def _filtered_example() -> list[str]:
    ranking = [f"filler{r}" for r in range(1, 23)]
    shown = {1: "B07P4CF3DP", 2: "B012345678", 3: "B077QMNXTS", 10: "B005O5Y3QI",
             11: "B08L3B9B9P", 20: "B07P4CF3DP", 21: "B012345611", 22: "B01M3SJ699"}
    for rank, doc in shown.items():
        ranking[rank - 1] = doc
    return ranking


def test_the_essays_filtered_example_repeats_a_doc_and_is_rejected() -> None:
    with pytest.raises(DuplicateDocError, match=r"B07P4CF3DP.*ranks 1 and 20"):
        ndcg_f(_filtered_example(), AWNMOWER, 10)


def test_ndcg_f_scores_the_condensed_list() -> None:
    ranking = _filtered_example()
    ranking[19] = "B0089RA0HY"  # the essay's second B07P4CF3DP made a distinct 2
    condensed = [2, 3, 3, 3, 2, 1]  # its filtered table, in order
    expected = dcg_of(condensed) / dcg_of([3] * 7 + [2] * 3)
    assert ndcg_f(ranking, AWNMOWER, 10) == pytest.approx(expected, abs=1e-12)
    assert ndcg_f(ranking, AWNMOWER, 10) > ndcg(ranking, AWNMOWER, 10)
