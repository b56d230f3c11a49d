"""Whether a value repeats, on 64-bit hashes held by numpy: the duplicate (query, doc) checks
of a bulk load (:mod:`judge_app.store.run_load`, :mod:`judge_app.store.qrels_load`).
Equal hashes only send a file to the
precise reader, which compares the ids themselves, so a collision costs time, never a figure.
numpy sorts without the GIL, so parts are sorted on worker threads.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np


def block_starts(ranks: np.ndarray) -> np.ndarray | None:
    """Where each block of ranks 1, 2, … n starts (None when the ranks, in the order read,
    are not such blocks)."""
    first = ranks == 1
    if not first[0] or not np.all(first[1:] | (ranks[1:] == ranks[:-1] + 1)):
        return None
    return np.flatnonzero(first)


LENGTHS = 64
"""Blocks of at most this many distinct lengths are sorted as matrices, one per length."""


BATCH = 1 << 20
"""Hashes sorted at once (a matrix of whole blocks, at least one)."""


def repeated_in_blocks(pairs: np.ndarray, starts: np.ndarray) -> bool:
    """Whether a value occurs twice within one block of ``pairs`` (blocks start at
    ``starts``; ``pairs`` is sorted in place).  Blocks of one length are sorted together as
    the rows of a matrix (a sort per row: short, cache-sized sorts); a run of too many
    block lengths is sorted whole.  When every block has one length they tile ``pairs``, and
    the matrices are views of it (no copy)."""
    lengths = np.diff(np.append(starts, len(pairs)))
    distinct = np.unique(lengths)
    if len(distinct) > LENGTHS:
        return rows_repeat(pairs.reshape(1, -1))
    for length in distinct[distinct > 1].tolist():
        firsts = starts[lengths == length]
        step = max(1, BATCH // length)
        for low in range(0, len(firsts), step):
            chunk = firsts[low: low + step]
            rows = (pairs[chunk[0]: chunk[-1] + length].reshape(-1, length)  # a view
                    if len(distinct) == 1 else pairs[chunk[:, None] + np.arange(length)])
            if rows_repeat(rows):
                return True
    return False


def rows_repeat(rows: np.ndarray) -> bool:
    """Whether some row of the matrix holds a value twice (the rows are sorted in place)."""
    rows.sort(axis=1)
    return bool((rows[:, 1:] == rows[:, :-1]).any())


PART_BITS = 2
"""The hashes are sorted in ``2 ** PART_BITS`` parts (by their top bits), on worker threads."""


def any_repeated(values: np.ndarray, pool: ThreadPoolExecutor) -> bool:
    """Whether a value occurs twice in ``values`` (which may be sorted in place).  Equal
    values share their top bits, so the values are split by the top :data:`PART_BITS` into
    parts, each sorted on a worker thread and looked at for two equal neighbours — cheaper
    than a distinct count (a hash table over every row), and numpy sorts without the GIL."""
    if not PART_BITS:
        return rows_repeat(values.reshape(1, -1))
    tops = (values >> np.uint64(64 - PART_BITS)).astype(np.uint8)  # a byte a value

    def repeats(part: int) -> bool:
        return rows_repeat(values[tops == part].reshape(1, -1))

    return any(pool.map(repeats, range(1 << PART_BITS)))


def pair_hashes(cur: Any, rows: str, params: dict,
                 keys: tuple[str, ...]) -> list[np.ndarray]:
    """Per key column, the 64-bit hashes of ``(query_id, key)`` of ``rows`` (SQL: a table
    and its WHERE clause, from this module)."""
    columns = ", ".join(f"hash(query_id, {key}) AS {key}" for key in keys)
    fetched = cur.execute(f"SELECT {columns} FROM {rows}", params).fetchnumpy()
    return [np.asarray(fetched[key]) for key in keys]
