"""metrics.disputes: which items are disputed and in what order, by the entropy of the grades
given or by the Dawid-Skene posterior entropy."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from metrics.consensus import dawid_skene
from metrics.disputes import disputes, entropy_bits
from metrics.errors import ArgumentError


def labels(rows: dict[str, list[int]]) -> pd.DataFrame:
    return pd.DataFrame([(q, "d", f"j{i}", g) for q, grades in rows.items()
                         for i, g in enumerate(grades)],
                        columns=["query_id", "doc_id", "judge", "grade"])


def test_grade_entropy_orders_the_disputed_items_and_leaves_agreement_out() -> None:
    found = disputes(labels({"agree": [2, 2, 2], "two": [0, 3], "three": [0, 1, 2],
                             "lean": [1, 1, 2], "alone": [3]}))
    assert found["query_id"].tolist() == ["three", "two", "lean"]
    by = found.set_index("query_id")
    assert by.loc["two", "grade_entropy"] == pytest.approx(1.0)
    assert by.loc["three", "grade_entropy"] == pytest.approx(math.log2(3))
    p = np.array([2 / 3, 1 / 3])
    assert by.loc["lean", "grade_entropy"] == pytest.approx(-(p * np.log2(p)).sum())
    assert by.loc["two", "spread"] == 3 and by.loc["three", "judges"] == 3
    assert (found["dispute"] == found["grade_entropy"]).all()


def test_dawid_skene_disputes_are_the_posterior_entropy() -> None:
    rows = labels({"a": [0, 3, 3], "b": [1, 2, 1], "c": [2, 2, 2], "e": [0, 0, 3]})
    found = disputes(rows, method="dawid-skene", grades=[0, 1, 2, 3])
    posterior = dawid_skene(rows, grades=[0, 1, 2, 3]).posterior
    expected = entropy_bits(posterior.loc[[("a", "d"), ("b", "d"), ("e", "d")]].to_numpy())
    got = found.set_index("query_id").loc[["a", "b", "e"], "dispute"].to_numpy()
    assert got == pytest.approx(expected)
    assert "c" not in set(found["query_id"])
    assert found["dispute"].is_monotonic_decreasing


def test_no_labels_and_a_wrong_method() -> None:
    assert disputes(labels({})).columns.tolist() == ["query_id", "doc_id", "judges", "spread",
                                                      "grade_entropy", "dispute"]
    with pytest.raises(ArgumentError, match="one of grade-entropy, dawid-skene"):
        disputes(labels({"a": [0, 1]}), method="spread")
