"""The model of the grades not judged yet, which the decision's *probable* figure stands on.

Model (stated; it is a model, not a fact):

* Each pool pair falls in a **band**: the best rank the two runs give it, in the bands
  1, 2-3, 4-7, 8-15, ... (⌊log2 r⌋), crossed with **who retrieves it**: both runs, A only or
  B only.  The bands treat A and B alike, so the model favours neither run before a label is
  in; but docs only B retrieves may turn out better than docs only A retrieves, and the model
  learns that from the labels.
* Within a band, the unjudged grades are exchangeable draws from the band's grade
  distribution p_b (categorical over the values an unjudged doc may take).  Nothing else
  about the doc or its query is used: a query with many good docs is not told apart.
* Prior, hierarchical: p_0 ~ Dirichlet(1 + n_0) is the distribution of every judged pool
  grade (n_0 their counts per value), and p_b | p_0 ~ Dirichlet(s p_0 + n_b), n_b the judged
  counts in band b, s the prior strength (``prior_strength``, default 2 pseudo-labels).  A band
  with no label yet predicts like the whole pool, a band with many labels like itself.
* Judged grades that are not among the values an unjudged doc may take (say 2.5 on a 0-3
  scale) do not count in n.
* Labels of one query are alike (a query with many good docs has them in every band), so
  the counts n_0 and n_b are divided by the design effect 1 + (m - 1) ICC (Kish), the
  intra-query correlation of the judged gains estimated by one-way ANOVA, m the labels per
  query: twenty labels from four queries are not worth twenty independent ones.

Known limit: the query itself is not in the model.  An unjudged doc of a query whose judged
docs are all good is predicted like any doc of its band; the design effect widens the
uncertainty for that in aggregate, it does not move the query's own prediction.  Measured on
simulated pairs whose queries differ widely (tests/metrics/simulated_pairs.py), the verdicts
stay within their confidence (tests/metrics/test_decision.py prints the rates).

What is computed from it, for a linear combination X = sum_i a_i g(grade_i) of the gains of the
unjudged pairs i (the decision's mean Δ, exactly for NDCG-m):

* E[X] = sum_i a_i mu_b(i), mu_b = gain' E[p_b], E[p_b] = (s p̂_0 + n_b) / (s + |n_b|),
  p̂_0 = E[p_0];
* Var X = sum_b [V_b A2_b + C_b (A1_b^2 - A2_b)] + W_0 [(sum_b λ_b A1_b)^2 - sum_b λ_b^2 A1_b^2]
  with A1_b = sum_{i in b} a_i, A2_b = sum_{i in b} a_i^2, V_b the gain's variance under
  E[p_b] (one doc's predictive variance), λ_b = s / (s + |n_b|), W_0 = Var(gain' p_0) =
  Var_{p̂_0}(gain) / (|1 + n_0| + 1) and C_b = Cov(g_i, g_j), i != j in b, = Var(gain' p_b) =
  (V_b - λ_b^2 W_0) / (s + |n_b| + 1) + λ_b^2 W_0 (Dirichlet moments, exact for this model);
* Cov(X, g_i) = a_i (V_b - C_b) + A1_b C_b + λ_b W_0 (sum_b' λ_b' A1_b' - λ_b A1_b): the
  expected reduction of Var X from learning g_i is Cov(X, g_i)^2 / V_b (the linear-Gaussian
  update): the judging order's value of a pair;
* P(X > 0) = E over (p_0, p_b) drawn from the posterior of Φ(E[X | p] / sd(X | p)): given
  the band distributions the grades are independent, and X is close to normal (its error is
  at most the Berry-Esseen bound 0.56 sum_i |a_i|^3 E|g_i - E g_i|^3 / sd^3, Shevtsova 2010,
  averaged over the draws: :attr:`Probability.error`).  The draws are seeded.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy import special

from metrics.errors import ArgumentError

SIDES = ("both", "a_only", "b_only")
BERRY_ESSEEN = 0.56  # Shevtsova (2010): sup |F - Φ| <= 0.56 sum E|X_i|^3 / sd^3, any summands


def n_bands(k: int) -> int:
    """How many bands a depth-k pool has: rank bands ⌊log2 r⌋ for r <= k, times the sides."""
    return (int(np.floor(np.log2(k))) + 1) * len(SIDES)


def bands_of(rank_a: np.ndarray, rank_b: np.ndarray) -> np.ndarray:
    """The band of each pair from its 1-based ranks (0: not in that run's top k)."""
    rank_a, rank_b = np.asarray(rank_a), np.asarray(rank_b)
    best = np.where(rank_a == 0, rank_b, np.where(rank_b == 0, rank_a,
                                                  np.minimum(rank_a, rank_b)))
    side = np.where((rank_a > 0) & (rank_b > 0), 0, np.where(rank_b == 0, 1, 2))
    return np.floor(np.log2(np.maximum(best, 1))).astype(np.int64) * len(SIDES) + side


@dataclass(frozen=True)
class Probability:
    """P(X > cut) and P(X < cut) for each cut under the model, and the normal approximation's
    error bound."""

    above: np.ndarray
    below: np.ndarray
    error: float  # mean Berry-Esseen bound over the draws (0 for a sum with no unjudged term)


@dataclass(frozen=True, eq=False)
class GradeModel:
    """The fitted model: values an unjudged doc may take, their gains, and the counts."""

    values: np.ndarray  # (G,) ascending
    gains: np.ndarray  # (G,)
    global_counts: np.ndarray  # (G,) n_0: judged pool grades per value
    band_counts: np.ndarray  # (bands, G) n_b
    prior_strength: float

    @cached_property
    def global_alpha(self) -> np.ndarray:
        return 1.0 + self.global_counts

    @cached_property
    def global_mean(self) -> np.ndarray:
        return self.global_alpha / self.global_alpha.sum()

    @cached_property
    def band_alpha(self) -> np.ndarray:
        return self.prior_strength * self.global_mean + self.band_counts

    @cached_property
    def probabilities(self) -> np.ndarray:
        """(bands, G) E[p_b]: the predictive distribution of an unjudged grade per band."""
        return self.band_alpha / self.band_alpha.sum(axis=1, keepdims=True)

    @cached_property
    def mean_gain(self) -> np.ndarray:
        return self.probabilities @ self.gains

    @cached_property
    def var_gain(self) -> np.ndarray:
        """V_b: the variance of one unjudged doc's gain."""
        return np.maximum(self.probabilities @ self.gains ** 2 - self.mean_gain ** 2, 0.0)

    @cached_property
    def shrink(self) -> np.ndarray:
        """λ_b = s / (s + |n_b|): the weight of the pool-wide distribution in band b."""
        return self.prior_strength / (self.prior_strength + self.band_counts.sum(axis=1))

    @cached_property
    def global_var(self) -> float:
        """W_0 = Var(gain' p_0)."""
        p = self.global_mean
        spread = p @ self.gains ** 2 - (p @ self.gains) ** 2
        return float(max(spread, 0.0) / (self.global_alpha.sum() + 1.0))

    @cached_property
    def band_cov(self) -> np.ndarray:
        """C_b = Var(gain' p_b): the covariance of two unjudged gains in band b."""
        lam2w = self.shrink ** 2 * self.global_var
        alpha0 = self.band_alpha.sum(axis=1)
        return np.maximum(self.var_gain - lam2w, 0.0) / (alpha0 + 1.0) + lam2w

    # -- sums X = sum_i a_i g_i ---------------------------------------------------------
    def mean(self, weights: np.ndarray, bands: np.ndarray) -> float:
        return float(np.dot(weights, self.mean_gain[bands]))

    def band_sums(self, weights: np.ndarray, bands: np.ndarray) -> tuple[np.ndarray, ...]:
        """(A1_b, A2_b, A3_b): sums of a, a^2 and |a|^3 per band."""
        size = len(self.band_counts)
        return (np.bincount(bands, weights, minlength=size),
                np.bincount(bands, weights ** 2, minlength=size),
                np.bincount(bands, np.abs(weights) ** 3, minlength=size))

    def variance(self, weights: np.ndarray, bands: np.ndarray) -> float:
        a1, a2, _ = self.band_sums(weights, bands)
        return self.variance_of_sums(a1, a2)

    def variance_of_sums(self, a1: np.ndarray, a2: np.ndarray) -> float:
        """Var X from the band sums (see the module doc); the last axis is the band."""
        lam = self.shrink
        own = (self.var_gain * a2 + self.band_cov * (a1 ** 2 - a2)).sum(axis=-1)
        shared = self.global_var * ((a1 * lam).sum(axis=-1) ** 2 - (a1 ** 2 * lam ** 2).sum(-1))
        return np.maximum(own + shared, 0.0)

    def covariances(self, weights: np.ndarray, bands: np.ndarray) -> np.ndarray:
        """Cov(X, g_i) of each term i (the judging order's ingredient)."""
        a1, _, _ = self.band_sums(weights, bands)
        lam = self.shrink
        total = float((lam * a1).sum())
        return (weights * (self.var_gain - self.band_cov)[bands] + a1[bands] * self.band_cov[bands]
                + lam[bands] * self.global_var * (total - lam[bands] * a1[bands]))

    def value_of_judging(self, weights: np.ndarray, bands: np.ndarray) -> np.ndarray:
        """Expected reduction of Var X from learning each term's grade: Cov(X, g_i)^2 / V_b."""
        var = self.var_gain[bands]
        cov = self.covariances(weights, bands)
        out = np.zeros(len(weights))
        np.divide(cov ** 2, var, out=out, where=var > 0)
        return out

    def variance_after(self, weights: np.ndarray, bands: np.ndarray, order: np.ndarray
                       ) -> np.ndarray:
        """Var X once the first N terms of ``order`` are judged, for N = 0 .. len(order): the
        judged terms leave the sum and join their bands' counts (each band's predictive
        distribution taken to stay as it is).  The planning figure behind "about N more
        labels"."""
        size = len(self.band_counts)
        onehot = np.zeros((len(order) + 1, size))
        line = np.arange(1, len(order) + 1)
        picked = bands[order]
        done = np.zeros_like(onehot)
        done[line, picked] = 1.0
        onehot[line, picked] = weights[order]
        a1_all, a2_all, _ = self.band_sums(weights, bands)
        a1 = a1_all - np.cumsum(onehot, axis=0)
        onehot[line, picked] = weights[order] ** 2
        a2 = np.maximum(a2_all - np.cumsum(onehot, axis=0), 0.0)
        counts = self.band_counts.sum(axis=1) + np.cumsum(done, axis=0)
        p = self.global_mean
        spread = max(float(p @ self.gains ** 2 - (p @ self.gains) ** 2), 0.0)
        w0 = spread / (self.global_alpha.sum() + np.arange(len(order) + 1) + 1.0)[:, None]
        lam = self.prior_strength / (self.prior_strength + counts)
        cov = (np.maximum(self.var_gain - lam ** 2 * w0, 0.0) / (self.prior_strength + counts
                                                                  + 1.0) + lam ** 2 * w0)
        own = (self.var_gain * a2 + cov * (a1 ** 2 - a2)).sum(axis=1)
        shared = w0[:, 0] * ((a1 * lam).sum(axis=1) ** 2 - (a1 ** 2 * lam ** 2).sum(axis=1))
        return np.maximum(own + shared, 0.0)

    def draw(self, samples: int, seed: int, bands: np.ndarray | None = None) -> np.ndarray:
        """(samples, bands, G) band distributions drawn from the posterior (p_0, then p_b),
        of every band or of ``bands`` (indices) only."""
        rng = np.random.default_rng(seed)
        counts = self.band_counts if bands is None else self.band_counts[bands]
        p0 = rng.dirichlet(self.global_alpha, size=samples)
        shape = self.prior_strength * p0[:, None, :] + counts[None, :, :]
        raw = rng.standard_gamma(np.maximum(shape, 1e-12))
        total = raw.sum(axis=2, keepdims=True)
        mean = self.probabilities if bands is None else self.probabilities[bands]
        fallback = np.broadcast_to(mean, raw.shape)
        return np.where(total > 0, raw / np.where(total > 0, total, 1.0), fallback)

    def probability(self, mean: float, weights: np.ndarray, bands: np.ndarray, *,
                    cuts: np.ndarray | tuple[float, ...] = (0.0,), samples: int = 2000,
                    seed: int = 0) -> Probability:
        """P(c + X > cut) and P(c + X < cut) for each cut, c such that E[c + X] = ``mean``, X
        the sum over ``weights`` and ``bands`` (module doc); ``samples`` seeded draws."""
        if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or samples < 1:
            raise ArgumentError(f"samples must be a positive integer; got {samples!r}")
        cuts = np.asarray(cuts, dtype=float)
        a1, a2, a3 = self.band_sums(weights, bands)
        active = np.flatnonzero(a2 > 0)  # the bands with an unjudged term
        if len(active) == 0:
            return Probability((mean > cuts).astype(float), (mean < cuts).astype(float), 0.0)
        a1, a2, a3 = a1[active], a2[active], a3[active]
        drawn = self.draw(samples, seed, active)  # (S, active bands, G)
        mu = drawn @ self.gains  # (S, active bands)
        var = np.maximum(drawn @ self.gains ** 2 - mu ** 2, 0.0)
        third = (drawn * np.abs(self.gains[None, None, :] - mu[..., None]) ** 3).sum(axis=2)
        location = mean + ((mu - self.mean_gain[active]) * a1).sum(axis=1)
        sd = np.sqrt((var * a2).sum(axis=1))
        shifted = location[:, None] - cuts[None, :]  # (S, cuts)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(sd[:, None] > 0, shifted / sd[:, None], np.sign(shifted) * np.inf)
            bound = np.where(sd > 0, BERRY_ESSEEN * (third * a3).sum(axis=1) / sd ** 3, 1.0)
        return Probability(special.ndtr(z).mean(axis=0), special.ndtr(-z).mean(axis=0),
                           float(np.minimum(bound, 1.0).mean()))


def design_effect(queries: np.ndarray, gains: np.ndarray) -> float:
    """1 + (m - 1) ICC: how many judged labels one independent label is worth when labels of
    the same query are alike (the one-way ANOVA estimate of the intra-query correlation of
    the gains, m the average labels per query; Kish's design effect).  1 with too few
    labels to tell."""
    queries = np.asarray(queries)
    if len(queries) < 3:
        return 1.0
    _, code = np.unique(queries, return_inverse=True)
    size = np.bincount(code).astype(float)
    groups = len(size)
    if groups < 2 or groups == len(queries):
        return 1.0
    mean = np.bincount(code, gains) / size
    within = float(((gains - mean[code]) ** 2).sum()) / (len(queries) - groups)
    between = float((size * (mean - gains.mean()) ** 2).sum()) / (groups - 1)
    m0 = (len(queries) - (size ** 2).sum() / len(queries)) / (groups - 1)
    if between + (m0 - 1) * within <= 0:
        return 1.0
    icc = max(0.0, (between - within) / (between + (m0 - 1) * within))
    return 1.0 + (len(queries) / groups - 1.0) * icc


def fit_grade_model(bands: np.ndarray, grades: np.ndarray, values: np.ndarray,
                    gains: np.ndarray, size: int, prior_strength: float = 2.0,
                    queries: np.ndarray | None = None) -> GradeModel:
    """The model from the judged pool pairs' bands and grades (module doc).

    ``values``: the grades an unjudged doc may take (ascending) and ``gains`` theirs;
    ``size``: the number of bands (:func:`n_bands`); ``queries``: each judged pair's query,
    to count the labels at their worth (:func:`design_effect`)."""
    if not (isinstance(prior_strength, float | int) and not isinstance(prior_strength, bool)
            and np.isfinite(prior_strength) and prior_strength > 0):
        raise ArgumentError(f"prior_strength must be a positive number; got {prior_strength!r}")
    position = np.searchsorted(values, grades)
    inside = position < len(values)
    inside[inside] = values[position[inside]] == grades[inside]
    counts = np.bincount(bands[inside] * len(values) + position[inside],
                         minlength=size * len(values)).reshape(size, len(values))
    worth = 1.0
    if queries is not None:
        worth = 1.0 / design_effect(queries[inside], np.asarray(gains)[position[inside]])
    counts = counts * worth
    return GradeModel(values=np.asarray(values, dtype=float), gains=np.asarray(gains, float),
                      global_counts=counts.sum(axis=0).astype(float),
                      band_counts=counts.astype(float), prior_strength=float(prior_strength))
