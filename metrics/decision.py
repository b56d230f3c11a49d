"""Is B better than A?  The mean Δ = B - A of a measure, its two uncertainties, and a verdict.

``decide(run_a, run_b, labels, "ndcg_m@10", max_grade=scale)`` returns one frozen
:class:`Decision`.  Measures: ``ndcg_m@k``, ``ndcg@k`` and ``ndcg_f@k`` (any gain and
discount).  The runs and labels are frames as :func:`metrics.evaluate` takes them; the pool,
the queries and unjudged pairs are as :mod:`metrics.judging_pool` says (every query of either
run; a pair judged when it has a grade >= 0).

**Label uncertainty** (the grades of the depth-k pool not judged yet), two ways, apart:

* *certain*: ``lower``/``upper``, the smallest and largest mean Δ over **every** completion of
  the unjudged grades (a doc in both runs' top k gets one grade).  Exact: per query, NDCG-m's
  Δ is linear in the gains (each term at its own extreme) and NDCG's Δ = (DCG_B - DCG_A) /
  IDCG is solved exactly by :func:`metrics.bounds.ratio_bounds` (the ideal depends on the
  completion); queries share no unjudged pair, so the extremes of the mean are the means of
  the per-query extremes, attained together.  Only pool pairs are completed: a doc outside both
  top k's stays unlabelled (it cannot enter the top k; it could enter NDCG's ideal, which is
  not bounded for).
* *probable*: ``p_b_better`` = P(mean Δ > 0 | labels so far) under the model of
  :mod:`metrics.grade_model` (grade distributions per rank band and side, Dirichlet prior
  learnt from the judged pairs).  NDCG-m: exact mean and variance, and P by the normal
  approximation given band distributions drawn from their posterior (``PARAMETER_DRAWS``
  seeded draws; the approximation's error bound is ``approximation_error``).
  NDCG, NDCG-f: per query, the mean and variance of Δ_q under the model by seeded Monte Carlo
  (``samples`` completions, fewer on a large pool: :func:`completions_drawn`; the ideal
  recomputed in each, with a control variate); across queries the same machinery
  with each pair's weight linearised at the query's expected ideal, w_i / E[IDCG_q], scaled so
  that the query's variance is the Monte Carlo one.  Once the pool is judged NDCG-f@k equals
  NDCG@k (no unjudged doc left in the top k), so the two share bounds and probabilities;
  only their ``observed`` figures differ.

**Query uncertainty**: the paired t-test over the queries (the one of
:func:`metrics.significance.t_test`), on the per-query Δ as they are expected once judged:
mean m = E[mean Δ], spread s_C^2 = s_E^2 + (sum_q Var Δ_q - n Var(mean Δ)) / (n - 1) (the
expected sample variance of the judged values; s_E the spread of the expected ones).  With
every pair judged it *is* :func:`~metrics.significance.t_test`.  ``threshold`` T =
t_{1-(1-c)/2, n-1} s_C / sqrt(n): the |mean Δ| the test needs at these queries.

**Verdict** at confidence c (default 0.95):

* *B better* when P(mean Δ > T) >= c, *A better* when P(mean Δ < -T) >= c: the labels make
  the paired test significant with probability c (both uncertainties resolved);
* *no difference we could detect* when P(-T <= mean Δ <= T) >= c: the labels are settled
  enough that the test will not be significant;
* *undecided* otherwise.  The certain bounds overrule the model (lower > T: B better).

With it: ``labels_needed``, about how many more judgments in the decision order (the largest
:meth:`GradeModel.value_of_judging` first; :meth:`GradeModel.variance_after`) bring the label
uncertainty to where the verdict follows if the expected mean stays; ``queries_needed``,
about how many more queries a difference of the expected size needs to be significant
(n' = (z_{1-(1-c)/2} s_C / m)^2, judged like these); ``limit``: ``labels`` while undecided,
``queries`` when no difference could be detected (more labels will not decide it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum

import numpy as np
import pandas as pd
from scipy import special

from metrics.bounds import ratio_bounds
from metrics.dcg import (
    dcg_rows,
    gain_of,
    ideal_dcg_rows,
    max_ideal_dcg,
    normalise,
    rank_discounts,
)
from metrics.errors import ArgumentError, MeasureError
from metrics.evaluate import evaluate, prepare_qrels
from metrics.grade_model import GradeModel, bands_of, fit_grade_model, n_bands
from metrics.judging_pool import JudgingPool, judging_pool
from metrics.layout import top_from_counts
from metrics.measures import Measure, parse_measure
from metrics.ndcg import resolve_max_grade
from metrics.scale import GradeScale

DECIDABLE = ("ndcg_m", "ndcg", "ndcg_f")
"""The measures a decision can be taken on (each with a cutoff)."""


class Verdict(StrEnum):
    """What the labels and queries so far say about B against A."""

    B_BETTER = "b_better"
    A_BETTER = "a_better"
    NO_DIFFERENCE = "no_difference"
    UNDECIDED = "undecided"

    @property
    def label(self) -> str:
        return _VERDICT_LABELS[self]

    @property
    def decided(self) -> bool:
        return self is not Verdict.UNDECIDED


_VERDICT_LABELS = {Verdict.B_BETTER: "decided: B better", Verdict.A_BETTER: "decided: A better",
                   Verdict.NO_DIFFERENCE: "decided: no difference we could detect",
                   Verdict.UNDECIDED: "undecided"}


class Limit(StrEnum):
    """Which uncertainty stands between the figures and a verdict of a difference."""

    LABELS = "labels"
    QUERIES = "queries"


@dataclass(frozen=True)
class Decision:
    """The verdict on mean Δ = B - A of one measure and the figures it stands on."""

    measure: str
    confidence: float
    verdict: Verdict
    queries: int
    observed: float  # mean Δ on the labels so far, unjudged as the measure treats them
    expected: float  # E[mean Δ | labels] under the model
    lower: float  # certain: the smallest mean Δ over every completion
    upper: float  # certain: the largest
    p_b_better: float  # probable: P(mean Δ > 0 | labels)
    p_a_better: float  # P(mean Δ < 0 | labels)
    approximation_error: float  # bound on the normal approximation's error of those P
    label_sd: float  # sd of mean Δ under the model
    query_sd: float  # s_C: expected spread of the per-query Δ once judged
    p_query: float  # the paired t-test's p at the expected per-query Δ
    threshold: float  # T: the |mean Δ| the test needs at these queries
    p_verdict: float  # P(the verdict's event | labels): mean Δ > T, < -T or within
    judged: int  # pool pairs judged
    unjudged: int  # pool pairs not judged yet
    labels_needed: int | None
    queries_needed: int | None
    limit: Limit | None
    per_query: pd.DataFrame = field(repr=False)  # query_id -> observed, expected, variance,
    # lower, upper, unjudged
    settings: dict[str, object] = field(default_factory=dict)

    @property
    def pool(self) -> int:
        return self.judged + self.unjudged

    def explanation(self) -> str:
        """What would move the verdict, in words."""
        if self.verdict in (Verdict.B_BETTER, Verdict.A_BETTER):
            return "both uncertainties are resolved"
        if self.limit is Limit.QUERIES:
            more = (f"about {self.queries_needed:,} more queries would detect a difference "
                    "of this size" if self.queries_needed else
                    "the runs do not differ on these queries")
            return f"more labels won't decide this; {more}"
        needed = (f"about {self.labels_needed:,} more labels would decide it"
                  if self.labels_needed is not None else "more labels would decide it")
        if self.queries_needed:
            needed += (f" (if the mean stays at {self.expected:+.4f}, about "
                       f"{self.queries_needed:,} more queries would be needed to show it)")
        return needed

    def summary(self) -> str:
        """One line: verdict, Δ, both uncertainties, what it stands on."""
        return (f"{self.measure}: {self.verdict.label} — mean Δ (B - A) {self.expected:+.4f} "
                f"[certain {self.lower:+.4f} .. {self.upper:+.4f}], P(B better) "
                f"{self.p_b_better:.3f}, paired t p = {self.p_query:.3g} over "
                f"{self.queries:,} queries, {self.judged:,} of {self.pool:,} pool pairs "
                f"judged; {self.explanation()}")

    def to_dict(self) -> dict[str, object]:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__
               if name not in ("per_query",)}
        out["verdict"] = self.verdict.value
        out["limit"] = None if self.limit is None else self.limit.value
        out["explanation"] = self.explanation()
        return out


@dataclass(frozen=True)
class MeasureSpec:
    """What the decision needs of a measure."""

    measure: Measure
    k: int
    gain: str
    discount: str
    normaliser: float | None  # NDCG-m's fixed ideal; None: the query's own (NDCG, NDCG-f)


def measure_spec(measure: str | Measure, max_grade: float | GradeScale | None) -> MeasureSpec:
    """Check that ``measure`` can be decided on and read its parameters."""
    parsed = parse_measure(measure)
    if parsed.name not in DECIDABLE or parsed.cutoff is None:
        raise MeasureError(f"a decision is taken on {', '.join(m + '@k' for m in DECIDABLE)}; "
                           f"got {parsed}")
    gain, discount = parsed.param("gain"), parsed.param("discount")
    normaliser = None
    if parsed.name == "ndcg_m":
        own = parsed.param("max_grade")
        top = own if own is not None else max_grade
        if top is None:
            raise ArgumentError(f"{parsed} needs the scale's maximum grade: pass max_grade=")
        normaliser = max_ideal_dcg(parsed.cutoff, resolve_max_grade(top), gain, discount)
    return MeasureSpec(parsed, parsed.cutoff, gain, discount, normaliser)


@dataclass(frozen=True, eq=False)
class Assessment:
    """The per-query and per-pair figures a decision and the judging order are made of."""

    spec: MeasureSpec
    model: GradeModel
    query_ids: pd.Index
    observed: np.ndarray  # (Q,)
    expected: np.ndarray  # (Q,)
    variance: np.ndarray  # (Q,) Var Δ_q under the model
    lower: np.ndarray  # (Q,)
    upper: np.ndarray  # (Q,)
    unjudged: np.ndarray  # (P_u,) indices of the unjudged pool pairs
    weights: np.ndarray  # (P_u,) each unjudged gain's weight in the query's Δ (linearised)
    bands: np.ndarray  # (P_u,)
    query: np.ndarray  # (P_u,) the pair's query
    judged: int

    @property
    def n(self) -> int:
        return len(self.query_ids)

    @property
    def mean_weights(self) -> np.ndarray:
        """Each unjudged gain's weight in the mean Δ."""
        return self.weights / self.n

    def value_of_judging(self) -> np.ndarray:
        """Expected reduction of Var(mean Δ) from judging each unjudged pair."""
        return self.model.value_of_judging(self.mean_weights, self.bands)


def assess(pool: JudgingPool, measure: str | Measure, *, prior_strength: float = 2.0,
           samples: int = 256, seed: int = 0) -> Assessment:
    """Per-query expected Δ, variance and certain bounds on ``pool`` (module doc)."""
    spec = measure_spec(measure, pool.max_grade)
    if spec.k != pool.k:
        raise ArgumentError(f"{spec.measure} needs the depth-{spec.k} pool; got depth {pool.k}")
    if pool.n_queries == 0:
        raise ArgumentError("no query to decide on: the runs have no query")
    table = np.concatenate(([0.0], rank_discounts(pool.k, spec.discount)))
    weight = table[pool.rank_b] - table[pool.rank_a]
    judged = pool.judged
    bands = bands_of(pool.rank_a, pool.rank_b)
    values = pool.values
    value_gains = gain_of(values, spec.gain)
    model = fit_grade_model(bands[judged], pool.grade[judged], values, value_gains,
                            n_bands(pool.k), prior_strength, queries=pool.query[judged])
    n = pool.n_queries
    known = np.bincount(pool.query[judged], weight[judged] * gain_of(pool.grade[judged],
                                                                     spec.gain), minlength=n)
    unjudged = np.flatnonzero(~judged)
    query, w, band = pool.query[unjudged], weight[unjudged], bands[unjudged]
    if spec.normaliser is not None:
        found = _linear(spec.normaliser, known, query, w, band, model, value_gains, n)
    else:
        found = _ratio(pool, spec, known, query, w, band, model, samples, seed)
    observed, expected, variance, lower, upper, weights = found
    return Assessment(spec, model, pool.query_ids, observed, expected, variance, lower, upper,
                      unjudged, weights, band, query, int(judged.sum()))


def _linear(normaliser: float, known: np.ndarray, query: np.ndarray, w: np.ndarray,
            band: np.ndarray, model: GradeModel, value_gains: np.ndarray, n: int
            ) -> tuple[np.ndarray, ...]:
    """NDCG-m: Δ_q = (known + sum_i w_i g_i) / normaliser, exactly linear."""
    a = w / normaliser
    observed = known / normaliser
    expected = observed + np.bincount(query, a * model.mean_gain[band], minlength=n)
    low, high = value_gains.min(), value_gains.max()
    lower = observed + np.bincount(query, np.minimum(a * low, a * high), minlength=n)
    upper = observed + np.bincount(query, np.maximum(a * low, a * high), minlength=n)
    variance = _query_variances(model, a, band, query, n)
    return observed, expected, variance, lower, upper, a


def _query_variances(model: GradeModel, a: np.ndarray, band: np.ndarray, query: np.ndarray,
                     n: int) -> np.ndarray:
    """Var Δ_q per query: the model's variance of each query's own sum."""
    size = len(model.band_counts)
    cell = query * size + band
    a1 = np.bincount(cell, a, minlength=n * size).reshape(n, size)
    a2 = np.bincount(cell, a ** 2, minlength=n * size).reshape(n, size)
    return model.variance_of_sums(a1, a2)


def _ratio(pool: JudgingPool, spec: MeasureSpec, known: np.ndarray, query: np.ndarray,
           w: np.ndarray, band: np.ndarray, model: GradeModel, samples: int, seed: int
           ) -> tuple[np.ndarray, ...]:
    """NDCG (and NDCG-f once judged): Δ_q = (known + sum_i w_i g_i) / IDCG_q(completion)."""
    n = pool.n_queries
    level_gains = gain_of(pool.levels, spec.gain)[::-1]  # descending
    label_counts = pool.label_counts()
    counts = label_counts[:, ::-1]
    assignable = pool.assignable[::-1]
    discounts = rank_discounts(pool.k, spec.discount)
    observed, _ = ratio_bounds(known, np.zeros((n, 0)), counts, level_gains, assignable,
                               discounts)
    expected, lower, upper = observed.copy(), observed.copy(), observed.copy()
    variance = np.zeros(n)
    weights = np.zeros(len(query))
    if len(query) == 0:
        return observed, expected, variance, lower, upper, weights
    per_query = np.bincount(query, minlength=n)
    order = np.argsort(query, kind="stable")
    starts = np.concatenate(([0], np.cumsum(per_query)[:-1]))
    for m in np.unique(per_query[per_query > 0]):
        rows = np.flatnonzero(per_query == m)
        take = order[starts[rows, None] + np.arange(m)[None, :]]
        lower[rows], upper[rows] = ratio_bounds(known[rows], w[take], counts[rows],
                                                level_gains, assignable, discounts)
    if samples < 1:
        raise ArgumentError(f"samples must be a positive integer; got {samples!r}")
    open_queries = np.flatnonzero(per_query > 0)
    mean, var, ideal = _sampled_moments(pool, spec, known, query, w, band, model, open_queries,
                                        samples, seed, label_counts)
    expected[open_queries], variance[open_queries] = mean, var
    expected_ideal = np.zeros(n)
    expected_ideal[open_queries] = ideal
    linear = np.divide(w, expected_ideal[query], out=np.zeros(len(w)),
                       where=expected_ideal[query] > 0)
    # scale each query's linearised weights so that its doc-level variance is the sampled one
    doc_var = np.bincount(query, linear ** 2 * model.var_gain[band], minlength=n)
    scale = np.sqrt(np.divide(variance, doc_var, out=np.zeros(n), where=doc_var > 0))
    weights = linear * scale[query]
    variance = _query_variances(model, weights, band, query, n)
    return observed, expected, variance, lower, upper, weights


_CHUNK = 1 << 19  # sampled (draw, query, level) cells held at once: a few draws at a
# time, so the temporaries stay small and warm (the stream is the same however it is cut)
_PACKED_BITS = 62  # bit fields of the sampled level counts summed in one int64
PARAMETER_DRAWS = 1000
"""Band distributions drawn from the posterior for P (the Monte Carlo error of a probability
is at most 0.5 / sqrt(1000) = 0.016)."""
_DRAWN = 1 << 21  # grades drawn in all, at most: fewer completions on a large pool (on
# 10,000 queries x 87,441 unjudged pairs, 32 completions: mean Δ's Monte Carlo sd over seeds
# 2.6e-5, against 2.3e-5 with 47 (1 << 22), both about 1/70 of its label sd 1.9e-3)
_FEWEST = 32  # completions at the least


def _grouped(query: np.ndarray) -> bool:
    """Whether the pairs come query by query already (no reordering needed)."""
    return bool(np.all(query[1:] >= query[:-1]))


def completions_drawn(samples: int, unjudged: int) -> int:
    """How many completions the Monte Carlo of NDCG's ideal draws: ``samples``, or fewer on
    a pool so large that ``samples`` x unjudged would pass about 2 million grades (never fewer
    than 32: on a large pool the error of the mean Δ over its many queries stays a small share
    of its label sd, see ``_DRAWN``)."""
    return int(min(samples, max(_FEWEST, _DRAWN // max(unjudged, 1))))


def _sampled_moments(pool: JudgingPool, spec: MeasureSpec, known: np.ndarray,
                     query: np.ndarray, w: np.ndarray, band: np.ndarray, model: GradeModel,
                     open_queries: np.ndarray, samples: int, seed: int,
                     label_counts: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and variance of Δ_q, and mean IDCG_q, over completions drawn from the model's
    predictive distributions (seeded), for the queries with an unjudged pair
    (``label_counts``: :meth:`JudgingPool.label_counts`, when the caller has it).

    The mean uses a control variate: L_q = N_q / Ī_q (Ī_q the mean sampled ideal), whose
    expectation is exact, plus the sampled mean of Δ_q - L_q; the variance is Var L_q
    (exact) plus the sampled Var(Δ_q - L_q) + 2 Cov(L_q, Δ_q - L_q).

    Vectorised over draws and queries: a uniform per (draw, unjudged pair), in the pairs'
    order (the seeded stream); its value is the number of the band's cdf steps at or below
    it; per-query sums run over the pairs grouped by query (``np.add.reduceat``).  The ideal
    needs only C_l, the docs at level l or higher (levels by descending gain): IDCG =
    sum_l (g_l - g_{l+1}) d(1..min(C_l, k)), g_L = 0; the sampled C_l of all levels are
    summed at once as one integer with a bit field per level (``bits`` wide enough for the
    query with the most unjudged pairs; a loop over levels when they do not fit in 62 bits)."""
    draws = completions_drawn(samples, len(query))
    rng = np.random.default_rng(seed)
    compact = np.full(pool.n_queries, -1)
    compact[open_queries] = np.arange(len(open_queries))
    q = compact[query]
    n_open, n_levels = len(open_queries), len(pool.levels)
    if label_counts is None:
        label_counts = pool.label_counts()
    labels = label_counts[open_queries][:, ::-1]  # highest gain first
    level_of_value = (n_levels - 1) - np.searchsorted(pool.levels, pool.values)
    gains = gain_of(pool.values, spec.gain)
    level_gains = gain_of(pool.levels, spec.gain)[::-1]
    cum = np.concatenate(([0.0], np.cumsum(rank_discounts(pool.k, spec.discount))))
    top = len(cum) - 1
    cdf = np.cumsum(model.probabilities, axis=1)
    # columns grouped by query: per-query sums are np.add.reduceat over contiguous runs
    grouped = _grouped(q)  # the pool lists its pairs query by query
    order = np.arange(len(q)) if grouped else np.argsort(q, kind="stable")
    per_query = np.bincount(q, minlength=n_open)
    starts = np.concatenate(([0], np.cumsum(per_query)[:-1]))
    thresholds = cdf[band, :-1].T.copy()  # (values - 1, P): value = #thresholds <= u
    w_sorted = w[order]
    bits = max(1, int(per_query.max()).bit_length())
    packed = bits * n_levels <= _PACKED_BITS
    # a doc at level l counts in C_j (docs at level j or higher) for every j >= l
    at_or_above = level_of_value[:, None] <= np.arange(n_levels)[None, :]  # (values, levels)
    if packed:
        code = (at_or_above.astype(np.int64) << (bits * np.arange(n_levels))).sum(axis=1)
        shifts, mask = bits * np.arange(n_levels), (1 << bits) - 1
    label_above = np.cumsum(labels, axis=1)  # (open, levels)
    # IDCG = sum_l g_l (cum[C_l] - cum[C_{l-1}]) = sum_l (g_l - g_{l+1}) cum[min(C_l, k)]
    gain_steps = level_gains - np.append(level_gains[1:], 0.0)
    constant = known[open_queries]
    numerators = np.empty((draws, n_open))
    ideals = np.empty((draws, n_open))
    step = max(1, _CHUNK // max(1, n_open * n_levels, len(query)))
    small = np.int8 if len(gains) <= 127 else np.int64  # values: 0 .. len(gains) - 1
    for first in range(0, draws, step):
        size = min(step, draws - first)
        uniform = rng.random((size, len(query)))
        value = np.zeros((size, len(query)), dtype=small)
        for cut in thresholds:
            value += (uniform >= cut).view(np.int8)
        if not grouped:
            value = np.take(value, order, axis=1)
        index = value.astype(np.intp)  # np.take is slow on int8 indices
        weighted = gains.take(index)
        weighted *= w_sorted
        numerators[first:first + size] = constant + np.add.reduceat(weighted, starts, axis=1)
        if packed:
            sums = np.add.reduceat(code.take(index), starts, axis=1)
            above = (sums[..., None] >> shifts) & mask
        else:
            above = np.stack([np.add.reduceat(at_or_above[value, level].astype(np.int64),
                                              starts, axis=1) for level in range(n_levels)],
                             axis=2)
        above += label_above
        ideals[first:first + size] = cum[np.minimum(above, top)] @ gain_steps
    delta = np.divide(numerators, ideals, out=np.zeros_like(numerators), where=ideals > 0)
    ideal = ideals.mean(axis=0)
    inverse = np.divide(1.0, ideal, out=np.zeros(n_open), where=ideal > 0)
    linear = numerators * inverse
    exact_mean = (constant + np.bincount(q, w * model.mean_gain[band], minlength=n_open)
                  ) * inverse
    exact_var = np.bincount(q, w ** 2 * model.var_gain[band], minlength=n_open) * inverse ** 2
    rest = delta - linear
    mean = exact_mean + rest.mean(axis=0)
    ddof = 1 if draws > 1 else 0
    covariance = ((linear - linear.mean(axis=0)) * (rest - rest.mean(axis=0))).sum(axis=0)
    var = exact_var + rest.var(axis=0, ddof=ddof) + 2.0 * covariance / max(draws - ddof, 1)
    return mean, np.maximum(var, 0.0), ideal


def decide_pool(pool: JudgingPool, measure: str | Measure = "ndcg_m@10", *,
                confidence: float = 0.95, prior_strength: float = 2.0, samples: int = 256,
                seed: int = 0, observed: np.ndarray | None = None,
                assessment: Assessment | None = None) -> Decision:
    """The decision on a judging pool (see the module doc); ``observed`` overrides the
    per-query observed Δ (NDCG-f's, which reads judged docs below the pool)."""
    check_confidence(confidence)
    found = assessment if assessment is not None else assess(
        pool, measure, prior_strength=prior_strength, samples=samples, seed=seed)
    return _verdict(found, confidence, samples, seed, observed)


def decide_measures(pools: Mapping[int, JudgingPool], measures: Iterable[str | Measure], *,
                    confidence: float = 0.95, prior_strength: float = 2.0, samples: int = 256,
                    seed: int = 0, observed: Mapping[str, np.ndarray] | None = None
                    ) -> tuple[Decision, ...]:
    """The decisions on several measures at once, sharing the work between them: one pool
    per cutoff (``pools``: k -> the depth-k pool) and one :class:`Assessment` per
    (cutoff, gain, discount, normaliser) — NDCG@k and NDCG-f@k are assessed alike (module
    doc), so they share their bounds and Monte Carlo.  Each decision equals
    ``decide_pool(pools[k], measure, ...)`` (``observed``: measure name -> its per-query
    observed Δ, as there)."""
    check_confidence(confidence)
    shared: dict[tuple, Assessment] = {}
    out = []
    for measure in measures:
        parsed = parse_measure(measure)
        if parsed.cutoff not in pools:
            raise ArgumentError(f"{parsed} needs the depth-{parsed.cutoff} pool; got depths "
                                f"{', '.join(str(k) for k in sorted(pools))}")
        pool = pools[parsed.cutoff]
        spec = measure_spec(parsed, pool.max_grade)
        key = (spec.k, spec.gain, spec.discount, spec.normaliser)
        if key not in shared:
            shared[key] = assess(pool, parsed, prior_strength=prior_strength,
                                 samples=samples, seed=seed)
        found = replace(shared[key], spec=spec)
        seen = None if observed is None else observed.get(str(parsed))
        out.append(_verdict(found, confidence, samples, seed, seen))
    return tuple(out)


def check_confidence(confidence: float) -> None:
    """ArgumentError unless 0.5 < ``confidence`` < 1."""
    if isinstance(confidence, bool) or not (
            isinstance(confidence, float | int) and 0.5 < confidence < 1.0):
        raise ArgumentError(f"confidence must be strictly between 0.5 and 1; got {confidence!r}")


def _verdict(found: Assessment, confidence: float, samples: int, seed: int,
             observed: np.ndarray | None) -> Decision:
    n = found.n
    alpha = 1.0 - confidence
    mean = float(found.expected.mean())
    lower, upper = float(found.lower.mean()), float(found.upper.mean())
    a, band = found.mean_weights, found.bands
    model = found.model
    label_var = float(model.variance(a, band))
    spread_expected = float(found.expected.var(ddof=1)) if n > 1 else 0.0
    extra = (float(found.variance.sum()) - n * label_var) / (n - 1) if n > 1 else 0.0
    query_sd = float(np.sqrt(spread_expected + max(extra, 0.0)))
    p_query, threshold = _paired_t(mean, query_sd, n, alpha)

    finite = threshold if np.isfinite(threshold) else 0.0
    prob = model.probability(mean, a, band, cuts=np.array([0.0, finite, -finite]),
                             samples=PARAMETER_DRAWS, seed=seed)
    p_b, p_a = float(prob.above[0]), float(prob.below[0])
    above, below = float(prob.above[1]), float(prob.below[2])
    if not np.isfinite(threshold):
        above, below = 0.0, 0.0
    # the certain bounds overrule the model
    p_b, p_a = _overrule(p_b, p_a, lower, upper, 0.0)
    above = 1.0 if lower > threshold else (0.0 if upper <= threshold else above)
    below = 1.0 if upper < -threshold else (0.0 if lower >= -threshold else below)
    within = max(0.0, 1.0 - above - below)

    if above >= confidence:
        verdict, p_verdict = Verdict.B_BETTER, above
    elif below >= confidence:
        verdict, p_verdict = Verdict.A_BETTER, below
    elif within >= confidence:
        verdict, p_verdict = Verdict.NO_DIFFERENCE, within
    else:
        verdict, p_verdict = Verdict.UNDECIDED, max(above, below, within)

    labels_needed = None
    if verdict is Verdict.UNDECIDED:
        labels_needed = _labels_needed(found, mean, threshold, confidence)
    queries_needed = None
    if verdict in (Verdict.UNDECIDED, Verdict.NO_DIFFERENCE) and abs(mean) <= threshold:
        queries_needed = _queries_needed(mean, query_sd, n, alpha)
    limit = {Verdict.UNDECIDED: Limit.LABELS, Verdict.NO_DIFFERENCE: Limit.QUERIES}.get(verdict)

    seen = found.observed if observed is None else np.asarray(observed, dtype=float)
    unjudged = np.bincount(found.query, minlength=n)
    per_query = pd.DataFrame({"observed": seen, "expected": found.expected,
                              "variance": found.variance, "lower": found.lower,
                              "upper": found.upper, "unjudged": unjudged},
                             index=found.query_ids.rename("query_id"))
    settings = {"measure": str(found.spec.measure), "model": "grade per rank band and side, "
                "Dirichlet prior (metrics.grade_model)",
                "prior_strength": model.prior_strength, "samples": samples, "seed": seed,
                "query_test": "paired t-test at the expected per-query Δ", "delta": "b - a"}
    return Decision(
        measure=str(found.spec.measure), confidence=float(confidence), verdict=verdict,
        queries=n, observed=float(seen.mean()), expected=mean, lower=lower, upper=upper,
        p_b_better=p_b, p_a_better=p_a, approximation_error=prob.error,
        label_sd=float(np.sqrt(label_var)), query_sd=query_sd, p_query=p_query,
        threshold=float(threshold), p_verdict=float(p_verdict), judged=found.judged,
        unjudged=len(found.unjudged), labels_needed=labels_needed,
        queries_needed=queries_needed, limit=limit, per_query=per_query, settings=settings)


def _overrule(p_above: float, p_below: float, lower: float, upper: float, cut: float
              ) -> tuple[float, float]:
    if lower > cut:
        return 1.0, 0.0
    if upper < cut:
        return 0.0, 1.0
    if lower == upper == cut:
        return 0.0, 0.0
    return p_above, p_below


def _paired_t(mean: float, sd: float, n: int, alpha: float) -> tuple[float, float]:
    """(p, T) of the paired t-test at mean Δ ``mean`` and spread ``sd`` over n queries, with
    :func:`metrics.significance.t_test`'s conventions (n = 1: p = 1; no spread: p = 1 when
    the mean is 0, else 0)."""
    if n < 2:
        return 1.0, float("inf")
    if sd <= 1e-15:
        return (1.0 if abs(mean) <= 1e-15 else 0.0), 0.0
    se = sd / np.sqrt(n)
    # Student's t sf and ppf as scipy.stats.t computes them (special.stdtr, stdtrit), without
    # loading scipy.stats (about half a second of start-up for ``sxs decide``)
    p = float(2.0 * special.stdtr(n - 1, -(abs(mean) / se)))
    return p, float(special.stdtrit(n - 1, 1.0 - alpha / 2.0) * se)


def _labels_needed(found: Assessment, mean: float, threshold: float, confidence: float
                   ) -> int:
    """Judgments in the decision order until, if the mean stays, one verdict reaches the
    confidence (the normal approximation; the value of each judgment added up)."""
    order = np.argsort(-found.value_of_judging(), kind="stable")
    sd = np.sqrt(found.model.variance_after(found.mean_weights, found.bands, order))
    cut = threshold if np.isfinite(threshold) else np.inf
    with np.errstate(divide="ignore", invalid="ignore"):
        above = special.ndtr(np.where(sd > 0, (mean - cut) / sd, np.sign(mean - cut) * np.inf))
        below = special.ndtr(np.where(sd > 0, (-cut - mean) / sd,
                                      np.sign(-cut - mean) * np.inf))
    enough = np.maximum.reduce([above, below, 1.0 - above - below]) >= confidence
    hits = np.flatnonzero(enough)
    return int(hits[0]) if len(hits) else len(order)


def _queries_needed(mean: float, sd: float, n: int, alpha: float) -> int | None:
    if abs(mean) <= 1e-15:
        return None
    total = int(np.ceil((special.ndtri(1.0 - alpha / 2.0) * sd / abs(mean)) ** 2))
    return max(total - n, 1)


def decide(run_a: pd.DataFrame, run_b: pd.DataFrame, labels: pd.DataFrame | None,
           measure: str | Measure = "ndcg_m@10", *, max_grade: float | GradeScale,
           grades: Iterable[float] | None = None, confidence: float = 0.95,
           prior_strength: float = 2.0, samples: int = 256, seed: int = 0,
           queries: Iterable[object] | None = None) -> Decision:
    """Decide whether ``run_b`` beats ``run_a`` on ``measure`` with the ``labels`` so far.

    ``labels``: query_id, doc_id, grade (None: none yet).  ``max_grade``: the scale (or its
    maximum grade); the grades an unjudged doc may take are its values, or ``grades``.
    ``samples``/``seed``: the Monte Carlo of NDCG's and NDCG-f's ideal (NDCG-m needs none).
    See the module doc for what each figure means.
    """
    check_confidence(confidence)
    spec = measure_spec(measure, max_grade)
    pool = judging_pool(run_a, run_b, labels, spec.k, max_grade, grades=grades,
                        queries=queries)
    observed = None
    if spec.measure.name == "ndcg_f":
        whole = all(len(run) == int((rank > 0).sum())
                    for run, rank in ((run_a, pool.rank_a), (run_b, pool.rank_b)))
        # every ranked doc is in the pool: it holds all NDCG-f reads; else evaluate the runs
        observed = (pool_observed_delta(pool, spec.measure) if whole else observed_delta(
            run_a, run_b, labels, spec.measure, max_grade, pool.query_ids))
    return decide_pool(pool, spec.measure, confidence=confidence,
                       prior_strength=prior_strength, samples=samples, seed=seed,
                       observed=observed)


def observed_delta(run_a: pd.DataFrame, run_b: pd.DataFrame, labels: pd.DataFrame | None,
              measure: Measure, max_grade: float | GradeScale, query_ids: pd.Index
              ) -> np.ndarray:
    """Per-query Δ of ``measure`` on the labels so far, as :func:`metrics.evaluate` scores
    it (0 for a query with no label)."""
    if labels is None or len(labels) == 0:
        return np.zeros(len(query_ids))
    prepared = prepare_qrels(labels, run_a, run_b)
    name = str(measure)
    values = [evaluate(run, prepared, [measure], max_grade=max_grade).per_query[name]
              .reindex(query_ids, fill_value=0.0).to_numpy(dtype=float)
              for run in (run_a, run_b)]
    return values[1] - values[0]


def pool_observed_delta(pool: JudgingPool, measure: str | Measure) -> np.ndarray:
    """Per-query Δ of NDCG-f@k (``measure``, k the pool's depth) on the pool's labels, as
    :func:`observed_delta` gives it on the two runs' top k (the runs the pool was built
    from, cut at k) and the labels — from the pool's arrays, without evaluating the runs.

    Per run, NDCG-f@k's condensed list is the run's judged pool pairs (grade >= 0) in rank
    order, at positions 1, 2, ... (its top k holds every doc the list can reach); the ideal is
    the query's labels (:meth:`JudgingPool.label_counts`: the pool's and the others') in
    descending order; both through :func:`metrics.dcg.dcg_rows` and
    :func:`~metrics.dcg.normalise`, as :func:`metrics.evaluate` computes them (0 for a query
    with no positive label, or that a run does not answer)."""
    spec = measure_spec(measure, pool.max_grade)
    if spec.measure.name != "ndcg_f" or spec.k != pool.k:
        raise ArgumentError(f"the pool's observed Δ is NDCG-f@{pool.k}'s; got {spec.measure}")
    k, n = pool.k, pool.n_queries
    ideal = ideal_dcg_rows(top_from_counts(pool.label_counts(), pool.levels, k), k,
                           spec.gain, spec.discount)
    judged = pool.judged
    values = []
    for rank in (pool.rank_a, pool.rank_b):
        on = np.flatnonzero((rank > 0) & judged)
        # the judged grades by query and rank (a query's ranks are distinct), then each
        # one's position in its query's list: the judged ones above it
        present = np.zeros((n, k + 1), dtype=bool)
        present[pool.query[on], rank[on]] = True
        slot = np.cumsum(present, axis=1)[pool.query[on], rank[on]] - 1
        condensed = np.full((n, k), np.nan)
        condensed[pool.query[on], slot] = pool.grade[on]
        values.append(normalise(dcg_rows(condensed, k, spec.gain, spec.discount), ideal))
    return values[1] - values[0]


def vote_values(found: Assessment) -> pd.Series:
    """How much an expert's vote on each query can move the decision, in [0, 1], by query id.

    A vote is an expert's reading of the sign of the query's Δ_q = B - A; it tells most where
    the labels leave that sign most in doubt.  The value is

        v_q = 2 min(P(Δ_q > 0), P(Δ_q < 0)) = 1 - |P(Δ_q > 0) - P(Δ_q < 0)| - P(Δ_q = 0)

    under the decision model (:func:`assess`): P(Δ_q > 0) = Φ(E[Δ_q] / sd(Δ_q)), the normal
    approximation of the query's label uncertainty.  1: a coin flip (no label decides the
    query); 0: the sign is settled — the certain bounds exclude 0 (lower > 0 or upper < 0),
    or nothing is unjudged (variance 0) so Δ_q is known, a tie included (Δ_q = 0: the labels
    say the runs are level there and a vote cannot move the labels' decision).
    """
    sd = np.sqrt(np.maximum(found.variance, 0.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(sd > 0, found.expected / sd, np.sign(found.expected) * np.inf)
    above = np.where(sd > 0, special.ndtr(z), (found.expected > 0).astype(float))
    below = np.where(sd > 0, 1.0 - above, (found.expected < 0).astype(float))
    above = np.where(found.lower > 0, 1.0, np.where(found.upper < 0, 0.0, above))
    below = np.where(found.upper < 0, 1.0, np.where(found.lower > 0, 0.0, below))
    return pd.Series(2.0 * np.minimum(above, below), index=found.query_ids.rename("query_id"),
                     name="value")
