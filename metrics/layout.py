"""From run and qrels DataFrames to rank-ordered matrices, touching only the rows measures read.

The arithmetic of every measure is cheap once grades sit in a (queries x ranks) matrix; the cost
of batch evaluation is all in layout: grouping rows by query, ordering them and finding each
doc's grade.  This module does that once per run, without a Python loop per query:

* ranks come from the ``rank`` column (an order key: gaps are allowed, a repeated rank within a
  query is an error) or, without one, from ``score`` descending then doc id descending
  (trec_eval's rule);
* only rows within the deepest cutoff are read, plus, for NDCG-f@k, the rows down to each
  query's k-th labelled doc: the top 3k ranks in the same pass, then, for the queries still
  short, bands as deep as the judged share seen so far predicts;
* ids stay as they come: Arrow strings are never expanded to Python objects beyond the rows
  read (and a column held in many chunks is read block by block, never joined whole), and a
  categorical (dictionary-coded) column is read through its codes;
* doc ids are matched by a 64-bit hash of (query, doc) and every match is then confirmed by
  comparing the ids themselves, so a hash collision can never assign a wrong grade (if one ever
  occurs, the exact but slower join is used instead).

A doc id repeated within one query raises :class:`~metrics.ranking.DuplicateDocError` when it
falls within the rows read; the store's importer rejects repeats anywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metrics.dcg import is_judged
from metrics.errors import DuplicateDocError, LayoutError
from metrics.id_hash import text_hashes

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _show(value: object) -> str:
    """repr() of a cell value, numpy scalars shown as plain Python values."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def require_columns(frame: pd.DataFrame, what: str, columns: tuple[str, ...]) -> None:
    """Raise :class:`LayoutError` unless ``frame`` is a DataFrame with every one of ``columns``."""
    if not isinstance(frame, pd.DataFrame):
        raise LayoutError(f"{what} must be a pandas DataFrame; got {type(frame).__name__}")
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise LayoutError(f"{what} is missing column(s) {', '.join(missing)}; "
                          f"it has {', '.join(map(str, frame.columns)) or 'none'}")


def _ids(values: pd.Series, as_text: bool) -> pd.Series:
    """Doc or query ids in one comparable kind: int64 when every side is integer, else str.

    A categorical column stays categorical (its categories converted instead of its rows), so
    a run whose query ids are dictionary-coded is never expanded to one string per row.
    """
    if isinstance(values.dtype, pd.CategoricalDtype):
        categories = values.cat.categories
        if not as_text:
            return values.astype(np.int64)
        if isinstance(categories.dtype, pd.StringDtype):
            return values
        as_str = categories.astype(str)
        if as_str.is_unique:
            return values.cat.rename_categories(as_str)
        return values.astype(str)
    if not as_text:
        return values.astype(np.int64)
    if isinstance(values.dtype, pd.StringDtype):
        return values
    return values.astype(str)


def _plain(values: pd.Series) -> pd.Series:
    """Ids as a plain (non-categorical) column, to hash, compare and show."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        return values.astype(values.cat.categories.dtype)
    return values


def _distinct(values: object) -> pd.Index:
    """Distinct ids (from ``pd.factorize`` or ``pd.unique``) as a plain Index."""
    if isinstance(values, pd.Categorical | pd.CategoricalIndex):
        values = values.astype(values.categories.dtype)
    return pd.Index(values)


def _arrow_backed(values: pd.Series) -> bool:
    return getattr(values.dtype, "storage", None) == "pyarrow" or isinstance(
        values.dtype, pd.ArrowDtype)


def _chunks(values: pd.Series) -> int:
    """How many chunks hold an Arrow-backed column (through the public ``__arrow_array__``
    protocol); 1 for any other column."""
    if not _arrow_backed(values):
        return 1
    return int(getattr(values.array.__arrow_array__(), "num_chunks", 1))


def _take(values: pd.Series, rows: np.ndarray) -> pd.Series:
    """The ids at ``rows``, as a plain column (a categorical column is read through its codes,
    without expanding the rest).

    An Arrow column read from a file is held in many chunks, and taking rows from it first
    joins every chunk, however few rows are taken (a copy of the whole column, each time).
    Rows are taken from slices of ``_BLOCK`` rows instead: a slice is a view, and joining the
    chunks of one costs at most its own size."""
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes[rows]
        return pd.Series(values.cat.categories.take(codes), index=values.index[rows])
    if len(values) <= _BLOCK or len(rows) == 0 or _chunks(values) <= 1:
        return values.iloc[rows]
    blocks = rows // _BLOCK
    order = np.argsort(blocks, kind="stable")
    in_order, block_of = rows[order], blocks[order]
    cuts = np.flatnonzero(block_of[1:] != block_of[:-1]) + 1
    firsts, ends = np.concatenate(([0], cuts)), np.append(cuts, len(rows))
    array = values.array
    parts = [array[b * _BLOCK: (b + 1) * _BLOCK].take(in_order[i:j] - b * _BLOCK)
             for b, i, j in zip(block_of[firsts].tolist(), firsts.tolist(), ends.tolist(),
                                strict=True)]
    joined = type(array)._concat_same_type(parts)  # the ExtensionArray interface's concat
    back = np.empty_like(order)
    back[order] = np.arange(len(order))
    return pd.Series(joined.take(back), index=values.index[rows])


_BLOCK = 1 << 15


def _single_chunk(values: pd.Series) -> pd.Series:
    """An Arrow column gathered into one chunk (see :func:`_take`); others as they are."""
    return values.take(np.arange(len(values))) if _chunks(values) > 1 else values


def _id_dtype(column: pd.Series) -> object:
    dtype = column.dtype
    return dtype.categories.dtype if isinstance(dtype, pd.CategoricalDtype) else dtype


def ids_as_text(*columns: pd.Series) -> bool:
    """Whether ids must be compared as text (true unless every column is integer; a
    categorical column counts by its categories)."""
    return not all(pd.api.types.is_integer_dtype(_id_dtype(c)) for c in columns)


def hash_ids(values: pd.Series) -> np.ndarray:
    """A uint64 hash of each id: text ids by :func:`metrics.id_hash.text_hashes` (over their
    bytes, no Python string per id), integer ids by pandas' vectorised SipHash.  Equal ids of
    one kind hash equal in any column; every caller confirms a hash match on the ids."""
    if pd.api.types.is_integer_dtype(_id_dtype(values)):
        return pd.util.hash_pandas_object(values, index=False, categorize=False).to_numpy()
    return text_hashes(values)


def mix_keys(query_codes: np.ndarray, doc_hashes: np.ndarray) -> np.ndarray:
    """One uint64 key per (query code, doc hash): a match is a candidate, to confirm on ids."""
    with np.errstate(over="ignore"):
        return doc_hashes ^ ((query_codes.astype(np.uint64) + np.uint64(1)) * _MIX)


@dataclass(frozen=True)
class QrelsIndex:
    """A qrels frame indexed for look-ups: per-query label grades and (query, doc) -> grade."""

    query_ids: pd.Index  # the evaluated queries, sorted
    query_codes: np.ndarray  # query code of each qrels row
    docs: pd.Series  # doc id of each qrels row
    grades: np.ndarray  # grade of each qrels row
    keys: pd.Index  # mixed (query, doc) hash key of each qrels row (its hash table: look-ups)
    n_labels: np.ndarray  # labels per query
    n_judged: np.ndarray  # labels with a grade >= 0 per query (judged, in trec_eval's sense)
    ids_as_text: bool
    exact_only: bool = False  # a true 64-bit hash collision was seen: use the exact join
    _top_labels: dict[int, np.ndarray] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def build(cls, qrels: pd.DataFrame, ids_as_text: bool) -> QrelsIndex:
        require_columns(qrels, "qrels", ("query_id", "doc_id", "grade"))
        _no_missing(qrels, "qrels", ("query_id", "doc_id"))
        grades = pd.to_numeric(qrels["grade"], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(grades))
        if len(bad):
            row = qrels.iloc[bad[0]]
            raise LayoutError(f"qrels row {bad[0] + 1}: grade {_show(row['grade'])} of query "
                              f"{_show(row['query_id'])}, doc {_show(row['doc_id'])} "
                              "is not a number")
        codes, uniques = pd.factorize(_plain(_ids(qrels["query_id"], ids_as_text)), sort=True)
        docs = _single_chunk(_plain(_ids(qrels["doc_id"], ids_as_text)).reset_index(drop=True))
        keys = pd.Index(mix_keys(codes, hash_ids(docs)))
        collided = not keys.is_unique
        if collided:
            _refuse_repeated_labels(keys.to_numpy(), codes, docs, uniques)
        return cls(pd.Index(uniques), codes, docs, grades, keys,
                   np.bincount(codes, minlength=len(uniques)),
                   np.bincount(codes[grades >= 0], minlength=len(uniques)), ids_as_text,
                   exact_only=collided)

    def top_labels(self, depth: int) -> np.ndarray:
        """(queries x depth) label grades per query, descending, NaN padded (for the ideal)."""
        if depth in self._top_labels:
            return self._top_labels[depth]
        q = len(self.query_ids)
        levels, level_of = np.unique(self.grades, return_inverse=True) if len(
            self.grades) <= _FEW_GRADES else _grade_levels(self.grades)
        if len(levels) <= _FEW_GRADES and q * depth * len(levels) <= 50_000_000:
            # few distinct grades: count them per query instead of sorting every label
            out = _top_by_counts(self.query_codes, level_of, levels, q, depth)
            self._top_labels[depth] = out
            return out
        out = np.full((q, depth), np.nan)
        order = np.lexsort((-self.grades, self.query_codes))
        codes = self.query_codes[order]
        starts = np.concatenate(([0], np.cumsum(self.n_labels)[:-1]))
        slot = np.arange(len(order)) - starts[codes]
        keep = slot < depth
        out[codes[keep], slot[keep]] = self.grades[order][keep]
        self._top_labels[depth] = out
        return out

    def grades_of(self, query_codes: np.ndarray, docs: pd.Series, doc_hashes: np.ndarray
                  ) -> np.ndarray:
        """Grade of each (query code, doc) pair; NaN where unlabelled."""
        out = np.full(len(query_codes), np.nan)
        if len(query_codes) == 0 or len(self.keys) == 0:
            return out
        if self.exact_only:
            return self._grades_exact(query_codes, docs)
        rows = self.keys.get_indexer(mix_keys(query_codes, doc_hashes))
        hit = np.flatnonzero(rows >= 0)
        rows = rows[hit]
        same = (self.query_codes[rows] == query_codes[hit]) & np.asarray(
            self.docs.array.take(rows) == docs.array.take(hit), dtype=bool)
        if not np.all(same):
            return self._grades_exact(query_codes, docs)
        out[hit] = self.grades[rows]
        return out

    def _grades_exact(self, query_codes: np.ndarray, docs: pd.Series) -> np.ndarray:
        table = pd.DataFrame({"q": self.query_codes, "d": self.docs, "g": self.grades})
        probe = pd.DataFrame({"q": query_codes, "d": docs.to_numpy()})
        return probe.merge(table, on=["q", "d"], how="left")["g"].to_numpy(dtype=float)


_FEW_GRADES = 64


def _grade_levels(grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct grades, ascending, and each grade's position among them (by hashing,
    without sorting every grade)."""
    codes, uniques = pd.factorize(grades)
    order = np.argsort(uniques)
    position = np.empty_like(order)
    position[order] = np.arange(len(order))
    return uniques[order], position[codes]


def _top_by_counts(query_codes: np.ndarray, level_of: np.ndarray, levels: np.ndarray,
                   n_queries: int, depth: int) -> np.ndarray:
    """(queries x depth) grades per query, descending, NaN padded, from per-query counts of
    each of a few grade levels."""
    n_levels = len(levels)
    counts = np.bincount(query_codes * n_levels + level_of,
                         minlength=n_queries * n_levels).reshape(n_queries, n_levels)
    return top_from_counts(counts, levels, depth)


def top_from_counts(counts: np.ndarray, levels: np.ndarray, depth: int) -> np.ndarray:
    """(queries x depth) grades per query, descending, NaN padded, from ``counts`` (queries x
    levels): how many labels of each query are at each of the ascending ``levels``."""
    reached = np.cumsum(counts[:, ::-1], axis=1)  # labels at or above each level, highest first
    descending = np.append(levels[::-1], np.nan)
    slots = np.arange(depth)
    return descending[(reached[:, None, :] <= slots[None, :, None]).sum(axis=2)]


def _refuse_repeated_labels(keys: np.ndarray, codes: np.ndarray, docs: pd.Series,
                            queries: object) -> None:
    """Raise LayoutError naming two qrels rows that judge the same (query, doc), if any
    (every row whose key is shared is compared exactly: equal hashes alone prove nothing)."""
    rows = np.flatnonzero(pd.Series(keys).duplicated(keep=False).to_numpy())
    found = first_repeat(codes[rows], docs.iloc[rows].to_numpy(dtype=object))
    if found is not None:
        a, b = (int(rows[i]) for i in found)
        raise LayoutError(f"qrels rows {a + 1} and {b + 1} both judge "
                          f"query {_show(queries[codes[a]])}, doc {_show(docs.iloc[a])}")


def first_repeat(codes: np.ndarray, docs: np.ndarray) -> tuple[int, int] | None:
    """The first (query code, doc id) pair listed twice, as (earlier, later) indices: the
    later is the first row that repeats an earlier one.  Exact (compares the ids)."""
    frame = pd.DataFrame({"code": codes, "doc": docs})
    later = np.flatnonzero(frame.duplicated(keep="first").to_numpy())
    if len(later) == 0:
        return None
    j = int(later[0])
    same = (frame["code"] == frame["code"].iat[j]) & (frame["doc"] == frame["doc"].iat[j])
    return int(np.flatnonzero(same.to_numpy())[0]), j


@dataclass(frozen=True)
class RankedRows:
    """A run's rows in a compact form: for any set of rows, their query code (in the
    evaluated queries, -1 if the query is not evaluated) and rank position (0-based order
    within the query); plus the doc ids and the ranking length per evaluated query.

    Two layouts: ``codes``/``positions`` per row (any row order), or, when the rows are
    grouped by query and ranked 1, 2, 3, ... in file order (any TREC file), block starts and
    ranks, so that nothing proportional to the whole run is materialised.
    """

    docs: pd.Series
    lengths: np.ndarray  # ranking length per evaluated query
    run_query_ids: pd.Index  # every query the run has, evaluated or not
    codes: np.ndarray | None = None  # per row (general layout)
    positions: np.ndarray | None = None  # per row (general layout)
    row_start: np.ndarray | None = None  # grouped layout: row of rank 1 per evaluated query
    block_starts: np.ndarray | None = None  # grouped layout: first row of each run query
    block_codes: np.ndarray | None = None  # grouped layout: evaluated code of each run query
    ranks: np.ndarray | None = None  # grouped layout: the rank column

    def codes_of(self, rows: np.ndarray) -> np.ndarray:
        if self.codes is not None:
            return self.codes[rows]
        block = np.searchsorted(self.block_starts, rows, side="right") - 1
        return self.block_codes[block]

    def positions_of(self, rows: np.ndarray) -> np.ndarray:
        if self.positions is not None:
            return self.positions[rows]
        return self.ranks[rows] - 1

    def rows_between(self, low: int | np.ndarray, high: int | np.ndarray,
                     queries: np.ndarray | None = None) -> np.ndarray:
        """Run rows at positions low <= p < high of the evaluated queries (all, or where the
        boolean ``queries`` is set), found without a scan in the grouped layout.  ``low`` and
        ``high`` are one bound for every query or one per evaluated query."""
        n_q = len(self.lengths)
        low = np.broadcast_to(np.asarray(low, dtype=np.int64), (n_q,))
        high = np.broadcast_to(np.asarray(high, dtype=np.int64), (n_q,))
        if self.row_start is None:
            wanted = self.codes >= 0
            codes = self.codes[wanted]
            positions = self.positions[wanted]
            inside = (positions >= low[codes]) & (positions < high[codes])
            if queries is not None:
                inside &= queries[codes]
            wanted[wanted] = inside
            return np.flatnonzero(wanted)
        chosen = (self.lengths > low) & (high > low)
        if queries is not None:
            chosen &= queries
        qs = np.flatnonzero(chosen)
        counts = np.minimum(self.lengths[qs], high[qs]) - low[qs]
        offsets = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts)
        return np.repeat(self.row_start[qs] + low[qs], counts) + offsets


def _integral_ranks(run: pd.DataFrame) -> np.ndarray:
    if pd.api.types.is_integer_dtype(run["rank"].dtype) and not run["rank"].hasnans:
        return run["rank"].to_numpy(dtype=np.int64)
    ranks = pd.to_numeric(run["rank"], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(~np.isfinite(ranks) | (ranks != np.round(ranks)))
    if len(bad):
        raise LayoutError(f"run row {bad[0] + 1}: rank {_show(run['rank'].iloc[bad[0]])} "
                          "is not a whole number")
    return ranks.astype(np.int64)


def rank_rows(run: pd.DataFrame, query_ids: pd.Index, as_text: bool) -> RankedRows:
    """Query codes (positions in ``query_ids``, -1 if absent) and 0-based rank positions of
    every run row (see the module doc for the rules)."""
    require_columns(run, "run", ("query_id", "doc_id"))
    if "rank" not in run.columns and "score" not in run.columns:
        raise LayoutError("run needs a rank or a score column")
    _no_missing(run, "run", ("query_id", "doc_id"))
    run_ids = _ids(run["query_id"], as_text)
    docs = _ids(run["doc_id"], as_text).reset_index(drop=True)
    n_q = len(query_ids)
    blocks = _grouped_codes(run_ids)
    if blocks is not None and "rank" in run.columns:
        ranks = _integral_ranks(run)
        if _ranked_in_file_order(ranks, blocks.change):
            to_evaluated = query_ids.get_indexer(blocks.queries)
            known = to_evaluated >= 0
            lengths = np.zeros(n_q, dtype=np.int64)
            lengths[to_evaluated[known]] = blocks.sizes[known]
            row_start = np.full(n_q, -1, dtype=np.int64)
            row_start[to_evaluated[known]] = blocks.starts[known]
            return RankedRows(docs, lengths, blocks.queries, row_start=row_start,
                              block_starts=blocks.starts, block_codes=to_evaluated,
                              ranks=ranks)
    run_codes, run_queries = pd.factorize(run_ids)
    run_queries = _distinct(run_queries)
    to_evaluated = query_ids.get_indexer(run_queries)
    codes = to_evaluated[run_codes] if len(run_codes) else run_codes
    lengths = np.bincount(codes[codes >= 0], minlength=n_q)
    if "rank" in run.columns:
        positions = _positions_from_ranks(run_codes, _integral_ranks(run), run_queries)
    else:
        positions = _positions_from_scores(run, run_codes, docs)
    return RankedRows(docs, lengths, pd.Index(run_queries), codes=codes, positions=positions)


def _no_missing(frame: pd.DataFrame, what: str, columns: tuple[str, ...]) -> None:
    for column in columns:
        if frame[column].hasnans:
            row = int(np.flatnonzero(frame[column].isna().to_numpy())[0]) + 1
            raise LayoutError(f"{what} row {row}: {column} is empty")


@dataclass(frozen=True)
class _Blocks:
    queries: pd.Index  # the id of each block, all distinct
    starts: np.ndarray  # first row of each block
    sizes: np.ndarray  # rows in each block
    change: np.ndarray  # change[i]: row i + 1 starts a new block


def _grouped_codes(values: pd.Series) -> _Blocks | None:
    """The blocks of a column whose equal ids sit together (as in any TREC file), found by
    comparing neighbours instead of hashing every row; None when the rows are interleaved."""
    if len(values) < 2:
        return None
    if isinstance(values.dtype, pd.CategoricalDtype):
        codes = values.array.codes  # the categorical's own codes, not a copy
        change = codes[1:] != codes[:-1]
        starts = np.flatnonzero(np.concatenate(([True], change)))
        heads = pd.Series(values.cat.categories.take(codes[starts]))
    else:
        array = values.array
        change = np.asarray(array[1:] != array[:-1], dtype=bool)
        starts = np.flatnonzero(np.concatenate(([True], change)))
        heads = _take(values, starts)
    if heads.nunique() != len(starts):
        return None
    sizes = np.diff(np.append(starts, len(values)))
    return _Blocks(pd.Index(heads.to_numpy()), starts, sizes, change)


def _ranked_in_file_order(ranks: np.ndarray, change: np.ndarray) -> bool:
    """Whether every block of rows is ranked exactly 1, 2, 3, ... in file order."""
    if ranks[0] != 1:
        return False
    heads = np.flatnonzero(change)  # row heads + 1 starts a block: its rank must be 1
    if not np.all(ranks[heads + 1] == 1):
        return False
    for low in range(0, len(change), _STRIDE):  # in strides: no temporary as long as the run
        steps = np.diff(ranks[low: low + _STRIDE + 1])
        if not np.all((steps == 1) | change[low: low + _STRIDE]):  # every step within a block
            return False
    return True


_STRIDE = 1 << 20


def run_query_ids(run: pd.DataFrame, as_text: bool) -> pd.Index:
    """The distinct query ids of a run, in the comparable kind."""
    require_columns(run, "run", ("query_id",))
    return _distinct(pd.unique(_ids(run["query_id"], as_text)))


def _positions_from_ranks(codes: np.ndarray, ranks: np.ndarray, queries: pd.Index
                          ) -> np.ndarray:
    if len(ranks) == 0:
        return ranks
    n_q = len(queries)
    counts = np.bincount(codes, minlength=n_q)
    low = ranks.min()
    span = int(ranks.max() - low + 1)
    if low >= 1 and n_q * span <= 50_000_000:
        key = codes.astype(np.int64) * span + (ranks - low)
        seen = np.bincount(key, minlength=n_q * span)
        if seen.max() > 1:
            _raise_repeated_rank(codes, ranks, queries)
        if low == 1 and np.all(ranks <= counts[codes]):
            # distinct ranks, none above the query's count: exactly 1..n in every query
            return ranks - 1
    order = np.lexsort((ranks, codes))
    sorted_codes, sorted_ranks = codes[order], ranks[order]
    if np.any((sorted_codes[1:] == sorted_codes[:-1]) & (sorted_ranks[1:] == sorted_ranks[:-1])):
        _raise_repeated_rank(codes, ranks, queries)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    positions = np.empty(len(ranks), dtype=np.int64)
    positions[order] = np.arange(len(ranks)) - starts[sorted_codes]
    return positions


def _raise_repeated_rank(codes: np.ndarray, ranks: np.ndarray, queries: pd.Index) -> None:
    frame = pd.DataFrame({"q": codes, "r": ranks})
    dup = frame[frame.duplicated(keep=False)].iloc[0]
    raise LayoutError(f"run query {_show(queries[int(dup['q'])])} has two docs at rank "
                      f"{int(dup['r'])}")


def _positions_from_scores(run: pd.DataFrame, codes: np.ndarray, docs: pd.Series) -> np.ndarray:
    scores = pd.to_numeric(run["score"], errors="coerce").to_numpy(dtype=float)
    bad = np.flatnonzero(np.isnan(scores))
    if len(bad):
        raise LayoutError(f"run row {bad[0] + 1}: score {_show(run['score'].iloc[bad[0]])} "
                          "is not a number")
    doc_order, _ = pd.factorize(_plain(docs), sort=True)
    order = np.lexsort((-doc_order, -scores, codes))
    counts = np.bincount(codes, minlength=codes.max() + 1 if len(codes) else 0)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    positions = np.empty(len(codes), dtype=np.int64)
    positions[order] = np.arange(len(codes)) - starts[codes[order]]
    return positions


@dataclass(frozen=True)
class RunMatrix:
    """The rows a set of measures reads, as (evaluated queries x positions) matrices."""

    grades: np.ndarray  # top `depth` grades, NaN = unlabelled or past the end
    doc_hashes: np.ndarray  # uint64 hash of each top doc (0 past the end)
    doc_ids: np.ndarray  # object array of the top docs (None past the end)
    lengths: np.ndarray  # full ranking length per query
    judged: np.ndarray  # first `judged_depth` labelled grades per query (NDCG-f's list)


def check_no_repeats(rows: RankedRows, picked: np.ndarray, hashes: np.ndarray,
                      query_ids: pd.Index) -> None:
    """Raise DuplicateDocError if a doc id repeats within one query among the picked rows."""
    codes = rows.codes_of(picked)
    keys = mix_keys(codes, hashes)
    if pd.Index(keys).is_unique:
        return
    # every row whose key is shared is compared on its ids (three rows on one key may hold
    # a real repeat between the first and the third)
    shared = np.flatnonzero(pd.Series(keys).duplicated(keep=False).to_numpy())
    candidates = picked[shared]
    found = first_repeat(codes[shared], _take(rows.docs, candidates).to_numpy(dtype=object))
    if found is None:
        return
    a, b = (int(candidates[i]) for i in found)
    doc = rows.docs.iloc[a]
    doc = doc.item() if isinstance(doc, np.generic) else doc
    first, second = sorted(int(p) + 1 for p in rows.positions_of(np.array([a, b])))
    raise DuplicateDocError(doc, first, second, query_ids[codes[shared[found[0]]]])


@dataclass(frozen=True)
class TopDocs:
    """The first ``depth`` docs of every query of a run, as (queries x depth) matrices."""

    hashes: np.ndarray  # uint64 hash of each doc id (0 past the end)
    doc_ids: np.ndarray  # object array of doc ids (None past the end)
    lengths: np.ndarray  # full ranking length per query
    picked: np.ndarray  # the run rows read
    picked_hashes: np.ndarray
    picked_docs: pd.Series  # their doc ids


def top_docs(rows: RankedRows, n_queries: int, depth: int) -> TopDocs:
    """The top ``depth`` docs of each query; repeats within a query raise DuplicateDocError."""
    hashes = np.zeros((n_queries, depth), dtype=np.uint64)
    doc_ids = np.full((n_queries, depth), None, dtype=object)
    pick = rows.rows_between(0, depth)
    q, pos = rows.codes_of(pick), rows.positions_of(pick)
    docs = _take(rows.docs, pick)
    h = hash_ids(docs)
    hashes[q, pos] = h
    doc_ids[q, pos] = docs.to_numpy(dtype=object)
    return TopDocs(hashes, doc_ids, rows.lengths, pick, h, docs)


_FIRST_BAND = 3  # NDCG-f@k reads the top 3k ranks at once, then deeper only where needed


def layout(rows: RankedRows, qrels: QrelsIndex, depth: int, judged_depth: int = 0
           ) -> RunMatrix:
    """Build the matrices for cutoffs up to ``depth`` and NDCG-f lists of ``judged_depth``.

    The top ``depth`` ranks (and, for NDCG-f, the top ``3 * judged_depth``) are read in one
    pass: one take of their doc ids, one hash, one grade look-up."""
    n_q = len(qrels.query_ids)
    window = max(depth, _FIRST_BAND * judged_depth)
    pick = rows.rows_between(0, window)
    q, pos = rows.codes_of(pick), rows.positions_of(pick)
    docs = _take(rows.docs, pick)
    h = hash_ids(docs)
    g = qrels.grades_of(q, docs, h)
    top = np.flatnonzero(pos < depth) if window > depth else slice(None)
    tq, tp = q[top], pos[top]
    grades = np.full((n_q, depth), np.nan)
    grades[tq, tp] = g[top]
    hashes = np.zeros((n_q, depth), dtype=np.uint64)
    hashes[tq, tp] = h[top]
    doc_ids = np.full((n_q, depth), None, dtype=object)
    doc_ids[tq, tp] = (docs if window == depth else docs.iloc[top]).to_numpy(dtype=object)
    picked, picked_hashes = [pick], [h]

    judged = np.full((n_q, judged_depth), np.nan)
    if judged_depth:
        judged = _first_judged(rows, qrels, (q, pos, g), window, judged_depth, picked,
                               picked_hashes)
    check_no_repeats(rows, np.concatenate(picked), np.concatenate(picked_hashes),
                      qrels.query_ids)
    return RunMatrix(grades, hashes, doc_ids, rows.lengths, judged)


def _band(missing: np.ndarray, have: np.ndarray, done_to: np.ndarray) -> np.ndarray:
    """How many ranks to read next in each query to find its ``missing`` judged docs: as many
    as the judged share seen so far predicts, plus a half; at least ``missing``, at most
    three times what was read (where none was judged yet: three times)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        predicted = np.ceil(missing * done_to * 1.5 / np.maximum(have, 1))
    predicted = np.where(have > 0, predicted, 3 * done_to)
    return np.clip(predicted, np.maximum(missing, 1), 3 * done_to).astype(np.int64)


def _first_judged(rows: RankedRows, qrels: QrelsIndex,
                  read: tuple[np.ndarray, np.ndarray, np.ndarray], done: int, k: int,
                  picked: list[np.ndarray], picked_hashes: list[np.ndarray]) -> np.ndarray:
    """The first k judged grades of each query, from the rows ``read`` (query codes,
    positions, grades: every rank above ``done``), scanning deeper only where needed."""
    n_q = len(qrels.query_ids)
    hit = is_judged(read[2])
    found_q, found_pos, found_g = [read[0][hit]], [read[1][hit]], [read[2][hit]]
    have = np.bincount(found_q[0], minlength=n_q)
    done_to = np.full(n_q, done, dtype=np.int64)
    wanted = np.minimum(k, qrels.n_judged)
    while True:
        lacking = (have < wanted) & (rows.lengths > done_to)
        if not lacking.any():
            break
        band_end = done_to + _band(wanted - have, have, done_to)
        pick = rows.rows_between(done_to, band_end, lacking)
        q, pos = rows.codes_of(pick), rows.positions_of(pick)
        docs = _take(rows.docs, pick)
        h = hash_ids(docs)
        picked.append(pick)
        picked_hashes.append(h)
        g = qrels.grades_of(q, docs, h)
        hit = is_judged(g)
        found_q.append(q[hit])
        found_pos.append(pos[hit])
        found_g.append(g[hit])
        have += np.bincount(q[hit], minlength=n_q)
        done_to = np.where(lacking, band_end, done_to)
    q = np.concatenate(found_q)
    pos = np.concatenate(found_pos)
    g = np.concatenate(found_g)
    order = np.lexsort((pos, q))
    q, g = q[order], g[order]
    starts = np.concatenate(([0], np.cumsum(np.bincount(q, minlength=n_q))[:-1]))
    slot = np.arange(len(q)) - starts[q]
    keep = slot < k
    out = np.full((n_q, k), np.nan)
    out[q[keep], slot[keep]] = g[keep]
    return out
