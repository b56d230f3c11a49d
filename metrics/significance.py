"""Paired significance tests on per-query values of two runs: pure, seeded functions of two
aligned arrays (same queries, same order).

* Randomization (permutation) test, two-sided, on the mean delta: each permutation flips the
  sign of every query's delta with probability 1/2 (swapping the runs' labels for that query);
  p = (1 + #{|mean*| >= |mean|}) / (1 + permutations), which is never 0 (Phipson & Smyth 2010).
* Paired t-test, two-sided: t = mean(d) / (sd(d) / sqrt(n)), d = b - a, sd with n - 1 degrees
  of freedom, against Student's t with n - 1 df (``scipy.stats.ttest_rel(b, a)``).
* Wilcoxon signed-rank test (``scipy.stats.wilcoxon``; zero deltas dropped, "wilcox" method).
* Bootstrap 95% confidence interval of the mean delta (``scipy.stats.bootstrap``, BCa).

Edge cases: fewer than 2 queries, or every delta 0, give p = 1.0 for the tests that cannot
reject and a degenerate interval [mean, mean]; the same non-zero delta on every query gives a
t-test p of 0.0; no query gives NaN everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from metrics.errors import ArgumentError


@dataclass(frozen=True)
class PairedTests:
    """All paired tests of one measure."""

    n: int
    mean_delta: float
    p_randomization: float
    p_t: float
    p_wilcoxon: float
    ci_low: float
    ci_high: float


def _aligned(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    try:
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    except (TypeError, ValueError):
        raise ArgumentError("paired tests need numbers; got values that are not") from None
    if a.shape != b.shape or a.ndim != 1:
        raise ArgumentError(f"paired tests need two aligned 1-D arrays; got {a.shape} and "
                            f"{b.shape}")
    if np.isnan(a).any() or np.isnan(b).any():
        raise ArgumentError("paired tests got NaN values: align the runs' queries first")
    return b - a


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ArgumentError(f"{name} must be a positive integer; got {value!r}")


def randomization_test(a: np.ndarray, b: np.ndarray, permutations: int = 10_000,
                       seed: int = 0) -> float:
    """Two-sided paired randomization test p-value of mean(b - a) (sign-flip permutations)."""
    delta = _aligned(a, b)
    _check_count("permutations", permutations)
    n = len(delta)
    if n == 0:
        return float("nan")
    observed = abs(delta.mean())
    if not np.any(delta):
        return 1.0
    rng = np.random.default_rng(seed)
    at_least = 0
    tolerance = 1e-12 * max(1.0, observed)
    chunk = max(1, min(permutations, 20_000_000 // n))
    done = 0
    while done < permutations:
        size = min(chunk, permutations - done)
        signs = rng.integers(0, 2, size=(size, n), dtype=np.int8) * 2 - 1
        means = np.abs(signs @ delta) / n
        at_least += int(np.count_nonzero(means >= observed - tolerance))
        done += size
    return (1 + at_least) / (1 + permutations)


def t_test(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided paired t-test p-value of b against a: ``scipy.stats.ttest_rel(b, a).pvalue``.

    With d = b - a over n queries, t = mean(d) / (sd(d) / sqrt(n)) (sd with n - 1 degrees of
    freedom) and p = 2 * P(T > |t|) for T ~ Student's t with n - 1 df.  Where scipy has no
    answer or only rounding noise, by convention:

    * n = 0: NaN;  n = 1: 1.0 (no variance to test against);
    * every |d| <= 1e-15 (no difference): 1.0 (scipy: NaN from 0 / 0);
    * otherwise, every d within 1e-15 of the first (one non-zero shift on every query, zero
      variance): 0.0 (scipy: t infinite, or enormous from rounding noise).
    """
    delta = _aligned(a, b)
    if len(delta) < 2:
        return float("nan") if len(delta) == 0 else 1.0
    if np.all(np.abs(delta) <= 1e-15):
        return 1.0
    if np.all(np.abs(delta - delta[0]) <= 1e-15):
        return 0.0
    return float(stats.ttest_rel(b, a).pvalue)


def wilcoxon_test(a: np.ndarray, b: np.ndarray) -> float:
    """Two-sided Wilcoxon signed-rank p-value (zero deltas dropped); 1.0 if all deltas are 0."""
    delta = _aligned(a, b)
    if len(delta) == 0:
        return float("nan")
    if not np.any(delta):
        return 1.0
    return float(stats.wilcoxon(delta, zero_method="wilcox").pvalue)


def bootstrap_ci(a: np.ndarray, b: np.ndarray, confidence: float = 0.95,
                 resamples: int = 10_000, seed: int = 0) -> tuple[float, float]:
    """BCa bootstrap confidence interval of mean(b - a), seeded."""
    delta = _aligned(a, b)
    _check_count("resamples", resamples)
    if isinstance(confidence, bool) or not (
            isinstance(confidence, float | int) and 0.0 < confidence < 1.0):
        raise ArgumentError(f"confidence must be strictly between 0 and 1; got {confidence!r}")
    if len(delta) == 0:
        return float("nan"), float("nan")
    if len(delta) < 2 or np.all(delta == delta[0]):
        return float(delta.mean()), float(delta.mean())
    result = stats.bootstrap((delta,), np.mean, n_resamples=resamples, batch=1000,
                             confidence_level=confidence, method="BCa",
                             rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    if not (np.isfinite(low) and np.isfinite(high)):
        result = stats.bootstrap((delta,), np.mean, n_resamples=resamples, batch=1000,
                                 confidence_level=confidence, method="percentile",
                                 rng=np.random.default_rng(seed))
        low, high = result.confidence_interval
    return float(low), float(high)


def paired_tests(a: np.ndarray, b: np.ndarray, permutations: int = 10_000, seed: int = 0
                 ) -> PairedTests:
    """Every paired test of b against a."""
    delta = _aligned(a, b)
    low, high = bootstrap_ci(a, b, resamples=permutations, seed=seed)
    return PairedTests(
        n=len(delta),
        mean_delta=float(delta.mean()) if len(delta) else float("nan"),
        p_randomization=randomization_test(a, b, permutations, seed),
        p_t=t_test(a, b),
        p_wilcoxon=wilcoxon_test(a, b),
        ci_low=low,
        ci_high=high,
    )


def mean_ci(values: np.ndarray, confidence: float = 0.95, resamples: int = 10_000,
            seed: int = 0) -> tuple[float, float, float]:
    """Mean of per-query values with its BCa bootstrap confidence interval (seeded).

    No values give NaNs; a constant sample gives the degenerate interval [mean, mean].
    """
    values = np.asarray(values, dtype=float)
    if len(values) == 0:
        return float("nan"), float("nan"), float("nan")
    zeros = np.zeros_like(values)
    low, high = bootstrap_ci(zeros, values, confidence, resamples, seed)
    return float(values.mean()), low, high
