"""The depth-k judging pool of two runs: every (query, doc) in either run's top k, with its rank
in each run and its grade where one is known.

This is what the decision (:mod:`metrics.decision`), the judging order
(:mod:`metrics.judging_order`) and the judging replay (:mod:`metrics.judging_simulation`) read:
the two runs' top k joined on (query, doc), so that a doc both runs retrieve is **one** pair
with one grade, and the labels of the query outside the pool, which only enter NDCG's ideal.

Rules, written down:

* The queries are those of either run (sorted), or the ones given.  A query only one run
  answers is compared with an empty ranking.  (``compare`` evaluates the labels' queries
  instead; here a query with no label yet is a query whose labels are not in.)
* Ranks follow :func:`metrics.layout.rank_rows` (a ``rank`` column as an order key, else
  ``score`` descending then doc id descending); a doc repeated within a run's top k raises
  :class:`~metrics.errors.DuplicateDocError`.
* A label with a negative grade (trec_eval's "pooled, not judged") is not a judgment: its pair
  is unjudged and it is not counted outside the pool.
* The grades an unjudged doc may take are the scale's values (a :class:`GradeScale`), or the
  integers 0..max_grade, or the ``grades`` given; a label above the maximum grade raises
  :class:`~metrics.errors.GradeError`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from metrics.dcg import check_cutoff
from metrics.errors import GradeError
from metrics.evaluate import prepare_qrels
from metrics.layout import check_no_repeats, mix_keys, rank_rows, run_query_ids, top_docs
from metrics.ndcg import resolve_max_grade
from metrics.scale import GradeScale


@dataclass(frozen=True)
class JudgingPool:
    """The depth-k pool of runs A and B over ``query_ids`` (one row per pair: P pairs)."""

    query_ids: pd.Index
    k: int
    query: np.ndarray  # (P,) position of the pair's query in query_ids
    doc_id: np.ndarray  # (P,) object: the doc ids
    rank_a: np.ndarray  # (P,) 1-based rank in A's top k, 0 when A's top k lacks the doc
    rank_b: np.ndarray  # (P,) the same for B
    grade: np.ndarray  # (P,) the judged grade, NaN while unjudged
    levels: np.ndarray  # every grade value in play, ascending (scale values and labels)
    assignable: np.ndarray  # (levels,) whether an unjudged doc may take the level
    outside: np.ndarray  # (queries, levels) judged labels of the query outside the pool
    max_grade: float

    @property
    def n_queries(self) -> int:
        return len(self.query_ids)

    @property
    def size(self) -> int:
        return len(self.query)

    @property
    def judged(self) -> np.ndarray:
        """Whether each pair has a grade."""
        return ~np.isnan(self.grade)

    @property
    def values(self) -> np.ndarray:
        """The grades an unjudged doc may take, ascending."""
        return self.levels[self.assignable]

    def label_counts(self) -> np.ndarray:
        """(queries, levels) every judged label of each query: the pool's and the others."""
        judged = self.judged
        level = np.searchsorted(self.levels, self.grade[judged])
        inside = np.bincount(self.query[judged] * len(self.levels) + level,
                             minlength=self.n_queries * len(self.levels))
        return self.outside + inside.reshape(self.n_queries, len(self.levels))

    def with_grades(self, pairs: np.ndarray, grades: np.ndarray) -> JudgingPool:
        """A copy with ``pairs`` (indices) graded ``grades`` (values among ``levels``)."""
        grades = np.asarray(grades, dtype=float)
        unknown = ~np.isin(grades, self.levels)
        if unknown.any():
            raise GradeError(f"grade {grades[unknown][0]:g} is not on the pool's scale "
                             f"({', '.join(f'{v:g}' for v in self.levels)})")
        grade = self.grade.copy()
        grade[pairs] = grades
        return replace(self, grade=grade)

    def pairs(self) -> pd.DataFrame:
        """The pool as a frame: query_id, doc_id, rank_a, rank_b, grade (NaN: unjudged)."""
        return pd.DataFrame({"query_id": self.query_ids[self.query], "doc_id": self.doc_id,
                             "rank_a": self.rank_a, "rank_b": self.rank_b,
                             "grade": self.grade})


def empty_labels() -> pd.DataFrame:
    """A labels frame with no row (query_id, doc_id, grade)."""
    return pd.DataFrame({"query_id": pd.Series([], dtype=object),
                         "doc_id": pd.Series([], dtype=object),
                         "grade": pd.Series([], dtype=float)})


def grade_values(max_grade: float | GradeScale, grades: Iterable[float] | None = None
                 ) -> tuple[float, np.ndarray]:
    """(maximum grade, the grades an unjudged doc may take, ascending), as for the bounds:
    the ``grades`` given, else the scale's values, else the integers 0..max_grade."""
    top = resolve_max_grade(max_grade)
    if grades is None:
        grades = (max_grade.values if isinstance(max_grade, GradeScale)
                  else range(0, int(top) + 1))
    values = np.array(sorted({float(g) for g in grades}), dtype=float)
    if len(values) == 0 or values.max() > top or values.min() < 0:
        raise GradeError("the grades an unjudged doc may take must be non-empty, at least 0 "
                         f"and at most max_grade {top:g}; got {list(values)}")
    return top, values


def judging_pool(run_a: pd.DataFrame, run_b: pd.DataFrame, labels: pd.DataFrame | None,
                 k: int, max_grade: float | GradeScale, *,
                 grades: Iterable[float] | None = None,
                 queries: Iterable[object] | None = None) -> JudgingPool:
    """The depth-``k`` pool of ``run_a`` and ``run_b`` with the ``labels`` known so far.

    ``run_a``/``run_b``: query_id, doc_id and rank (or score); ``labels``: query_id, doc_id,
    grade (None: no label yet).  See the module doc for the rules.
    """
    check_cutoff(k)
    top, values = grade_values(max_grade, grades)
    labels = empty_labels() if labels is None else labels
    prepared = prepare_qrels(labels, run_a, run_b)
    if prepared.max_label > top:
        raise GradeError(f"the labels have grade {prepared.max_label:g}, above the maximum "
                         f"grade {top:g}")
    index = prepared.index
    as_text = index.ids_as_text
    if queries is None:
        query_ids = run_query_ids(run_a, as_text).union(run_query_ids(run_b, as_text))
        query_ids = query_ids.sort_values()
    else:
        query_ids = pd.Index(list(dict.fromkeys(queries)))
        query_ids = pd.Index(query_ids.astype(str) if as_text else query_ids.astype(np.int64))
    n = len(query_ids)

    sides = []
    for run in (run_a, run_b):
        rows = rank_rows(run, query_ids, as_text)
        found = top_docs(rows, n, k)
        check_no_repeats(rows, found.picked, found.picked_hashes, query_ids)
        q, pos = np.nonzero(found.doc_ids != None)  # noqa: E711 - object array of ids
        sides.append((q, pos + 1, found.hashes[q, pos], found.doc_ids[q, pos]))
    query, rank_a, rank_b, hashes, doc_id = _join(*sides)

    label_grades = np.full(len(query), np.nan)
    label_code = index.query_ids.get_indexer(query_ids)
    has = label_code[query] >= 0
    if has.any():
        docs = pd.Series(doc_id[has])
        if not as_text:
            docs = docs.astype(np.int64)
        label_grades[has] = index.grades_of(label_code[query[has]], docs, hashes[has])
    label_grades[label_grades < 0] = np.nan  # "pooled, not judged" is no judgment

    judged_labels = index.grades >= 0
    levels = np.union1d(values, index.grades[judged_labels])
    outside = np.zeros((n, len(levels)), dtype=np.int64)
    in_runs = query_ids.get_indexer(index.query_ids)[index.query_codes]
    counted = judged_labels & (in_runs >= 0)
    np.add.at(outside, (in_runs[counted], np.searchsorted(levels, index.grades[counted])), 1)
    inside = ~np.isnan(label_grades)
    np.add.at(outside, (query[inside], np.searchsorted(levels, label_grades[inside])), -1)
    return JudgingPool(query_ids=query_ids, k=int(k), query=query, doc_id=doc_id,
                       rank_a=rank_a, rank_b=rank_b, grade=label_grades, levels=levels,
                       assignable=np.isin(levels, values), outside=outside, max_grade=top)


def pool_from_rows(pairs: pd.DataFrame, counts: pd.DataFrame, k: int,
                   max_grade: float | GradeScale, *, grades: Iterable[float] | None = None
                   ) -> JudgingPool | None:
    """The pool :func:`judging_pool` builds, from rows already joined (a store reads them in
    one statement): ``pairs`` has one row per (query, doc) in either run's top ``k``
    (query_id, doc_id, rank_a, rank_b: 1-based, 0 when that run's top k lacks the doc; grade:
    the pair's label, missing when none) in any order; ``counts`` counts every label per query
    and grade (query_id, grade, labels), the pool's included.  Ids are compared as text.

    The same pool as :func:`judging_pool` on the runs' top k and the labels: the queries are
    those of the pairs, sorted; pairs by query, best rank, then B's rank; a negative grade is
    no judgment.  None when a query's ranks on one side are not the positions 1..m (a run
    whose ranks skip or repeat: :func:`judging_pool` re-ranks it; call that instead)."""
    check_cutoff(k)
    top, values = grade_values(max_grade, grades)
    query, query_ids = _text_codes(pairs["query_id"])
    n = len(query_ids)
    rank_a = pairs["rank_a"].to_numpy(dtype=np.int64)
    rank_b = pairs["rank_b"].to_numpy(dtype=np.int64)
    for rank in (rank_a, rank_b):
        on = rank > 0
        if on.any() and (rank.max() > k or not _positions(query[on], rank[on], n)):
            return None
    grade = pairs["grade"].to_numpy(dtype=float, na_value=np.nan, copy=True)
    grade[grade < 0] = np.nan  # "pooled, not judged" is no judgment
    best = np.where(rank_a == 0, rank_b, np.where(rank_b == 0, rank_a,
                                                  np.minimum(rank_a, rank_b)))
    span = k + 1
    order = np.argsort((query * span + best) * span + rank_b, kind="stable")
    label_grade = counts["grade"].to_numpy(dtype=float, na_value=np.nan)
    label_count = counts["labels"].to_numpy(dtype=np.int64)
    judged_labels = label_grade >= 0
    if judged_labels.any() and label_grade[judged_labels].max() > top:
        raise GradeError(f"the labels have grade {label_grade[judged_labels].max():g}, above "
                         f"the maximum grade {top:g}")
    levels = np.union1d(values, label_grade[judged_labels])
    outside = np.zeros((n, len(levels)), dtype=np.int64)
    label_codes, label_ids = _text_codes(counts["query_id"])
    label_query = query_ids.get_indexer(label_ids)[label_codes]
    counted = judged_labels & (label_query >= 0)
    np.add.at(outside, (label_query[counted], np.searchsorted(levels, label_grade[counted])),
              label_count[counted])
    query, rank_a, rank_b, grade = query[order], rank_a[order], rank_b[order], grade[order]
    inside = ~np.isnan(grade)
    np.add.at(outside, (query[inside], np.searchsorted(levels, grade[inside])), -1)
    doc_id = pairs["doc_id"].to_numpy(dtype=object)[order]
    return JudgingPool(query_ids=query_ids, k=int(k), query=query, doc_id=doc_id,
                       rank_a=rank_a, rank_b=rank_b, grade=grade, levels=levels,
                       assignable=np.isin(levels, values), outside=outside, max_grade=top)


def _text_codes(ids: pd.Series) -> tuple[np.ndarray, pd.Index]:
    """(code of each id, the distinct ids as text, sorted): ``pd.factorize(ids.astype(str),
    sort=True)``, the text made and sorted once per distinct id rather than per row."""
    codes, uniques = pd.factorize(ids)  # (faster than keeping missing ids as values)
    if len(codes) and codes.min() < 0:
        codes, uniques = pd.factorize(ids, use_na_sentinel=False)  # a missing id reads 'nan'
    text = pd.Index(np.asarray(uniques, dtype=object)).astype(str)
    merged, sorted_ids = pd.factorize(text, sort=True)  # ids that read alike are one
    query_ids = pd.Index(np.asarray(sorted_ids, dtype=object)).astype(str)
    return merged[codes].astype(np.int64), query_ids


def _positions(query: np.ndarray, rank: np.ndarray, n: int) -> bool:
    """Whether each query's ranks are exactly 1..m (m its number of entries): m distinct
    positive ranks summing to m(m + 1) / 2 are 1..m, the least sum m distinct ones have."""
    per_query = np.bincount(query, minlength=n)
    seen = np.zeros((n, int(rank.max()) + 1), dtype=bool)
    seen[query, rank] = True
    total = np.bincount(query, rank.astype(float), minlength=n)
    return bool((seen.sum(axis=1) == per_query).all()
                and (total == per_query * (per_query + 1) / 2).all())


def _join(side_a: tuple[np.ndarray, ...], side_b: tuple[np.ndarray, ...]
          ) -> tuple[np.ndarray, ...]:
    """The union of the two runs' top-k entries (query, rank, hash, doc id) on (query, doc):
    (query, rank_a, rank_b, hash, doc_id) per pair, sorted by query, best rank, then B's
    rank.  Entries meet on a hash of (query, doc); every meeting is confirmed on the ids, and
    a collision falls back to joining the ids themselves."""
    qa, ra, ha, da = side_a
    qb, rb, hb, db = side_b
    keys_a, keys_b = pd.Index(mix_keys(qa, ha)), pd.Index(mix_keys(qb, hb))
    if not (keys_a.is_unique and keys_b.is_unique):
        return _join_exact(side_a, side_b)
    found = keys_a.get_indexer(keys_b)  # B's entry -> A's, -1 when A's top k lacks it
    shared = found >= 0
    if not np.array_equal(da[found[shared]], db[shared]):
        return _join_exact(side_a, side_b)
    rank_b_of_a = np.zeros(len(qa), dtype=np.int64)
    rank_b_of_a[found[shared]] = rb[shared]
    only_b = ~shared
    query = np.concatenate((qa, qb[only_b])).astype(np.int64)
    rank_a = np.concatenate((ra, np.zeros(int(only_b.sum()), dtype=np.int64)))
    rank_b = np.concatenate((rank_b_of_a, rb[only_b])).astype(np.int64)
    best = np.where(rank_a == 0, rank_b, np.where(rank_b == 0, rank_a,
                                                  np.minimum(rank_a, rank_b)))
    span = int(max(rank_a.max(initial=0), rank_b.max(initial=0))) + 1
    order = np.argsort((query * span + best) * span + rank_b, kind="stable")
    hashes = np.concatenate((ha, hb[only_b]))
    docs = np.concatenate((da, db[only_b]))
    return query[order], rank_a[order], rank_b[order], hashes[order], docs[order]


def _join_exact(side_a: tuple[np.ndarray, ...], side_b: tuple[np.ndarray, ...]
                ) -> tuple[np.ndarray, ...]:
    frames = [pd.DataFrame({"q": s[0], "doc": s[3], "h": s[2], f"rank_{name}": s[1]})
              for s, name in ((side_a, "a"), (side_b, "b"))]
    both = frames[0].merge(frames[1], on=["q", "doc"], how="outer", suffixes=("", "_b"))
    both["h"] = both["h"].fillna(both["h_b"])
    ranks = both[["rank_a", "rank_b"]].fillna(0).astype(np.int64)
    best = ranks.replace(0, np.iinfo(np.int64).max).min(axis=1)
    both = both.assign(rank_a=ranks["rank_a"], rank_b=ranks["rank_b"], best=best)
    both = both.sort_values(["q", "best", "rank_b"], kind="stable")
    return (both["q"].to_numpy(np.int64), both["rank_a"].to_numpy(np.int64),
            both["rank_b"].to_numpy(np.int64), both["h"].to_numpy(np.uint64),
            both["doc"].to_numpy(dtype=object))
