"""Agreement between judges, between experts and runs, and between metrics and experts.

* Quadratic-weighted Cohen's kappa for two judges' grades on the same items::

      kappa_w = 1 - sum_ij w_ij O_ij / sum_ij w_ij E_ij,   w_ij = (v_i - v_j)^2

  O: observed joint proportions; E: outer product of the two judges' marginals.  Undefined
  (NaN) when no items are shared or both judges always give the same single grade.
* Cohen's kappa for two judges' nominal answers (votes) on the same items::

      kappa = (p_o - p_e) / (1 - p_e),   p_e = sum_c p_a(c) p_b(c)

  p_o: share of items where they agree; p_a, p_b: each judge's share of answer c.  NaN when
  no items are shared or chance agreement is 1 (both always give the same single answer).
* Krippendorff's alpha (nominal, ordinal or interval) over any number of judges, missing
  values allowed::

      alpha = 1 - (n - 1) sum_ck o_ck d2_ck / sum_ck n_c n_k d2_ck

  o: coincidence matrix (each unit's ordered value pairs weighted 1/(m_u - 1), units with
  fewer than two values dropped); ordinal d2_ck = (sum_{g=c..k} n_g - (n_c + n_k)/2)^2.
  NaN when fewer than two pairable values or no disagreement is possible.
* Preference votes read as "B better" (+1), "A better" (-1), or neither (tie or both bad, 0)
  from the side each run was shown on.
* Expert win rate of B over A with a Wilson 95% interval and a two-sided sign test (exact
  binomial); ties and "both bad" are counted and left out of the test.
* Metric against expert: on voted queries, how often the sign of a metric's delta (B - A)
  matches the vote, and Kendall's tau-b between the delta and the vote.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from metrics.errors import ArgumentError
from metrics.layout import require_columns
from metrics.votes import Choice, preferred_runs

LEVELS = ("nominal", "ordinal", "interval")


def _numeric(grades: pd.DataFrame, what: str) -> pd.DataFrame:
    """The grades as floats; ArgumentError naming the first value that is not a number."""
    numbers = grades.apply(pd.to_numeric, errors="coerce")
    bad = numbers.isna() & grades.notna()
    if bad.to_numpy().any():
        row, column = np.argwhere(bad.to_numpy())[0]
        raise ArgumentError(f"{what}: grade {grades.iat[row, column]!r} of item "
                            f"{grades.index[row]!r}, judge {grades.columns[column]!r} "
                            "is not a number")
    return numbers.astype(float)


def weighted_kappa(a: pd.Series, b: pd.Series) -> float:
    """Quadratic-weighted Cohen's kappa of two judges' grades (aligned on their index)."""
    pairs = _numeric(pd.concat({"a": a, "b": b}, axis=1, join="inner"), "kappa").dropna()
    if pairs.empty:
        return float("nan")
    values = np.unique(pairs.to_numpy())
    index = {v: i for i, v in enumerate(values)}
    observed = np.zeros((len(values), len(values)))
    for x, y in pairs.itertuples(index=False):
        observed[index[x], index[y]] += 1
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    weights = (values[:, None] - values[None, :]) ** 2
    chance = float((weights * expected).sum())
    if chance == 0:
        return float("nan")
    return 1.0 - float((weights * observed).sum()) / chance


def cohen_kappa(a: pd.Series, b: pd.Series) -> float:
    """Cohen's (unweighted) kappa of two judges' nominal answers, aligned on their index;
    items either left out (NaN) are dropped."""
    pairs = pd.concat({"a": a, "b": b}, axis=1, join="inner").dropna()
    if pairs.empty:
        return float("nan")
    observed = float((pairs["a"] == pairs["b"]).mean())
    share_a = pairs["a"].value_counts(normalize=True)
    share_b = pairs["b"].value_counts(normalize=True)
    chance = float((share_a * share_b.reindex(share_a.index, fill_value=0.0)).sum())
    if chance >= 1.0:
        return float("nan")
    return (observed - chance) / (1.0 - chance)


def krippendorff_alpha(units: pd.DataFrame, level: str = "ordinal") -> float:
    """Krippendorff's alpha of a (units x judges) table of grades, NaN = not graded."""
    if level not in LEVELS:
        raise ArgumentError(f"level must be one of {', '.join(LEVELS)}; got {level!r}")
    table = _numeric(pd.DataFrame(units), "alpha").to_numpy(dtype=float)
    values = np.unique(table[~np.isnan(table)])
    if len(values) == 0:
        return float("nan")
    index = {v: i for i, v in enumerate(values)}
    coincidence = np.zeros((len(values), len(values)))
    for row in table:
        present = row[~np.isnan(row)]
        m = len(present)
        if m < 2:
            continue
        counts = np.zeros(len(values))
        for v in present:
            counts[index[v]] += 1
        pairs = np.outer(counts, counts) - np.diag(counts)
        coincidence += pairs / (m - 1)
    n_c = coincidence.sum(axis=1)
    n = n_c.sum()
    if n < 2:
        return float("nan")
    if level == "nominal":
        distance = 1.0 - np.eye(len(values))
    elif level == "interval":
        distance = (values[:, None] - values[None, :]) ** 2
    else:
        cumulative = np.concatenate(([0.0], np.cumsum(n_c)))
        low = np.minimum.outer(np.arange(len(values)), np.arange(len(values)))
        high = np.maximum.outer(np.arange(len(values)), np.arange(len(values)))
        between = cumulative[high + 1] - cumulative[low]
        distance = (between - (n_c[low] + n_c[high]) / 2) ** 2
    expected = float((np.outer(n_c, n_c) * distance).sum())
    if expected == 0:
        return float("nan")
    return 1.0 - (n - 1) * float((coincidence * distance).sum()) / expected


def vote_for_b(votes: pd.DataFrame) -> pd.Series:
    """+1 where B was preferred, -1 where A was, 0 for "about the same" or "both bad".

    ``votes`` has run_a, run_b, left_run (one of the two) and choice (left, right, tie,
    both_bad) per row; the run preferred is :func:`metrics.votes.preferred_run` of the row.
    """
    require_columns(votes, "votes", ("run_a", "run_b", "left_run", "choice"))
    right_run = votes["run_a"].where(votes["left_run"] == votes["run_b"], votes["run_b"])
    preferred = preferred_runs(votes["choice"], votes["left_run"], right_run, votes.index)
    outcome = np.where(preferred == votes["run_b"], 1,
                       np.where(preferred == votes["run_a"], -1, 0))
    return pd.Series(outcome, index=votes.index, name="vote")


@dataclass(frozen=True)
class WinRate:
    """Experts' preference for B over A."""

    wins_b: int
    wins_a: int
    ties: int
    both_bad: int
    rate: float  # wins_b / (wins_a + wins_b)
    ci_low: float
    ci_high: float
    p_sign: float


def win_rate(votes: pd.DataFrame, confidence: float = 0.95) -> WinRate:
    """Win rate of B with a Wilson interval and a two-sided sign test (ties excluded)."""
    outcome = vote_for_b(votes)
    wins_b, wins_a = int((outcome == 1).sum()), int((outcome == -1).sum())
    both_bad = int((votes["choice"] == Choice.BOTH_BAD).sum())
    ties = int((outcome == 0).sum()) - both_bad
    decided = wins_a + wins_b
    if decided == 0:
        return WinRate(wins_b, wins_a, ties, both_bad, float("nan"), float("nan"),
                       float("nan"), float("nan"))
    from scipy import stats  # loaded here: ``sxs decide`` needs only vote_for_b

    test = stats.binomtest(wins_b, decided, 0.5)
    interval = test.proportion_ci(confidence_level=confidence, method="wilson")
    return WinRate(wins_b, wins_a, ties, both_bad, wins_b / decided, float(interval.low),
                   float(interval.high), float(test.pvalue))


def win_rates_by_judge(votes: pd.DataFrame) -> pd.DataFrame:
    """One row per judge (and ``all``): wins, ties, rate, Wilson interval, sign-test p."""
    require_columns(votes, "votes", ("judge",))
    rows = {"all": win_rate(votes)}
    for judge, group in votes.groupby("judge", sort=True):
        rows[str(judge)] = win_rate(group)
    frame = pd.DataFrame({k: vars(v) for k, v in rows.items()}).T
    frame.index.name = "judge"
    return frame


@dataclass(frozen=True)
class MetricVsExpert:
    """How well a metric's delta (B - A) agrees with the experts' votes."""

    votes: int  # decided votes on queries the metric scores
    sign_agreement: float  # share of decided votes whose sign the delta matches
    metric_ties: int  # decided votes where the delta is 0
    kendall_tau: float  # tau-b between delta and vote (+1/0/-1), all votes
    p_tau: float


def metric_vs_expert(deltas: pd.Series, votes: pd.DataFrame) -> MetricVsExpert:
    """Agreement of per-query metric deltas (index: query_id) with the votes on them."""
    require_columns(votes, "votes", ("query_id",))
    outcome = vote_for_b(votes)
    delta = votes["query_id"].map(deltas)
    known = delta.notna()
    outcome, delta = outcome[known], delta[known].astype(float)
    decided = outcome != 0
    agree = (np.sign(delta[decided]) == outcome[decided]).sum()
    n = int(decided.sum())
    if len(outcome) >= 2 and outcome.nunique() > 1 and delta.nunique() > 1:
        from scipy import stats  # loaded here: ``sxs decide`` needs only vote_for_b

        tau = stats.kendalltau(delta, outcome)
        tau_value, p = float(tau.statistic), float(tau.pvalue)
    else:
        tau_value, p = float("nan"), float("nan")
    return MetricVsExpert(n, agree / n if n else float("nan"),
                          int((delta[decided] == 0).sum()), tau_value, p)
