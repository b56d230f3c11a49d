"""A 64-bit hash of text ids computed over their UTF-8 bytes with numpy, without making a
Python string of each id.

For an id of bytes ``b_0 … b_{n-1}`` the hash is a polynomial over the bytes, modulo 2**64,

    P(id) = sum_i (b_i + 1) * B**i,       B odd (so B has an inverse modulo 2**64)

then combined with the length and passed through SplitMix64's finaliser (so that the bits
are spread before ids are keyed on them):

    hash(id) = finalise(P(id) + n * L + C)

All of a column's bytes are laid end to end; with ``S`` the running sum of ``(b_t + 1) * B**t``
over that whole buffer, an id spanning ``[s, e)`` has ``P = (S[e] - S[s]) * B**-s``, so one
pass of vectorised multiply-and-add hashes every id, whatever their lengths.  The value
depends on the id's bytes only, never on where it sits, so equal ids hash equal in any
column, chunk or slice; ids of any storage (Arrow, Python strings) are read as Arrow arrays
first (pandas' own conversion).

This is not a cryptographic hash, and ids built to collide can be found.  Every use in
:mod:`metrics` treats an equal hash as a *candidate* and confirms it on the ids themselves
(see :class:`metrics.layout.QrelsIndex` and :func:`metrics.rbo.rbo_matrix`), so a collision
costs time, never a wrong figure.  Missing ids are refused before anything is hashed
(:mod:`metrics.layout`); a text that is not valid Unicode (a lone surrogate) is refused with a
:class:`~metrics.errors.LayoutError`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from metrics.errors import LayoutError

_B = 0x100000001B3  # FNV's 64-bit prime: odd
_B_INVERSE = pow(_B, -1, 1 << 64)
_L = np.uint64(0x9E3779B97F4A7C15)
_C = np.uint64(0xD6E8FEB86659FD93)
_STRIDE_BYTES = 1 << 20
"""Bytes hashed at once (bounds the temporaries: about 40 bytes for each byte of id)."""

_tables = (np.ones(1, dtype=np.uint64), np.ones(1, dtype=np.uint64))
"""``B**t`` and ``B**-t`` modulo 2**64 for t < their length, replaced whole (one assignment:
a thread reading them while another grows them sees the old pair or the new one)."""


def _power_tables(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``B**t`` and ``B**-t`` modulo 2**64 for t < n (grown on demand, kept)."""
    global _tables
    tables = _tables
    if len(tables[0]) < n:
        size = max(n, 2 * len(tables[0]))
        grown = []
        for base in (_B, _B_INVERSE):
            powers = np.full(size, base, dtype=np.uint64)
            powers[0] = 1
            with np.errstate(over="ignore"):
                np.cumprod(powers, out=powers)
            grown.append(powers)
        tables = _tables = (grown[0], grown[1])
    return tables[0][:n], tables[1][:n]


def _finalise(z: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser (a bijection on 64-bit values)."""
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def _hash_span(data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Hashes of the ids at ``offsets`` (n + 1 byte offsets into ``data``, from 0)."""
    powers, inverse = _power_tables(int(offsets[-1]) + 1)
    with np.errstate(over="ignore"):
        running = np.zeros(len(data) + 1, dtype=np.uint64)
        np.cumsum((data.astype(np.uint64) + np.uint64(1)) * powers[:len(data)], out=running[1:])
        starts, ends = offsets[:-1], offsets[1:]
        spans = (running[ends] - running[starts]) * inverse[starts]
        return _finalise(spans + (ends - starts).astype(np.uint64) * _L + _C)


def _hash_chunk(chunk: object) -> np.ndarray:
    """Hashes of one Arrow string array (any offset width, sliced or not)."""
    if str(chunk.type) not in ("large_string", "large_utf8"):
        chunk = chunk.cast("large_string")
    if len(chunk) == 0:
        return np.empty(0, dtype=np.uint64)
    _, offset_buffer, data_buffer = chunk.buffers()[:3]
    offsets = np.frombuffer(offset_buffer, dtype=np.int64)[chunk.offset: chunk.offset
                                                           + len(chunk) + 1]
    data = (np.frombuffer(data_buffer, dtype=np.uint8) if data_buffer is not None
            else np.empty(0, dtype=np.uint8))
    out = np.empty(len(chunk), dtype=np.uint64)
    low = 0
    while low < len(chunk):
        # as many ids as fit in the stride (at least one)
        high = int(np.searchsorted(offsets, offsets[low] + _STRIDE_BYTES, side="right")) - 1
        high = min(max(high, low + 1), len(chunk))
        first = offsets[low]
        out[low:high] = _hash_span(data[first: offsets[high]], offsets[low: high + 1] - first)
        low = high
    return out


def text_hashes(values: pd.Series) -> np.ndarray:
    """The uint64 hash of each id of a text column (see the module's formula)."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes
        return text_hashes(pd.Series([*values.cat.categories, ""]))[codes]  # -1: missing
    array = values.array
    if not hasattr(array, "__arrow_array__") or getattr(values.dtype, "storage", None) == "python":
        try:
            array = pd.array(values.to_numpy(dtype=object), dtype="string[pyarrow]")
        except UnicodeEncodeError as error:
            bad = error.object if isinstance(error.object, str) else str(error.object)
            raise LayoutError(f"id {bad!r} is not valid Unicode text (a lone surrogate at "
                              f"character {error.start + 1})") from None
    arrow = array.__arrow_array__()
    chunks = getattr(arrow, "chunks", [arrow])
    if not chunks:
        return np.empty(0, dtype=np.uint64)
    return np.concatenate([_hash_chunk(chunk) for chunk in chunks])
