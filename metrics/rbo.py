"""Rank-biased overlap (Webber, Moffat & Zobel 2010, "A similarity measure for indefinite
rankings", ACM TOIS 28(4)): how much two rankings differ at all, top-weighted.

With persistence p in (0, 1), agreement A_d = X_d / d where X_d = |S_{:d} & L_{:d}|::

    RBO = (1 - p) * sum_{d>=1} p^(d-1) * A_d

Only prefixes are seen, so three numbers are reported.  S is the shorter list (length s), L the
longer (length l); for s < d <= l, X_d counts S's seen items within L_{:d}:

* ``min`` (eq. 11, uneven form): no overlap beyond what is seen::

      (1-p)/p * ( sum_{d=1..l} (X_d - X_l) p^d / d  -  X_l ln(1 - p) )

* ``residual``: max - min, where max lets every unseen item match (for s < d <= l,
  X_d + d - s; beyond l, min(d, 2d - s - l + X_l), reaching d at f = l + s - X_l).
* ``ext`` (eq. 32): S's agreement at s is extrapolated into its unseen part::

      (1-p)/p * ( sum_{d=1..l} X_d p^d / d + sum_{d=s+1..l} X_s (d - s) / (s d) p^d )
      + ( (X_l - X_s) / l + X_s / s ) p^l

Properties: min <= ext <= min + residual; all in [0, 1]; symmetric; ``ext(a, a) == 1``; disjoint
lists give min = ext = 0.  Edge cases, by convention: two empty rankings give ext 1.0 (they
agree), min 0.0, residual 1.0; one empty ranking gives ext 0.0, min 0.0, residual 1.0.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np

from metrics.errors import ArgumentError
from metrics.ranking import check_unique


@dataclass(frozen=True)
class RBO:
    """Rank-biased overlap of two prefixes: lower bound, residual and point estimate."""

    min: float
    residual: float
    ext: float

    @property
    def max(self) -> float:
        return self.min + self.residual


def check_persistence(p: float) -> None:
    """Raise :class:`ArgumentError` unless 0 < p < 1."""
    if isinstance(p, bool) or not (isinstance(p, float | int) and 0.0 < float(p) < 1.0):
        raise ArgumentError(f"RBO persistence p must be strictly between 0 and 1; got {p!r}")


def rbo_from_overlaps(overlap: np.ndarray, short: np.ndarray, long: np.ndarray, p: float
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RBO (min, residual, ext) for each row of seen overlaps.

    ``overlap[q, d-1]`` is X_d for d = 1..long[q] (values past ``long[q]`` are ignored);
    ``short`` and ``long`` are the two prefix lengths per row, short <= long.
    """
    overlap = np.asarray(overlap, dtype=float)
    s = np.asarray(short, dtype=np.int64)
    ell = np.asarray(long, dtype=np.int64)
    rows, width = overlap.shape
    depth = np.arange(1, width + 1)
    seen = depth[None, :] <= ell[:, None]
    x = np.where(seen, overlap, 0.0)
    idx = np.arange(rows)
    x_l = np.where(ell > 0, x[idx, np.maximum(ell - 1, 0)], 0.0)
    x_s = np.where(s > 0, x[idx, np.maximum(s - 1, 0)], 0.0)
    power = p ** depth
    w = power / depth
    scale = (1.0 - p) / p

    seen_sum = (x * w).sum(axis=1)
    harmonic_l = (np.where(seen, w, 0.0)).sum(axis=1)
    rbo_min = scale * (seen_sum + x_l * (-np.log1p(-p) - harmonic_l))

    between = (depth[None, :] > s[:, None]) & seen
    with np.errstate(divide="ignore", invalid="ignore"):
        rate = np.where(s > 0, x_s / np.maximum(s, 1), 0.0)
        extra = np.where(between, rate[:, None] * (depth[None, :] - s[:, None]) * w, 0.0)
        tail_rate = np.where(ell > 0, (x_l - x_s) / np.maximum(ell, 1) + rate, 0.0)
    rbo_ext = scale * (seen_sum + extra.sum(axis=1)) + tail_rate * p ** ell

    max_seen = np.where(between, (depth[None, :] - s[:, None]) * w, 0.0).sum(axis=1)
    f = ell + s - x_l.astype(np.int64)
    far = np.arange(1, 2 * width + 2)
    beyond = (far[None, :] > ell[:, None]) & (far[None, :] <= f[:, None])
    grow = (2 * far[None, :] - ell[:, None] - s[:, None] + x_l[:, None]) / far * p ** far
    max_tail = np.where(beyond, grow, 0.0).sum(axis=1) + p ** (f + 1) / (1.0 - p)
    rbo_max = scale * (seen_sum + max_seen + max_tail)

    both_empty = ell == 0
    rbo_ext = np.where(both_empty, 1.0, rbo_ext)
    residual = np.where(both_empty, 1.0, np.clip(rbo_max - rbo_min, 0.0, 1.0))
    return np.clip(rbo_min, 0.0, 1.0), residual, np.clip(rbo_ext, 0.0, 1.0)


def seen_overlaps(shorter: Sequence[Hashable], longer: Sequence[Hashable]) -> np.ndarray:
    """X_d = |shorter_{:min(d,s)} & longer_{:d}| for d = 1..len(longer)."""
    position = {doc: i for i, doc in enumerate(longer, start=1)}
    counts = np.zeros(len(longer) + 2, dtype=np.int64)
    for i, doc in enumerate(shorter, start=1):
        j = position.get(doc)
        if j is not None:
            counts[max(i, j)] += 1
    return np.cumsum(counts)[1: len(longer) + 1]


def rbo(a: Sequence[Hashable], b: Sequence[Hashable], p: float = 0.9,
        depth: int | None = None) -> RBO:
    """Rank-biased overlap of rankings ``a`` and ``b`` (rank 1 first), optionally cut at ``depth``.

    Lists of different lengths use the uneven-length forms (eq. 30-32 of the paper): the shorter
    list's agreement is extrapolated for ``ext``.  Duplicate ids raise ``DuplicateDocError``.
    """
    check_persistence(p)
    if depth is not None:
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ArgumentError(f"depth must be a positive integer; got {depth!r}")
        a, b = list(a)[:depth], list(b)[:depth]
    check_unique(a)
    check_unique(b)
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    x = seen_overlaps(shorter, longer).reshape(1, -1)
    if x.shape[1] == 0:
        x = np.zeros((1, 1))
    lo, res, ext = rbo_from_overlaps(x, np.array([len(shorter)]), np.array([len(longer)]), p)
    return RBO(float(lo[0]), float(res[0]), float(ext[0]))


def rbo_matrix(hashes_a: np.ndarray, ids_a: np.ndarray, length_a: np.ndarray,
               hashes_b: np.ndarray, ids_b: np.ndarray, length_b: np.ndarray, p: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """RBO (min, residual, ext) per row of two (queries x depth) matrices of top docs.

    ``hashes_*`` identify docs (equal hash = candidate match), ``ids_*`` confirm each match
    (so a hash collision never counts as overlap); ``length_*`` are the prefix lengths, at most
    the matrix width.
    """
    check_persistence(p)
    rows, depth = hashes_a.shape
    la, lb = np.minimum(length_a, depth), np.minimum(length_b, depth)
    swap = la > lb
    s_hash = np.where(swap[:, None], hashes_b, hashes_a)
    l_hash = np.where(swap[:, None], hashes_a, hashes_b)
    s_ids = np.where(swap[:, None], ids_b, ids_a)
    l_ids = np.where(swap[:, None], ids_a, ids_b)
    short, long = np.minimum(la, lb), np.maximum(la, lb)
    position = np.arange(depth)
    entry_counts = np.zeros((rows, depth + 2), dtype=np.int64)
    chunk = max(1, 4_000_000 // max(1, depth * depth))
    for start in range(0, rows, chunk):
        stop = min(rows, start + chunk)
        sh, lh = s_hash[start:stop], l_hash[start:stop]
        valid_s = position[None, :] < short[start:stop, None]
        valid_l = position[None, :] < long[start:stop, None]
        match = (sh[:, :, None] == lh[:, None, :]) & valid_s[:, :, None] & valid_l[:, None, :]
        q, i, j = np.nonzero(match)
        same = s_ids[start + q, i] == l_ids[start + q, j]
        q, i, j = q[same], i[same], j[same]
        np.add.at(entry_counts, (start + q, np.maximum(i, j) + 1), 1)
    overlap = np.cumsum(entry_counts, axis=1)[:, 1: depth + 1]
    return rbo_from_overlaps(overlap, short, long, p)
