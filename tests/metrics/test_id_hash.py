"""The id hash (metrics.id_hash) depends on an id's bytes alone: the same id hashes the same
in any storage (Python strings, Arrow, chunked, sliced, dictionary-coded), whatever its
neighbours, and distinct ids of a sample do not collide."""

from __future__ import annotations

import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import id_hash
from metrics.id_hash import text_hashes

ids = st.lists(st.text(min_size=0, max_size=40), min_size=1, max_size=60)


def _storages(values: list[str], cut: int) -> dict[str, pd.Series]:
    chunked = pa.chunked_array([pa.array(values[:cut], pa.string()),
                                pa.array(values[cut:], pa.string())], type=pa.string())
    return {
        "object": pd.Series(values, dtype=object),
        "python strings": pd.Series(values, dtype="string[python]"),
        "arrow": pd.Series(values, dtype="string[pyarrow]"),
        "arrow, two chunks": pd.Series(pd.arrays.ArrowExtensionArray(chunked)),
        "large_string": pd.Series(pd.arrays.ArrowExtensionArray(
            pa.chunked_array([pa.array(values, pa.large_string())]))),
        "string_view": pd.Series(pd.arrays.ArrowExtensionArray(
            pa.chunked_array([pa.array(values, pa.string_view())]))),
        "categorical": pd.Series(values, dtype="category"),
    }


@settings(max_examples=150, deadline=None)
@given(values=ids, cut=st.integers(0, 60), stride=st.sampled_from([1, 3, 64, 1 << 20]))
def test_an_id_hashes_the_same_in_any_storage_and_place(values: list[str], cut: int,
                                                         stride: int) -> None:
    cut = min(cut, len(values))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(id_hash, "_STRIDE_BYTES", stride)
        hashed = {name: text_hashes(series).tolist()
                  for name, series in _storages(values, cut).items()}
        # an id on its own, and the ids after a slice, hash as in the whole column
        alone = [text_hashes(pd.Series([value], dtype="string[pyarrow]"))[0] for value in values]
        sliced = text_hashes(pd.Series(values, dtype="string[pyarrow]").iloc[cut:]).tolist()
    reference = hashed["object"]
    for name, got in hashed.items():
        assert got == reference, name
    assert alone == reference
    assert sliced == reference[cut:]
    by_id = dict(zip(values, reference, strict=True))
    assert len(set(by_id.values())) == len(by_id)  # distinct ids, distinct hashes


def test_ids_that_differ_by_a_nul_byte_or_by_length_hash_apart() -> None:
    values = ["", "\x00", "\x00\x00", "a", "a\x00", "\x00a", "ab", "ba", "é", "e\u0301"]
    assert len(set(text_hashes(pd.Series(values, dtype=object)).tolist())) == len(values)
