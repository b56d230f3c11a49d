"""Consensus grades from several judges: Dawid-Skene, and the simple aggregations beside it.

Input: one row per (item, judge) — an item is a (query, doc), a judge is a person or a machine
witness, a grade is a value of the dataset's scale.  Each judge gives an item at most one grade
(their current one); a second grade of the same judge for the same item is refused.

**Dawid-Skene** (A. P. Dawid and A. M. Skene, "Maximum likelihood estimation of observer
error-rates using the EM algorithm", Applied Statistics 28(1), 1979): each item i has an
unknown true grade z_i drawn from priors p_c; judge w, shown an item of true grade c, gives
grade k with probability e_w[k, c] (the judge's confusion matrix, one column per true grade).
Expectation-maximisation over the posteriors T_ic = P(z_i = c | the grades given):

* start: T_ic = the share of item i's judges who gave c (soft majority vote);
* M-step: p_c = mean_i T_ic;  e_w[k, c] ∝ max(sum_{items i w graded k} T_ic, ε) over the grades
  k that w has given (the others stay 0), normalised so that each column sums to 1;
* E-step: T_ic ∝ max(p_c, ε) · prod_{w graded i} e_w[y_wi, c], computed in logs;
* stop after the first step whose objective grew by less than ``tol`` (at most ``max_iter``
  steps), the objective being, per grade given (R of them),
  (sum_{(i,w)} sum_c T_ic (log e_w[y_wi, c] + log max(p_c, ε)) - sum_ic T'_ic log T'_ic) / R
  with T' = max(T, ε) and ε = 1e-10.

This is exactly the variant of crowd-kit's ``DawidSkene`` (Toloka/crowd-kit 1.4,
``crowdkit/aggregation/classification/dawid_skene.py``): the same start, the same ε-smoothing,
the same objective — which counts the log prior once per grade given, not once per item — and
the same stopping rule, so the two agree to 1e-9 on the same data (a test checks it on
crowd-kit's own output).  Differences, all stated: the model's grades are sorted, so an exact tie
between posteriors goes to the **lower** grade (crowd-kit takes the first of its columns in
pandas' order); the posteriors returned are not clipped at ε.

Edge cases: a grade no judge gave has no column in the model; with ``grades=`` (the scale) the
posterior and priors carry it with 0.  A judge who gave one grade only says nothing about the
truth (each of their columns is that grade with probability 1): an item graded by such judges
alone gets the priors as its posterior, so a "unanimous" single grade can lose to a more common
grade.  With every item unanimous and every judge having given every grade in play, each item
gets its unanimous grade.  No labels: an empty :class:`Consensus`.

**Lower median** (the store's ``median`` label policy, DuckDB's ``quantile_disc(grade, 0.5)``,
PostgreSQL's ``percentile_disc(0.5)``): the ⌈n/2⌉-th smallest of an item's n grades — an actual
grade, never x.5.  **Majority**: the grade most judges gave, a tie going to the lower grade.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import sparse

from metrics.errors import ArgumentError, GradeError
from metrics.layout import require_columns

EPS = 1e-10
"""crowd-kit's smoothing: counts and priors are clipped below at this, logs never see 0."""

ITEM = ("query_id", "doc_id")
"""The columns that name an item by default: a (query, doc)."""


@dataclass(frozen=True)
class Consensus:
    """What Dawid-Skene makes of a set of grades.

    * ``posterior``: items x grades, P(true grade | the grades given), rows sum to 1;
    * ``grade``: the most probable grade per item (ties: the lower grade);
    * ``confidence``: the posterior of that grade;
    * ``judges``: how many judges graded the item (what its grade stands on);
    * ``confusion``: rows (judge, grade given), columns the true grade: P(given | true) — each
      judge's columns sum to 1; a grade the judge never gave has probability 0;
    * ``priors``: the share of items of each true grade the model settled on;
    * ``iterations``: EM steps taken; ``converged``: whether the stopping rule ended them
      (False: ``max_iter`` was reached first).
    """

    posterior: pd.DataFrame
    grade: pd.Series
    confidence: pd.Series
    judges: pd.Series
    confusion: pd.DataFrame
    priors: pd.Series
    iterations: int
    converged: bool

    def table(self) -> pd.DataFrame:
        """One row per item: its key columns, ``grade``, ``confidence`` and ``judges``."""
        return pd.DataFrame({"grade": self.grade, "confidence": self.confidence,
                             "judges": self.judges}).reset_index()


@dataclass(frozen=True)
class _Coded:
    """Labels as integer codes: item, judge and grade (an index into ``classes``) per row."""

    item: np.ndarray
    judge: np.ndarray
    given: np.ndarray
    items: pd.Index
    judges: pd.Index
    classes: np.ndarray


def _item_columns(items: str | Sequence[str]) -> list[str]:
    return [items] if isinstance(items, str) else list(items)


def _code(labels: pd.DataFrame, items: str | Sequence[str], judge: str, grade: str,
          grades: Iterable[float] | None) -> _Coded:
    """Check the labels and turn them into codes (items and judges sorted)."""
    keys = _item_columns(items)
    require_columns(labels, "labels", (*keys, judge, grade))
    values = pd.to_numeric(labels[grade], errors="coerce")
    bad = values.isna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise GradeError(f"labels: grade {labels[grade].iloc[row]!r} of judge "
                         f"{labels[judge].iloc[row]!r} is not a number")
    values = values.to_numpy(dtype=float)
    if labels[[*keys, judge]].isna().to_numpy().any():
        raise ArgumentError(f"labels: an empty {' / '.join([*keys, judge])} value")
    twice = labels.duplicated([*keys, judge]).to_numpy()
    if twice.any():
        row = labels.iloc[int(np.flatnonzero(twice)[0])]
        raise ArgumentError(f"labels: judge {row[judge]!r} graded item "
                            f"{tuple(row[k] for k in keys)!r} twice; give each judge's "
                            "current grade only")
    classes = np.unique(values)
    if grades is not None:
        scale = np.unique(np.asarray(list(grades), dtype=float))
        off = ~np.isin(classes, scale)
        if off.any():
            raise GradeError(f"labels: grade {classes[off][0]:g} is not on the scale "
                             f"({', '.join(f'{g:g}' for g in scale)})")
    if len(keys) == 1:
        item_codes, item_index = pd.factorize(labels[keys[0]], sort=True)
        item_index = pd.Index(item_index, name=keys[0])
    else:
        item_codes, item_index = pd.MultiIndex.from_frame(labels[keys]).factorize(sort=True)
        item_index = item_index.set_names(keys)
    judge_codes, judge_index = pd.factorize(labels[judge], sort=True)
    return _Coded(np.asarray(item_codes), np.asarray(judge_codes),
                  np.searchsorted(classes, values), item_index,
                  pd.Index(judge_index, name=judge), classes)


def _grade_labels(classes: np.ndarray) -> list[float | int]:
    """Grade values as ints when they all are whole (the usual scale), else floats."""
    whole = bool(np.all(classes == np.round(classes)))
    return [int(c) if whole else float(c) for c in classes]


def _incidence(rows: np.ndarray, n_rows: int) -> sparse.csr_matrix:
    """The (n_rows x R) 0/1 matrix with a 1 at (rows[r], r): summing per row by a product."""
    return sparse.csr_matrix((np.ones(len(rows)), (rows, np.arange(len(rows)))),
                             shape=(n_rows, len(rows)))


def _em(coded: _Coded, max_iter: int, tol: float
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, bool]:
    """Posteriors (items x K), confusion (judges x given x true), priors, steps, converged."""
    n_items, n_judges, k = len(coded.items), len(coded.judges), len(coded.classes)
    item, given = coded.item, coded.given
    group = coded.judge * k + given  # the (judge, grade given) of each label
    per_item = _incidence(item, n_items)
    per_group = _incidence(group, n_judges * k)
    used = np.zeros(n_judges * k, dtype=bool)
    used[group] = True
    used = used.reshape(n_judges, k)
    n_labels = len(item)

    def m_step(posterior: np.ndarray) -> np.ndarray:
        counts = np.asarray(per_group @ posterior[item]).reshape(n_judges, k, k)
        counts = np.where(used[:, :, None], np.maximum(counts, EPS), 0.0)
        return counts / counts.sum(axis=1, keepdims=True)

    def log_given(confusion: np.ndarray) -> np.ndarray:
        """log e_w[y, c] for each label's judge w and grade y (rows), every c (columns)."""
        return np.log(confusion.reshape(n_judges * k, k)[group])

    def e_step(priors: np.ndarray, confusion: np.ndarray) -> np.ndarray:
        log_like = np.log(np.maximum(priors, EPS)) + per_item @ log_given(confusion)
        scaled = np.exp(log_like - log_like.max(axis=1, keepdims=True))
        return scaled / scaled.sum(axis=1, keepdims=True)

    def objective(posterior: np.ndarray, priors: np.ndarray, confusion: np.ndarray) -> float:
        joint = float((posterior[item] * (log_given(confusion)
                                          + np.log(np.maximum(priors, EPS)))).sum())
        clipped = np.maximum(posterior, EPS)
        return (joint - float((clipped * np.log(clipped)).sum())) / n_labels

    start = np.asarray(per_item @ np.eye(k)[given])
    posterior = start / start.sum(axis=1, keepdims=True)
    priors = posterior.mean(axis=0)
    confusion = m_step(posterior)
    previous, steps, converged = -np.inf, 0, False
    while steps < max_iter:
        steps += 1
        posterior = e_step(priors, confusion)
        priors = posterior.mean(axis=0)
        confusion = m_step(posterior)
        current = objective(posterior, priors, confusion)
        if current - previous < tol:
            converged = True
            break
        previous = current
    return posterior, confusion, priors, steps, converged


def dawid_skene(labels: pd.DataFrame, *, items: str | Sequence[str] = ITEM,
                judge: str = "judge", grade: str = "grade",
                grades: Iterable[float] | None = None,
                max_iter: int = 100, tol: float = 1e-5) -> Consensus:
    """Dawid-Skene consensus of ``labels`` (one row per item and judge; see the module doc).

    ``items`` names the column(s) that identify an item, ``judge`` and ``grade`` the others;
    ``grades``, the scale's values, adds a 0 posterior for each grade no judge gave and refuses
    grades off the scale.  ``max_iter`` and ``tol`` are crowd-kit's defaults.
    """
    if isinstance(max_iter, bool) or not isinstance(max_iter, int | np.integer) or max_iter < 1:
        raise ArgumentError(f"max_iter must be a whole number >= 1; got {max_iter!r}")
    if not isinstance(tol, int | float) or np.isnan(tol):
        raise ArgumentError(f"tol must be a number; got {tol!r}")
    coded = _code(labels, items, judge, grade, grades)
    columns = _grade_labels(coded.classes)
    scale = columns if grades is None else _grade_labels(
        np.unique(np.asarray(list(grades), dtype=float)))
    if len(coded.item) == 0:
        empty = pd.Series(dtype=float)
        return Consensus(pd.DataFrame(columns=scale, dtype=float), empty.astype(int),
                         empty, empty.astype(int), pd.DataFrame(dtype=float),
                         pd.Series(0.0, index=scale, name="prior"), 0, True)
    posterior, confusion, priors, steps, converged = _em(coded, max_iter, tol)
    true_grade = pd.Index(columns, name="grade")
    post = pd.DataFrame(posterior, index=coded.items, columns=true_grade)
    best = posterior.argmax(axis=1)
    rows = pd.MultiIndex.from_product([coded.judges, pd.Index(columns, name="given")])
    n_judges = np.bincount(coded.item, minlength=len(coded.items))
    return Consensus(
        posterior=post.reindex(columns=pd.Index(scale, name="grade"), fill_value=0.0),
        grade=pd.Series(np.asarray(columns)[best], index=coded.items, name="grade"),
        confidence=pd.Series(posterior[np.arange(len(best)), best], index=coded.items,
                             name="confidence"),
        judges=pd.Series(n_judges, index=coded.items, name="judges"),
        confusion=pd.DataFrame(confusion.reshape(-1, len(columns)), index=rows,
                               columns=true_grade),
        priors=pd.Series(priors, index=true_grade, name="prior").reindex(
            pd.Index(scale, name="grade"), fill_value=0.0),
        iterations=steps, converged=converged)


def _counts(coded: _Coded) -> np.ndarray:
    """items x grades: how many judges gave each grade."""
    counts = np.zeros((len(coded.items), len(coded.classes)))
    np.add.at(counts, (coded.item, coded.given), 1.0)
    return counts


def lower_median(labels: pd.DataFrame, *, items: str | Sequence[str] = ITEM,
                 judge: str = "judge", grade: str = "grade") -> pd.Series:
    """Per item, the ⌈n/2⌉-th smallest of its n grades (the store's ``median`` policy)."""
    coded = _code(labels, items, judge, grade, None)
    cumulative = _counts(coded).cumsum(axis=1)
    position = (cumulative[:, -1:] + 1) // 2  # 1-based rank of the lower median
    chosen = (cumulative >= position).argmax(axis=1)
    return pd.Series(np.asarray(_grade_labels(coded.classes))[chosen] if len(chosen) else [],
                     index=coded.items, name="grade")


def majority(labels: pd.DataFrame, *, items: str | Sequence[str] = ITEM,
             judge: str = "judge", grade: str = "grade") -> pd.Series:
    """Per item, the grade most of its judges gave; a tie goes to the lower grade."""
    coded = _code(labels, items, judge, grade, None)
    chosen = _counts(coded).argmax(axis=1)
    return pd.Series(np.asarray(_grade_labels(coded.classes))[chosen] if len(chosen) else [],
                     index=coded.items, name="grade")
