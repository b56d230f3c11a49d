"""``--normalize-ids``: the rules written out by hand, and the store's SQL form equal to the
Python one on any text (the TREC loaders use the SQL, the table readers the Python)."""

from __future__ import annotations

import duckdb
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.errors import InputError
from judge_app.io.ids import (
    ID_NORMALIZATIONS,
    id_normalization,
    normalize_id,
    normalize_ids,
    normalized,
)


@pytest.mark.parametrize(("how", "raw", "expected"), [
    ("strip-zeros", "0012", "12"), ("strip-zeros", "000", "0"), ("strip-zeros", "d0012", "d0012"),
    ("strip-zeros", "12", "12"), ("strip-zeros", " 012", " 012"),
    ("lower", "Doc-AB", "doc-ab"), ("lower", "\u0130stanbul", "istanbul"),
    ("strip", " d4\t", "d4"), ("strip", "a b", "a b"), ("strip", "\u00a0x", "\u00a0x"),
])
def test_each_rule_by_hand(how: str, raw: str, expected: str) -> None:
    assert normalize_id(raw, how) == expected


def test_the_vocabulary_and_a_bad_name() -> None:
    assert ID_NORMALIZATIONS == ("strip-zeros", "lower", "strip")
    assert id_normalization(None) is None
    with pytest.raises(InputError, match="--normalize-ids: 'upper' is not one of"):
        id_normalization("upper")


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=20))
def test_the_sql_rules_equal_the_python_ones(ids: list[str]) -> None:
    con = duckdb.connect()
    con.register("t", pd.DataFrame({"query_id": ids, "doc_id": ids}))
    for how in ID_NORMALIZATIONS:
        got = [row[0] for row in con.execute(
            f"SELECT {normalized('doc_id', how)} FROM t").fetchall()]
        assert got == list(normalize_ids(pd.Series(ids), how)), how
        again = [normalize_id(value, how) for value in got]
        assert again == got, how  # each rule is idempotent
