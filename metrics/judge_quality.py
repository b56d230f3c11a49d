"""How far each judge can be trusted: figures per judge, each with the items it stands on, and
the named flags they raise.

Inputs are the store's frames: current expert labels (``query_id, doc_id, judge, grade``, and
``created_at`` for drift), gold items (``query_id, doc_id, grade``: the expected grade), votes
(``judge, choice, blind``; choices from :mod:`metrics.votes`) and timed judgments (``judge,
ms_spent``; a missing time is left out).  Every figure is one table indexed by judge:

* **gold accuracy** (:func:`gold_accuracy`) on the judge's gold items: the share graded exactly
  as expected and within one grade (|grade - expected| <= 1: the scales are consecutive
  integers), each with a Wilson score interval; the mean signed error (grade - expected) with
  a two-sided sign test (exact binomial, p = 1/2) of "above" against "below" — a lenient or
  strict judge;
* **agreement with the consensus** (:func:`consensus_agreement`): quadratic-weighted Cohen's
  kappa (:func:`metrics.agreement.weighted_kappa`) of the judge's grades against the consensus
  grade of the same items, the consensus made **leaving the judge out** (the other judges'
  grades only — a judge never agrees with a consensus they pulled toward themselves; items no
  other judge graded are left out).  Dawid-Skene (:func:`metrics.consensus.dawid_skene`) by
  default, or any aggregation of a label frame to one grade per item;
* **side bias** (:func:`side_bias`) in blind votes: the share of "left better" among the
  judge's left-or-right votes (ties and "both bad" left out), with a Wilson interval and a
  two-sided exact binomial test against 1/2 — which randomised sides imply whatever the runs;
  votes shown unblinded are left out (run A is then always on the left);
* **speed** (:func:`speed`): median seconds per timed judgment and the share faster than a
  floor;
* **drift** (:func:`drift`): exact gold accuracy over the judge's first and second half of gold
  answers (by ``created_at``; the first ⌊n/2⌋ form the first half), with Fisher's exact test
  (two-sided) of the 2 x 2 table.

:func:`judge_quality` joins them; :func:`flags` names what they raise, each rule stated on
:class:`Flag` with its threshold in :class:`Thresholds`.  A figure without enough items never
flags.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from enum import StrEnum

import numpy as np
import pandas as pd
from scipy import stats

from metrics.agreement import weighted_kappa
from metrics.consensus import ITEM, dawid_skene
from metrics.errors import ArgumentError, GradeError
from metrics.layout import require_columns
from metrics.votes import CHOICES, Choice

GOLD_COLUMNS = ("gold_items", "gold_exact", "gold_exact_low", "gold_exact_high",
                "gold_within_one", "gold_within_one_low", "gold_within_one_high",
                "gold_offset", "gold_above", "gold_below", "gold_offset_p")
AGREEMENT_COLUMNS = ("consensus_items", "consensus_kappa", "consensus_same")
SIDE_COLUMNS = ("blind_votes", "decided_votes", "left_votes", "left_share", "left_share_low",
                "left_share_high", "side_p")
SPEED_COLUMNS = ("timed", "median_seconds", "share_fast")
DRIFT_COLUMNS = ("drift_items", "drift_first_items", "drift_first", "drift_second_items",
                 "drift_second", "drift_p")


def wilson_interval(successes: np.ndarray | int, n: np.ndarray | int, confidence: float = 0.95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of a proportion successes / n, element-wise::

        (p + z²/2n ± z sqrt(p(1 - p)/n + z²/4n²)) / (1 + z²/n),  z = Φ⁻¹((1 + confidence)/2)

    It always contains p and stays within [0, 1]; NaN where n = 0.
    """
    if not 0 < confidence < 1:
        raise ArgumentError(f"confidence must be between 0 and 1; got {confidence!r}")
    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    if np.any(n < 0) or np.any(k < 0) or np.any(k > n):
        raise ArgumentError("a proportion needs 0 <= successes <= n")
    z = stats.norm.ppf((1 + confidence) / 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / n
        denominator = 1 + z * z / n
        centre = (p + z * z / (2 * n)) / denominator
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # exact at the ends (the formula gives 0 and 1 there, up to rounding)
    low = np.where((k == 0) & (n > 0), 0.0, np.clip(centre - half, 0.0, 1.0))
    high = np.where((k == n) & (n > 0), 1.0, np.clip(centre + half, 0.0, 1.0))
    return low, high


def _binomial_p(k: int, n: int) -> float:
    """Two-sided exact binomial test of k in n against 1/2; NaN when n = 0."""
    return float(stats.binomtest(k, n, 0.5).pvalue) if n else float("nan")


def _numbers(frame: pd.DataFrame, column: str, what: str) -> pd.Series:
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = values.isna().to_numpy()
    if bad.any():
        raise GradeError(f"{what}: {column} {frame[column].iloc[int(np.flatnonzero(bad)[0])]!r} "
                         "is not a number")
    return values.astype(float)


def _once(frame: pd.DataFrame, keys: list[str], what: str) -> None:
    twice = frame.duplicated(subset=keys).to_numpy()
    if twice.any():
        row = frame.iloc[int(np.flatnonzero(twice)[0])]
        raise ArgumentError(f"{what}: {tuple(row[k] for k in keys)!r} appears twice")


def _judge_frame(rows: dict[str, dict], columns: tuple[str, ...]) -> pd.DataFrame:
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=list(columns))
    frame.index.name = "judge"
    return frame.sort_index()


def _graded_gold(labels: pd.DataFrame, gold: pd.DataFrame, extra: tuple[str, ...] = ()
                 ) -> pd.DataFrame:
    """Each judge's labels on gold items, with ``expected`` beside ``grade``."""
    require_columns(labels, "labels", (*ITEM, "judge", "grade", *extra))
    require_columns(gold, "gold", (*ITEM, "grade"))
    _once(labels, [*ITEM, "judge"], "labels")
    _once(gold, list(ITEM), "gold")
    expected = gold[list(ITEM)].assign(expected=_numbers(gold, "grade", "gold").to_numpy())
    graded = labels[[*ITEM, "judge", *extra]].assign(
        grade=_numbers(labels, "grade", "labels").to_numpy())
    return graded.merge(expected, on=list(ITEM), how="inner")


def gold_accuracy(labels: pd.DataFrame, gold: pd.DataFrame, *, confidence: float = 0.95
                  ) -> pd.DataFrame:
    """Per judge who graded a gold item: GOLD_COLUMNS (see the module doc)."""
    graded = _graded_gold(labels, gold)
    rows = {}
    for judge, group in graded.groupby("judge", sort=True):
        error = (group["grade"] - group["expected"]).to_numpy()
        n = len(error)
        exact, near = int((error == 0).sum()), int((np.abs(error) <= 1).sum())
        above, below = int((error > 0).sum()), int((error < 0).sum())
        exact_low, exact_high = wilson_interval(exact, n, confidence)
        near_low, near_high = wilson_interval(near, n, confidence)
        rows[judge] = {"gold_items": n, "gold_exact": exact / n,
                       "gold_exact_low": float(exact_low), "gold_exact_high": float(exact_high),
                       "gold_within_one": near / n, "gold_within_one_low": float(near_low),
                       "gold_within_one_high": float(near_high),
                       "gold_offset": float(error.mean()), "gold_above": above,
                       "gold_below": below, "gold_offset_p": _binomial_p(above, above + below)}
    return _judge_frame(rows, GOLD_COLUMNS)


def _dawid_skene_grades(labels: pd.DataFrame) -> pd.Series:
    return dawid_skene(labels).grade


def consensus_agreement(labels: pd.DataFrame, *,
                        aggregate: Callable[[pd.DataFrame], pd.Series] = _dawid_skene_grades
                        ) -> pd.DataFrame:
    """Per judge: AGREEMENT_COLUMNS — the items graded by the judge and by another judge, the
    quadratic-weighted kappa of the judge's grades against the others' consensus on them
    (leave-one-out), and the share of identical grades.

    ``aggregate`` maps a label frame (``query_id, doc_id, judge, grade``) to one grade per
    item, indexed by (query_id, doc_id): Dawid-Skene's most probable grade by default, or
    :func:`metrics.consensus.lower_median` / :func:`metrics.consensus.majority`.
    """
    require_columns(labels, "labels", (*ITEM, "judge", "grade"))
    _once(labels, [*ITEM, "judge"], "labels")
    frame = labels[[*ITEM, "judge"]].assign(grade=_numbers(labels, "grade", "labels").to_numpy())
    rows = {}
    for judge, mine in frame.groupby("judge", sort=True):
        others = frame[frame["judge"] != judge]
        row = {"consensus_items": 0, "consensus_kappa": float("nan"),
               "consensus_same": float("nan")}
        if not others.empty:
            consensus = aggregate(others).astype(float)
            shared = pd.concat({"mine": mine.set_index(list(ITEM))["grade"],
                                "consensus": consensus}, axis=1, join="inner")
            if not shared.empty:
                row = {"consensus_items": len(shared),
                       "consensus_kappa": weighted_kappa(shared["mine"], shared["consensus"]),
                       "consensus_same": float((shared["mine"] == shared["consensus"]).mean())}
        rows[judge] = row
    return _judge_frame(rows, AGREEMENT_COLUMNS)


def side_bias(votes: pd.DataFrame, *, confidence: float = 0.95) -> pd.DataFrame:
    """Per judge with a blind vote: SIDE_COLUMNS (see the module doc)."""
    require_columns(votes, "votes", ("judge", "choice", "blind"))
    unknown = ~votes["choice"].isin(CHOICES)
    if unknown.to_numpy().any():
        raise ArgumentError(f"votes: choice {votes['choice'][unknown].iloc[0]!r} is not one of "
                            f"{', '.join(CHOICES)}")
    blind = votes[votes["blind"].astype(bool)]
    rows = {}
    for judge, group in blind.groupby("judge", sort=True):
        left = int((group["choice"] == Choice.LEFT).sum())
        decided = left + int((group["choice"] == Choice.RIGHT).sum())
        low, high = wilson_interval(left, decided, confidence)
        rows[judge] = {"blind_votes": len(group), "decided_votes": decided, "left_votes": left,
                       "left_share": left / decided if decided else float("nan"),
                       "left_share_low": float(low), "left_share_high": float(high),
                       "side_p": _binomial_p(left, decided)}
    return _judge_frame(rows, SIDE_COLUMNS)


def speed(timings: pd.DataFrame, *, floor_seconds: float = 2.0) -> pd.DataFrame:
    """Per judge with a timed judgment: SPEED_COLUMNS — how many were timed, their median in
    seconds, and the share taking less than ``floor_seconds``."""
    require_columns(timings, "timings", ("judge", "ms_spent"))
    if not floor_seconds >= 0:
        raise ArgumentError(f"floor_seconds must be >= 0; got {floor_seconds!r}")
    # a nullable column's missing times are NaN here (a vote not timed is no judgment's time)
    ms = pd.to_numeric(timings["ms_spent"], errors="coerce").astype(float)
    text = ms.isna() & timings["ms_spent"].notna()
    if text.to_numpy().any() or (ms < 0).to_numpy().any():
        bad = timings["ms_spent"][text | (ms < 0)].iloc[0]
        raise ArgumentError(f"timings: ms_spent {bad!r} is not a time (milliseconds >= 0)")
    seconds = pd.DataFrame({"judge": timings["judge"].to_numpy(),
                            "seconds": ms.to_numpy(dtype=float) / 1000.0}).dropna()
    rows = {}
    for judge, group in seconds.groupby("judge", sort=True):
        values = group["seconds"].to_numpy()
        rows[judge] = {"timed": len(values), "median_seconds": float(np.median(values)),
                       "share_fast": float((values < floor_seconds).mean())}
    return _judge_frame(rows, SPEED_COLUMNS)


def drift(labels: pd.DataFrame, gold: pd.DataFrame) -> pd.DataFrame:
    """Per judge who graded a gold item: DRIFT_COLUMNS (see the module doc); the halves and
    the test need at least two gold answers (else NaN)."""
    graded = _graded_gold(labels, gold, extra=("created_at",))
    rows = {}
    for judge, group in graded.groupby("judge", sort=True):
        ordered = group.sort_values("created_at", kind="stable")
        right = (ordered["grade"] == ordered["expected"]).to_numpy()
        n = len(right)
        half = n // 2
        first, second = right[:half], right[half:]
        row = {"drift_items": n, "drift_first_items": len(first),
               "drift_first": float(first.mean()) if half else float("nan"),
               "drift_second_items": len(second), "drift_second": float(second.mean()),
               "drift_p": float("nan")}
        if half:
            table = [[int(first.sum()), int((~first).sum())],
                     [int(second.sum()), int((~second).sum())]]
            row["drift_p"] = float(stats.fisher_exact(table).pvalue)
        rows[judge] = row
    return _judge_frame(rows, DRIFT_COLUMNS)


@dataclass(frozen=True)
class Thresholds:
    """When a figure flags a judge (see :class:`Flag`), and the speed floor and interval
    level the figures use."""

    min_gold: int = 10
    gold_exact_high: float = 0.5
    offset: float = 0.5
    offset_p: float = 0.01
    min_agreement_items: int = 20
    kappa: float = 0.2
    min_votes: int = 20
    side_p: float = 0.01
    floor_seconds: float = 2.0
    min_timed: int = 10
    min_drift_gold: int = 20
    drift_p: float = 0.01
    confidence: float = 0.95

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ArgumentError(f"threshold {field.name} must be a number >= 0; "
                                    f"got {value!r}")
        if not 0 < self.confidence < 1:
            raise ArgumentError(f"confidence must be between 0 and 1; got {self.confidence!r}")


class Flag(StrEnum):
    """A reason to look at a judge; the rule, with :class:`Thresholds`' names:

    * ``gold_inaccurate``: >= min_gold gold items and the Wilson upper bound of exact gold
      accuracy below gold_exact_high;
    * ``grades_high`` / ``grades_low``: >= min_gold gold items, mean signed error >= offset
      (<= -offset) and sign-test p < offset_p;
    * ``low_agreement``: >= min_agreement_items items shared with the others' consensus and
      weighted kappa below kappa;
    * ``side_bias``: >= min_votes left-or-right blind votes and binomial p < side_p;
    * ``too_fast``: >= min_timed timed judgments and median seconds below floor_seconds;
    * ``drift``: >= min_drift_gold gold items, exact accuracy lower in the second half, and
      Fisher's p < drift_p.
    """

    GOLD_INACCURATE = "gold_inaccurate"
    GRADES_HIGH = "grades_high"
    GRADES_LOW = "grades_low"
    LOW_AGREEMENT = "low_agreement"
    SIDE_BIAS = "side_bias"
    TOO_FAST = "too_fast"
    DRIFT = "drift"


FLAG_COLUMNS = ("judge", "flag", "figure", "value", "threshold", "items")


def judge_quality(labels: pd.DataFrame, *, gold: pd.DataFrame | None = None,
                  votes: pd.DataFrame | None = None, timings: pd.DataFrame | None = None,
                  thresholds: Thresholds = Thresholds(),
                  aggregate: Callable[[pd.DataFrame], pd.Series] = _dawid_skene_grades
                  ) -> pd.DataFrame:
    """Every figure per judge (one row each, judges of any input; NaN where a judge has no
    such items): agreement from ``labels``; gold accuracy and drift when ``gold`` is given
    (``labels`` then needs ``created_at``); side bias from ``votes``; speed from ``timings``.
    """
    tables = [consensus_agreement(labels, aggregate=aggregate) if len(labels)
              else _judge_frame({}, AGREEMENT_COLUMNS)]
    if gold is not None:
        tables += [gold_accuracy(labels, gold, confidence=thresholds.confidence),
                   drift(labels, gold)]
    if votes is not None:
        tables.append(side_bias(votes, confidence=thresholds.confidence))
    if timings is not None:
        tables.append(speed(timings, floor_seconds=thresholds.floor_seconds))
    return pd.concat(tables, axis=1, join="outer").sort_index().rename_axis("judge")


def flags(quality: pd.DataFrame, thresholds: Thresholds = Thresholds()) -> pd.DataFrame:
    """The flags ``quality`` (from :func:`judge_quality`, given the same ``thresholds``)
    raises: one row per judge and flag (FLAG_COLUMNS) naming the figure, its value, the
    threshold it crossed and the items it stands on, by judge then flag.  Figures absent from
    ``quality`` raise nothing."""
    t = thresholds

    def column(name: str) -> pd.Series:
        return quality[name] if name in quality else pd.Series(np.nan, index=quality.index)

    gold_n, offset, offset_p = column("gold_items"), column("gold_offset"), column("gold_offset_p")
    rules = [
        (Flag.GOLD_INACCURATE, "gold_exact_high", t.gold_exact_high, gold_n,
         (gold_n >= t.min_gold) & (column("gold_exact_high") < t.gold_exact_high)),
        (Flag.GRADES_HIGH, "gold_offset", t.offset, gold_n,
         (gold_n >= t.min_gold) & (offset >= t.offset) & (offset_p < t.offset_p)),
        (Flag.GRADES_LOW, "gold_offset", -t.offset, gold_n,
         (gold_n >= t.min_gold) & (offset <= -t.offset) & (offset_p < t.offset_p)),
        (Flag.LOW_AGREEMENT, "consensus_kappa", t.kappa, column("consensus_items"),
         (column("consensus_items") >= t.min_agreement_items)
         & (column("consensus_kappa") < t.kappa)),
        (Flag.SIDE_BIAS, "side_p", t.side_p, column("decided_votes"),
         (column("decided_votes") >= t.min_votes) & (column("side_p") < t.side_p)),
        (Flag.TOO_FAST, "median_seconds", t.floor_seconds, column("timed"),
         (column("timed") >= t.min_timed) & (column("median_seconds") < t.floor_seconds)),
        (Flag.DRIFT, "drift_p", t.drift_p, column("drift_items"),
         (column("drift_items") >= t.min_drift_gold)
         & (column("drift_second") < column("drift_first")) & (column("drift_p") < t.drift_p)),
    ]
    rows = [{"judge": judge, "flag": flag.value, "figure": figure,
             "value": float(column(figure)[judge]), "threshold": threshold,
             "items": int(items[judge])}
            for flag, figure, threshold, items, raised in rules
            for judge in quality.index[raised.fillna(False).to_numpy(dtype=bool)]]
    return (pd.DataFrame(rows, columns=list(FLAG_COLUMNS))
            .sort_values(["judge", "flag"], kind="stable").reset_index(drop=True))
