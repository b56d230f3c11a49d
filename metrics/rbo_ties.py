"""Rank-biased overlap when rankings carry ties (Corsi & Urbano, SIGIR 2024, "The Treatment of
Ties in Rank-Biased Overlap").

A ranking with ties is a sequence whose elements are doc ids or groups of tied doc ids (a
``set``, ``frozenset`` or ``list``); :func:`ranking_with_ties` builds one from scores.  A group
occupying positions t..b contributes to the prefix at depth d as follows:

* ``"w"`` (ties mean equality, e.g. a sports table): the whole group is in from depth t;
  agreement A_d = 2 X_d / (|S_:d| + |L_:d|), the prefixes counted with their whole groups.
* ``"a"`` (ties mean "order unknown"): each item is in with probability (d - t + 1) / (b - t + 1)
  for t <= d < b, and 1 from b on; X_d is the expected overlap and A_d = X_d / d, so RBO^a is
  the average RBO over every way of breaking the ties.
* ``"b"``: the "a" contributions, with A_d = X_d / sqrt(sum c_S^2 * sum c_L^2), which corrects
  for the information lost to ties as Kendall's tau-b does.

X_d = sum over items of c_S(d) * c_L(d).  Past the shorter ranking's end (s < d <= l) the
shorter one counts as d items; ``min`` adds nothing unseen, ``max`` lets the shorter ranking's
unseen items match the longer one's unmatched items in order, ``ext`` extrapolates A_s at the
rate the longer ranking's unmatched items have appeared.  Beyond l, the untied tails apply
(see :mod:`metrics.rbo`).  Without ties every variant equals :func:`metrics.rbo.rbo`.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Literal

import numpy as np

from metrics.errors import ArgumentError, DuplicateDocError
from metrics.rbo import RBO, check_persistence, rbo

TieVariant = Literal["w", "a", "b"]
TIE_VARIANTS: tuple[str, ...] = ("w", "a", "b")
_GROUP_TYPES = (set, frozenset, list)


def ranking_with_ties(scores: Mapping[Hashable, float]) -> list[Hashable | set]:
    """Docs ordered by score descending, docs with equal scores grouped in a set."""
    out: list[Hashable | set] = []
    last = None
    for doc, score in sorted(scores.items(), key=lambda pair: -pair[1]):
        if out and score == last:
            previous = out[-1]
            out[-1] = (previous | {doc}) if isinstance(previous, set) else {previous, doc}
        else:
            out.append(doc)
        last = score
    return out


def _flatten(ranking: Sequence) -> tuple[list[Hashable], np.ndarray, np.ndarray]:
    """Items, and each item's top and bottom positions (1-based) in the ranking."""
    items: list[Hashable] = []
    tops: list[int] = []
    bottoms: list[int] = []
    seen: set[Hashable] = set()
    for element in ranking:
        group = list(element) if isinstance(element, _GROUP_TYPES) else [element]
        top = len(items) + 1
        for item in group:
            if item in seen:
                first = next(i for i, seen_item in enumerate(items, start=1) if seen_item == item)
                raise DuplicateDocError(item, first, len(items) + 1)
            seen.add(item)
            items.append(item)
        tops += [top] * len(group)
        bottoms += [len(items)] * len(group)
    return items, np.array(tops, dtype=int), np.array(bottoms, dtype=int)


def _contributions(tops: np.ndarray, bottoms: np.ndarray, width: int, variant: str
                   ) -> np.ndarray:
    """c[i, d-1]: how much item i is inside the prefix of depth d, for d = 1..width."""
    depth = np.arange(1, width + 1)[None, :]
    t, b = tops[:, None], bottoms[:, None]
    if variant == "w":
        return (depth >= t).astype(float)
    partial = (depth - t + 1) / (b - t + 1)
    return np.where(depth >= b, 1.0, np.where(depth >= t, partial, 0.0))


def _has_ties(ranking: Sequence) -> bool:
    return any(isinstance(e, _GROUP_TYPES) and len(e) > 1 for e in ranking)


def rbo_ties(a: Sequence, b: Sequence, p: float = 0.9, ties: TieVariant = "a") -> RBO:
    """Tie-aware rank-biased overlap of two rankings (see the module doc for the variants)."""
    check_persistence(p)
    if ties not in TIE_VARIANTS:
        raise ArgumentError(f"ties must be one of {', '.join(TIE_VARIANTS)}; got {ties!r}")
    flat_a, flat_b = _flatten(a), _flatten(b)
    if not (_has_ties(a) or _has_ties(b)):
        return rbo(flat_a[0], flat_b[0], p)
    (s_items, s_top, s_bot), (l_items, l_top, l_bot) = sorted(
        (flat_a, flat_b), key=lambda f: len(f[0]))
    s, ell = len(s_items), len(l_items)
    if s == 0:
        return rbo([], l_items, p)
    universe = {item: i for i, item in enumerate(dict.fromkeys([*s_items, *l_items]))}
    c_s = np.zeros((len(universe), ell))
    c_l = np.zeros((len(universe), ell))
    c_s[[universe[x] for x in s_items]] = _contributions(s_top, s_bot, ell, ties)
    c_l[[universe[x] for x in l_items]] = _contributions(l_top, l_bot, ell, ties)
    depth = np.arange(1, ell + 1)
    overlap = (c_s * c_l).sum(axis=0)

    def agreement(x: np.ndarray, size_s: np.ndarray) -> np.ndarray:
        if ties == "w":
            return 2 * x / (size_s + c_l.sum(axis=0))
        if ties == "a":
            return x / depth
        return x / np.sqrt(size_s) / np.sqrt((c_l**2).sum(axis=0))

    short_size = np.where(depth <= s, (c_s**2 if ties == "b" else c_s).sum(axis=0), depth)
    seen_agreement = agreement(overlap, short_size)
    a_s = seen_agreement[s - 1]

    unmatched = [universe[x] for x in l_items if x not in set(s_items)]
    unseen_max = np.zeros(ell)
    unseen_ext = np.zeros(ell)
    for d in range(s + 1, ell + 1):
        column = c_l[unmatched, d - 1]
        unseen_max[d - 1] = column[: d - s].sum()
        present = column[column > 0]
        unseen_ext[d - 1] = (d - s) * a_s * present.mean() if len(present) else 0.0
    max_agreement = agreement(overlap + unseen_max, short_size)
    ext_agreement = agreement(overlap + unseen_ext, short_size)

    weights = p ** depth
    x_l = overlap[-1]
    harmonic = float((weights / depth).sum())
    tail_min = x_l * (-np.log1p(-p) - harmonic)
    f = ell + s - x_l  # fractional under "a" and "b"
    far = np.arange(ell + 1, f + 1)
    tail_max = float(((2 * far - ell - s + x_l) / far * p**far).sum()) + p ** (f + 1) / (1 - p)
    tail_ext = (x_l + (ell - s) * a_s) / ell * p ** (ell + 1) / (1 - p)
    scale = (1 - p) / p
    low = scale * (float((seen_agreement * weights).sum()) + tail_min)
    high = scale * (float((max_agreement * weights).sum()) + tail_max)
    ext = scale * (float((ext_agreement * weights).sum()) + tail_ext)
    return RBO(min=float(low), residual=float(max(high - low, 0.0)), ext=float(ext))
