"""Everything the dashboard page and ``sxs report`` show, computed once from the store.

No Streamlit here: :func:`dashboard` returns plain DataFrames and values; the page draws them
with Altair, the report writes them as a self-contained HTML file.

Every figure carries the settings it was computed with (k, gain, discount, label policy, and
the label basis: ``experts``, or ``experts+llm`` when an admin opted in to the LLM's labels)
and its number of queries.  Missing values (a measure nobody can compute yet, an agreement with
no pairs) are shown as :data:`MISSING`, never as ``nan`` or ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from judge_app.measure_sets import (
    COMPARE_MEASURES,
    EVALUATE_MEASURES,
    HEALTH_MEASURE,
    OVERLAP_MEASURES,
    VERSUS_EXPERT_MEASURES,
    default_measures,
)
from judge_app.policies import LABEL_BASES, MISSING, ExpertShare, LabelPolicy
from judge_app.services.agreement import judge_agreement, vote_agreement
from judge_app.services.analysis import expert_share, labels_for
from judge_app.services.checks import CheckResult
from judge_app.services.llm_agreement import LlmAgreement, llm_agreement
from judge_app.store import Dataset, Store
from metrics import compare, evaluate
from metrics.agreement import (
    metric_vs_expert,
    win_rates_by_judge,
)
from metrics.bounds import bounds_per_query
from metrics.significance import mean_ci


@dataclass(frozen=True)
class Settings:
    """What every figure was computed with."""

    k: int = 10
    gain: str = "linear"
    discount: str = "log2"
    policy: str = LabelPolicy.MEDIAN.value
    low_ceiling: float = 0.5
    basis: str = LABEL_BASES[0]  # whose labels fill the gaps: experts, or with a machine

    def measures(self, names: tuple[str, ...] = EVALUATE_MEASURES) -> list[str]:
        """A measure set of :mod:`judge_app.measure_sets` (default: the per-run measures,
        :data:`~judge_app.measure_sets.EVALUATE_MEASURES`) at k with this gain and
        discount."""
        return default_measures(names, self.k, self.gain, self.discount)

    def stamp(self) -> str:
        return (f"k={self.k}, gain={self.gain}, discount={self.discount}, "
                f"label policy={self.policy}, labels: {self.basis}")


@dataclass(frozen=True)
class Dashboard:
    """The dashboard's content (see the module doc)."""

    dataset: str
    run_a: str
    run_b: str
    settings: Settings
    per_run: pd.DataFrame  # run, measure -> mean, ci_low, ci_high, queries
    filling: pd.DataFrame  # run, measure -> before, after, moved
    health: pd.Series  # best NDCG-m@k per query (filled labels)
    low_ceiling: pd.DataFrame  # query_id, text, best_ndcg_m
    comparison: pd.DataFrame  # measure -> mean_a, mean_b, delta, p-values, CI, W/T/L
    deltas: pd.DataFrame  # query_id, measure, delta, text (sorted for the chart)
    rbo_mean: float
    experts: pd.DataFrame  # judge -> wins, ties, rate, Wilson CI, sign-test p
    metric_vs_expert: pd.DataFrame  # measure -> votes, sign agreement, tau
    kappas: pd.DataFrame  # judge_1, judge_2, items, kappa
    alpha: float
    items_multiply_judged: int
    preference_agreement: float
    checks: list[CheckResult] = field(default_factory=list)
    llm: LlmAgreement | None = None  # each LLM judge against the experts (none: no LLM)
    stale_votes: int = 0  # votes cast on a ranking since replaced: kept, not counted
    share: ExpertShare | None = None  # what the experts' labels did: gaps filled, overrides

    def labels_name(self) -> str:
        """The name of the label set the figures stand on: ``filled:experts`` or
        ``overridden:experts`` (:class:`~judge_app.policies.ExpertShare`)."""
        return self.share.name if self.share else f"filled:{self.settings.basis}"

    def labels_line(self) -> str:
        """``labels: overridden:experts — grades of experts filled 2 gaps; overrode 1
        dataset grade (policy median)``."""
        described = f" — {self.share.describe()}" if self.share else ""
        return f"labels: {self.labels_name()}{described}"


def dashboard(store: Store, dataset: Dataset, run_a: str, run_b: str,
              settings: Settings = Settings(), checks: list[CheckResult] | None = None,
              permutations: int = 10_000) -> Dashboard:
    """Compute the dashboard for run A (baseline) against run B (candidate)."""
    k, scale = settings.k, dataset.scale
    measures = settings.measures()
    runs = {name: store.run(dataset, name) for name in (run_a, run_b)}
    before, after = (labels_for(store, dataset, filled, settings.policy, settings.basis)
                     for filled in (False, True))

    per_run, filling = [], []
    evaluated = {}
    for name, run in runs.items():
        old = evaluate(run, before, measures, max_grade=scale).per_query
        new = evaluate(run, after, measures, max_grade=scale).per_query
        evaluated[name] = new
        for measure in measures:
            mean, low, high = mean_ci(new[measure].to_numpy(), seed=0)
            per_run.append({"run": name, "measure": measure, "mean": mean, "ci_low": low,
                            "ci_high": high, "queries": int(new[measure].notna().sum())})
            filling.append({"run": name, "measure": measure, "before": old[measure].mean(),
                            "after": new[measure].mean()})
        bounds = {label: bounds_per_query(run, qrels, k, scale, gain=settings.gain,
                                          discount=settings.discount)
                  for label, qrels in (("before", before), ("after", after))}
        for side in ("lower", "upper"):
            filling.append({"run": name, "measure": f"ndcg bound {side}@{k}",
                            **{label: float(frame[side].mean()) if len(frame) else np.nan
                               for label, frame in bounds.items()}})
    filling_frame = pd.DataFrame(filling)
    result = compare(runs[run_a], runs[run_b], after, settings.measures(COMPARE_MEASURES),
                     max_grade=scale, permutations=permutations)
    rbo_before = compare(runs[run_a], runs[run_b], before, settings.measures(OVERLAP_MEASURES),
                         max_grade=scale, tests=False).rbo["ext"].mean()
    filling_frame = pd.concat([filling_frame, pd.DataFrame([{
        "run": f"{run_a} vs {run_b}", "measure": f"rbo@{k}", "before": rbo_before,
        "after": result.rbo["ext"].mean()}])], ignore_index=True)
    filling_frame["moved"] = filling_frame["after"] - filling_frame["before"]

    (health,) = settings.measures((HEALTH_MEASURE,))
    best = evaluated[run_a][health]
    texts = store.queries(dataset).set_index("query_id")["text"].to_dict()
    low = best[best < settings.low_ceiling].sort_values().rename("best_ndcg_m").reset_index()
    low["text"] = low["query_id"].map(lambda q: texts.get(q, ""))

    deltas = result.per_query.sort_values(["measure", "delta"], kind="stable")
    deltas = deltas.assign(text=deltas["query_id"].map(lambda q: texts.get(q, "")))
    every_vote = store.preferences(dataset, run_a, run_b)  # either order, oriented A/B
    votes = every_vote[~every_vote["stale"] & ~every_vote["excluded"].astype(bool)]
    experts = win_rates_by_judge(votes) if len(votes) else pd.DataFrame()
    agreement_rows = []
    for measure in settings.measures(VERSUS_EXPERT_MEASURES):
        per_query = result.per_query[result.per_query["measure"] == measure]
        found = metric_vs_expert(per_query.set_index("query_id")["delta"], votes)
        agreement_rows.append({"measure": measure, **vars(found)})
    kappas, alpha, multiply = judge_agreement(store.current_expert_labels(dataset))
    return Dashboard(
        dataset=dataset.name, run_a=run_a, run_b=run_b, settings=settings,
        per_run=pd.DataFrame(per_run), filling=filling_frame, health=best,
        low_ceiling=low[["query_id", "text", "best_ndcg_m"]], comparison=result.summary,
        deltas=deltas, rbo_mean=float(result.rbo["ext"].mean()), experts=experts,
        metric_vs_expert=pd.DataFrame(agreement_rows).set_index("measure"),
        kappas=kappas, alpha=alpha, items_multiply_judged=multiply,
        preference_agreement=vote_agreement(votes)[0], checks=checks or [],
        llm=llm_agreement(store, dataset, run_a, run_b),
        stale_votes=int(every_vote["stale"].sum()),
        share=expert_share(store, dataset, settings.policy, settings.basis))




def number(value: object, digits: int = 3) -> str:
    """A value for display: floats to ``digits`` decimals (in scientific notation when they
    would round to zero, e.g. a p-value of 3.1e-06), integers with thousands separators,
    missing values (None, NaN, NA) as :data:`MISSING`."""
    if value is None or (not isinstance(value, str) and pd.api.types.is_scalar(value)
                         and pd.isna(value)):
        return MISSING
    if isinstance(value, bool | np.bool_):
        return str(bool(value))
    if isinstance(value, int | np.integer):
        return f"{int(value):,}"
    if isinstance(value, float | np.floating):
        value = float(value)
        if value != 0 and abs(value) < 0.5 * 10 ** -digits:
            return f"{value:.1e}"
        return f"{value:.{digits}f}"
    return str(value)


def readable(frame: pd.DataFrame, digits: int = 3) -> pd.DataFrame:
    """``frame`` with every cell turned into display text by :func:`number` (index kept); a
    float column holding only whole numbers (counts that went through a NaN) shows them as
    integers."""
    shown = frame.copy().astype(object)
    for column in frame.columns:
        values = frame[column]
        whole = (pd.api.types.is_float_dtype(values) and values.notna().any()
                 and bool((values.dropna() % 1 == 0).all()))
        shown[column] = [number(int(v) if whole and pd.notna(v) else v, digits)
                         for v in values.tolist()]
    return shown


def per_run_table(board: Dashboard, digits: int = 3) -> pd.DataFrame:
    """One row per run, one column per measure ("mean [ci_low, ci_high]"), and the number of
    queries the means are over."""
    frame = board.per_run
    measures = list(dict.fromkeys(frame["measure"]))
    cells = frame.assign(cell=[
        f"{number(m, digits)} [{number(lo, digits)}, {number(hi, digits)}]"
        if pd.notna(m) else MISSING
        for m, lo, hi in zip(frame["mean"], frame["ci_low"], frame["ci_high"], strict=True)])
    wide = cells.pivot(index="run", columns="measure", values="cell")[measures]
    wide = wide.reindex(list(dict.fromkeys(frame["run"])))
    wide.insert(0, "queries", frame.groupby("run")["queries"].max().reindex(wide.index)
                .map(number))
    wide.columns.name = None
    return wide


def filling_table(board: Dashboard, digits: int = 3) -> pd.DataFrame:
    """What filling the gaps changed, one row per run (or pair), a column per measure
    ("before → after")."""
    frame = board.filling
    measures = list(dict.fromkeys(frame["measure"]))
    cells = frame.assign(cell=[f"{number(b, digits)} → {number(a, digits)}"
                               for b, a in zip(frame["before"], frame["after"], strict=True)])
    wide = cells.pivot(index="run", columns="measure", values="cell")[measures]
    wide = wide.reindex(list(dict.fromkeys(frame["run"]))).fillna(MISSING)
    wide.columns.name = None
    return wide


def delta_chart_data(board: Dashboard, measure: str) -> pd.DataFrame:
    """Per-query deltas of one measure, sorted, with their position and the query's text
    (for a bar chart)."""
    frame = board.deltas[board.deltas["measure"] == measure].sort_values("delta")
    return frame.assign(position=np.arange(len(frame)))[
        ["position", "query_id", "text", "delta"]]
