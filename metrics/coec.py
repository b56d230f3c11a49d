"""Clicks over expected clicks (COEC): click-derived grades per (query, doc).

A doc shown low on the page is clicked less whatever its worth; COEC divides the clicks a doc
received by the clicks an average doc would have received at the same positions.

* **Position-bias curve**, estimated from the log itself across every query it is given —
  rows whose ``query_id`` is missing (a query of the log that is not the dataset's) count in
  the curve and nowhere else: for each 1-based rank ``r``, ``ctr(r) = C_r / I_r`` where
  ``I_r`` counts impressions at rank ``r`` and ``C_r`` counts click events (on a doc) logged
  at rank ``r``.  Ranks without impressions have no CTR; clicks without a rank, or at a rank
  nothing was shown at, stay out of the curve (counted as ``clicks_off_curve``).  The
  settings say what the curve stood on (impressions, how many of queries outside the
  dataset, clicks).
* Per (query, doc) of the dataset (``query_id`` present) with at least one impression:
  ``impressions`` ``n``, ``clicks`` ``c`` (click events on that doc for that query, at any
  rank), ``expected_clicks``
  ``E = sum over its impressions i of ctr(rank_i)`` and ``coec = c / E``.  COEC is NaN (no
  grade) when ``n < min_impressions`` (default :data:`DEFAULT_MIN_IMPRESSIONS` = 10) or when
  ``E = 0``.  COEC 1 means "clicked as often as an average doc at those positions"; a
  pair shown at least ``min_impressions`` times where the log has clicks but never clicked
  has COEC 0 (the lowest grade).
* **Grades**: a scale with grades ``g_0 < ... < g_{m-1}`` needs ``m - 1`` ascending
  thresholds ``t``; a COEC ``x`` gets grade ``g_j`` with ``j`` the number of thresholds
  ``<= x``.  The default thresholds are geometric around 1:
  ``t_i = 2 ** (i - (m - 2) / 2)``, ``i = 0 .. m-2`` — for a 4-grade scale (ESCI)
  ``0.5, 1, 2``; for 3 grades (WANDS) ``0.707, 1.414``; for 2 grades ``1``.  So on ESCI a doc
  clicked at least twice as often as expected gets the top grade and one clicked less than
  half as often the lowest.  This is a heuristic mapping of enthusiasm onto the scale: it
  knows nothing of what the grade names mean (ESCI's Complement vs Substitute).

What counts as a click is ``click_actions`` (default: :data:`metrics.engagement.CLICK` only).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import pandas as pd

from metrics.engagement import CLICK
from metrics.layout import LayoutError
from metrics.scale import GradeScale

DEFAULT_MIN_IMPRESSIONS = 10


@dataclass(frozen=True)
class ClickJudgments:
    """The result of :func:`coec`.

    * ``pairs``: query_id, doc_id, impressions, clicks, expected_clicks, coec (NaN below the
      impression threshold or with no expected clicks), sorted by query and doc.
    * ``curve``: rank, impressions, clicks, ctr — the position-bias curve.
    * ``clicks_off_curve``: click events without a rank or at a rank with no impressions.
    * ``clicks_unshown``: click events on a (query, doc) never impressed (no expectation).
    """

    pairs: pd.DataFrame
    curve: pd.DataFrame
    clicks_off_curve: int
    clicks_unshown: int
    settings: dict[str, object]

    @property
    def graded_pairs(self) -> int:
        """Pairs with a COEC value (enough impressions, some expected clicks)."""
        return int(self.pairs["coec"].notna().sum())


def _require(frame: pd.DataFrame, what: str, columns: Sequence[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise LayoutError(f"{what} are missing column(s) {', '.join(missing)}")


def position_bias(impressions: pd.DataFrame, clicks: pd.DataFrame) -> pd.DataFrame:
    """The curve ``rank, impressions, clicks, ctr`` for every rank with an impression."""
    shown = impressions["rank"].astype("int64").value_counts()
    clicked = clicks["rank"].dropna().astype("int64").value_counts()
    curve = pd.DataFrame({"impressions": shown})
    curve["clicks"] = clicked.reindex(curve.index, fill_value=0).astype("int64")
    curve["ctr"] = curve["clicks"] / curve["impressions"]
    curve.index.name = "rank"
    return curve.sort_index().reset_index()


def coec(impressions: pd.DataFrame, events: pd.DataFrame, *,
         min_impressions: int = DEFAULT_MIN_IMPRESSIONS,
         click_actions: Sequence[str] = (CLICK,)) -> ClickJudgments:
    """COEC per (query, doc) from impressions (query_id, doc_id, rank 1-based) and events
    (query_id, doc_id, action, rank — rank may be missing).  See the module doc."""
    if isinstance(min_impressions, bool) or int(min_impressions) != min_impressions or \
            min_impressions < 1:
        raise ValueError(f"min_impressions must be a whole number >= 1; got {min_impressions!r}")
    _require(impressions, "impressions", ("query_id", "doc_id", "rank"))
    _require(events, "events", ("query_id", "doc_id", "action", "rank"))
    if impressions["rank"].isna().any():
        raise LayoutError("every impression needs a rank")
    logged = events[events["action"].isin(list(click_actions)).to_numpy()
                    & events["doc_id"].notna().to_numpy()]
    curve = position_bias(impressions, logged)
    ctr = pd.Series(curve["ctr"].to_numpy(), index=curve["rank"].to_numpy())
    on_curve = logged["rank"].isin(curve["rank"]).fillna(False).to_numpy(dtype=bool)
    clicks = logged[logged["query_id"].notna().to_numpy()]
    ours = impressions[impressions["query_id"].notna().to_numpy()]

    expected = ctr.reindex(ours["rank"].astype("int64").to_numpy()).to_numpy()
    shown = pd.DataFrame({"query_id": ours["query_id"].to_numpy(),
                          "doc_id": ours["doc_id"].to_numpy(), "expected": expected})
    pairs = (shown.groupby(["query_id", "doc_id"], sort=True, observed=True)["expected"]
             .agg(impressions="size", expected_clicks="sum"))
    click_counts = clicks.groupby(["query_id", "doc_id"], sort=False, observed=True).size()
    pairs["clicks"] = click_counts.reindex(pairs.index, fill_value=0).astype("int64")
    unshown = int(click_counts[~click_counts.index.isin(pairs.index)].sum())
    return judgments_of(pairs.reset_index(), curve, int((~on_curve).sum()), unshown,
                        min_impressions=min_impressions, click_actions=click_actions,
                        impressions_outside=len(impressions) - len(ours))


def curve_basis(curve: pd.DataFrame, impressions_outside: int = 0) -> str:
    """What the position-bias curve stood on: ``CTR by rank over 1,999 impressions of the
    log (1,200 of them of queries outside the dataset) and their 310 clicks`` — or, with no
    impression outside the dataset, ``… over the 799 impressions of the dataset's
    queries …``."""
    shown, clicked = int(curve["impressions"].sum()), int(curve["clicks"].sum())
    over = (f"{shown:,} impressions of the log ({impressions_outside:,} of them of queries "
            "outside the dataset)" if impressions_outside
            else f"the {shown:,} impressions of the dataset's queries")
    return f"CTR by rank over {over} and their {clicked:,} clicks"


def judgments_of(pairs: pd.DataFrame, curve: pd.DataFrame, clicks_off_curve: int,
                 clicks_unshown: int, *, min_impressions: int = DEFAULT_MIN_IMPRESSIONS,
                 click_actions: Sequence[str] = (CLICK,),
                 impressions_outside: int = 0) -> ClickJudgments:
    """:class:`ClickJudgments` from counted pairs (query_id, doc_id, impressions, clicks,
    expected_clicks) and the curve — what :func:`coec` counts itself, or an engine counted
    over a log too big for memory: COEC ``clicks / expected_clicks`` where there are at
    least ``min_impressions`` and some expected clicks, else NaN.  Pairs are sorted by
    query and doc, the curve by rank; ``impressions_outside`` (of the curve's impressions,
    those of queries outside the dataset) goes into the settings' :func:`curve_basis`."""
    pairs = pairs.sort_values(["query_id", "doc_id"], ignore_index=True, kind="stable")
    pairs["impressions"] = pairs["impressions"].astype("int64")
    pairs["clicks"] = pairs["clicks"].astype("int64")
    pairs["expected_clicks"] = pairs["expected_clicks"].astype(float)
    enough = (pairs["impressions"] >= min_impressions) & (pairs["expected_clicks"] > 0)
    pairs["coec"] = np.where(enough, pairs["clicks"] / pairs["expected_clicks"].where(enough, 1),
                             np.nan)
    pairs = pairs[["query_id", "doc_id", "impressions", "clicks", "expected_clicks", "coec"]]
    curve = curve.sort_values("rank", ignore_index=True)[["rank", "impressions", "clicks",
                                                          "ctr"]]
    settings = {"min_impressions": int(min_impressions), "click_actions": list(click_actions),
                "curve": curve_basis(curve, impressions_outside)}
    return ClickJudgments(pairs, curve, int(clicks_off_curve), int(clicks_unshown), settings)


def default_thresholds(scale: GradeScale) -> tuple[float, ...]:
    """``2 ** (i - (m - 2) / 2)`` for ``i = 0 .. m-2`` (m grades): 0.5, 1, 2 for ESCI."""
    m = len(scale.values)
    return tuple(float(2.0 ** (i - (m - 2) / 2)) for i in range(m - 1))


def check_thresholds(thresholds: Sequence[float], scale: GradeScale) -> tuple[float, ...]:
    """The thresholds as floats; ``ValueError`` unless there are (grades - 1) of them,
    finite, positive and strictly ascending."""
    values = tuple(float(t) for t in thresholds)
    need = len(scale.values) - 1
    if len(values) != need:
        raise ValueError(f"the scale {scale.describe()} needs {need} COEC thresholds; "
                         f"got {len(values)}")
    if not all(np.isfinite(values)) or any(t <= 0 for t in values) or \
            any(b <= a for a, b in pairwise(values)):
        raise ValueError(f"COEC thresholds must be positive and strictly ascending; "
                         f"got {list(values)}")
    return values


def coec_grades(values: pd.Series, scale: GradeScale,
                thresholds: Sequence[float] | None = None) -> pd.Series:
    """The grade (a value of ``scale``) of each COEC value; ``<NA>`` where COEC is NaN."""
    cuts = (default_thresholds(scale) if thresholds is None
            else check_thresholds(thresholds, scale))
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    known = ~np.isnan(x)
    steps = np.searchsorted(np.asarray(cuts), x[known], side="right")
    grades = np.asarray(scale.values, dtype=np.int64)[steps]
    result = pd.Series(pd.NA, index=values.index, dtype="Int64")
    result[known] = grades
    return result
