"""Which run a vote favours: :func:`metrics.votes.preferred_run`, said once for every reader."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from metrics.errors import MetricsError
from metrics.votes import CHOICES, Choice, preferred_run, preferred_runs

# by hand, from the buttons' words: "Left better", "Right better", "About the same", "Both bad"
BY_HAND = {"left": "bm25", "right": "dense", "tie": None, "both_bad": None}


@pytest.mark.parametrize(("choice", "favoured"), BY_HAND.items())
def test_each_choice_favours_the_run_its_button_names(choice: str, favoured: str | None) -> None:
    assert preferred_run(choice, "bm25", "dense") == favoured
    assert Choice(choice).label.startswith({"bm25": "Left", "dense": "Right"}.get(
        favoured or "", ""))


def test_every_choice_is_covered_by_hand() -> None:
    assert set(BY_HAND) == set(CHOICES)


def test_a_choice_not_in_the_vocabulary_is_refused_in_one_line() -> None:
    with pytest.raises(MetricsError, match=r"^choice must be one of left, right, tie, "
                                           r"both_bad; got 'same'$"):
        preferred_run("same", "bm25", "dense")


_MIRROR = {"left": "right", "right": "left", "tie": "tie", "both_bad": "both_bad"}


@given(st.sampled_from(CHOICES), st.text(min_size=1), st.text(min_size=1))
def test_the_favoured_run_does_not_depend_on_the_sides(choice: str, left: str,
                                                       right: str) -> None:
    """The same judgement with the sides swapped (and the choice mirrored) favours the same
    run; a run is favoured only by *left* or *right*."""
    assert preferred_run(choice, left, right) == preferred_run(_MIRROR[choice], right, left)
    assert (preferred_run(choice, left, right) is None) == (choice in {"tie", "both_bad"})


def test_columns_row_by_row_keep_the_index() -> None:
    got = preferred_runs(["left", "right", "tie"], ["a", "a", "b"], ["b", "b", "a"],
                         pd.Index([7, 8, 9]))
    assert got.to_dict() == {7: "a", 8: "b", 9: None}
    assert preferred_runs([], [], []).empty
