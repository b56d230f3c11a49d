"""The id hash (metrics.id_hash) depends on an id's bytes alone: the same id hashes the same
in any storage (Python strings, Arrow, chunked, sliced, dictionary-coded), whatever its
neighbours, and distinct ids of a sample do not collide."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics import id_hash
from metrics.errors import DuplicateDocError, LayoutError
from metrics.evaluate import evaluate
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


def _colliding_ids() -> tuple[str, str]:
    """Two printable ids of 253 bytes whose polynomial hashes are equal for ANY odd base:
    the coefficients of prod_{j=1..6} (1 - x**(2**j))**2 (all in [-64, 64]) split into the
    positive part and the negative part, each written as bytes 48 + |c|."""
    coefficients = np.array([1], dtype=object)
    for j in range(1, 7):
        for _ in range(2):
            factor = np.zeros(2**j + 1, dtype=object)
            factor[0], factor[-1] = 1, -1
            coefficients = np.convolve(coefficients, factor)
    a = "".join(chr(48 + max(int(c), 0)) for c in coefficients)
    b = "".join(chr(48 - min(int(c), 0)) for c in coefficients)
    return a, b


def test_colliding_ids_never_change_a_figure() -> None:
    """Ids built to collide: the hashes are equal, yet a repeat is still found exactly
    (three rows on one hash, the repeat between the first and the third), a label is never
    given to the other id, and repeated qrels are a one-line LayoutError."""
    a, b = _colliding_ids()
    assert a != b
    assert text_hashes(pd.Series([a])).tolist() == text_hashes(pd.Series([b])).tolist()
    run = pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": [a, b, a], "rank": [1, 2, 3],
                        "score": [3.0, 2.0, 1.0]})
    qrels = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": [a, "z"], "grade": [2, 1]})
    with pytest.raises(DuplicateDocError):
        evaluate(run, qrels, "ndcg@10")
    with pytest.raises(LayoutError, match=r"qrels rows 1 and 3 both judge"):
        evaluate(run.iloc[:1], pd.DataFrame({"query_id": ["q1"] * 3, "doc_id": [a, b, a],
                                             "grade": [2, 0, 1]}), "ndcg@10")
    # b is unlabelled: at rank 1 it gains nothing, a at rank 2 is discounted by log2(3)
    swapped = pd.DataFrame({"query_id": ["q1", "q1"], "doc_id": [b, a], "rank": [1, 2],
                            "score": [2.0, 1.0]})
    labelled = pd.DataFrame({"query_id": ["q1"], "doc_id": [a], "grade": [2]})
    got = evaluate(swapped, labelled, "ndcg@10").per_query["ndcg@10"].iloc[0]
    assert got == pytest.approx(1 / np.log2(3))


def test_a_lone_surrogate_is_a_one_line_error() -> None:
    with pytest.raises(LayoutError, match="not valid Unicode"):
        text_hashes(pd.Series(["fine", "bad\udcff"], dtype=object))
