"""Analysis over the store: the label set a figure stands on, and evaluating or comparing
stored runs.  The CLI's evaluate/compare, the dashboard and the check rules all read labels
through :func:`labels_for`, so they agree on what "the labels" are.

Every figure of :func:`evaluate_report` and :func:`compare_report` names its label set:

* ``dataset``: the dataset's own judgments;
* ``filled:<basis>`` (e.g. ``filled:experts``): the judgments with the labels of ``basis``
  filling the gaps only;
* ``overridden:<basis>``: the same, but the labels of ``basis`` also replaced dataset grades
  with different ones (policies ``median``, ``latest``, ``dawid-skene``), so the figure no
  longer stands on the dataset's grades — the description says how many gaps were filled and
  how many dataset grades overridden (:class:`~judge_app.policies.ExpertShare`,
  :func:`expert_share`).

By default (:data:`BOTH`) both are computed when the basis has labels for the dataset, so the
effect of the experts' labels is seen side by side; with no such labels only ``dataset`` is,
and the report says why.  The report also counts, per run, the queries averaged and those
dropped or scored 0 (a judged query the run does not answer), and the run's queries that
have no judgment at all (never evaluated).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pandas as pd

from judge_app.errors import SxsError
from judge_app.policies import LABEL_BASES, ExpertShare, LabelPolicy, Witness, label_basis
from judge_app.services.consensus_labels import ensure_consensus
from judge_app.services.judge_standing import left_out_line
from judge_app.store import Dataset, Store
from metrics.measures import parse_measures

if TYPE_CHECKING:  # evaluate and compare load scipy.stats: imported where they run
    from metrics import Comparison, Evaluation

BOTH, FILLED, DATASET = "both", "filled", "dataset"
LABEL_CHOICES: tuple[str, ...] = (BOTH, FILLED, DATASET)
"""Which label sets a report computes: both (default), the filled set only, the dataset's only."""

MISSING_QUERIES: tuple[str, ...] = ("zero", "drop")
"""What a judged query the run does not answer does: scores 0 (trec_eval -c) or is dropped."""


def witness_basis(store: Store, dataset: Dataset, witnesses: Iterable[str],
                  choice: str = BOTH) -> str:
    """The label basis ``--witness`` asks for (:func:`~judge_app.policies.label_basis`),
    refused in one line when it cannot mean what it says:

    * with ``choice`` :data:`DATASET` (``--dataset-labels-only``): a machine witness only
      ever fills the gaps of the *filled* set, so it would change nothing;
    * a machine witness with no label in the dataset (no ``clicks:*`` or ``llm:*`` judge has
      graded anything): every figure would be named ``filled:experts+llm`` and be the
      experts' figure.
    """
    asked = [Witness(w) for w in dict.fromkeys(witnesses)]
    if not asked:
        return label_basis(())
    named = " ".join(f"--witness {w.value}" for w in asked)
    if choice == DATASET:
        raise SxsError(f"{named} counts a machine witness's labels in the filled set, but "
                       "--dataset-labels-only shows the dataset's own judgments: give one or "
                       "the other")
    present = set(store.current_expert_labels(dataset)["witness"])
    for witness in asked:
        if witness not in present:
            raise SxsError(f"--witness {witness.value}: no {witness.prefix}* judge has "
                           f"labelled anything in dataset {dataset.name!r}, so the figures "
                           f"would be the experts' alone (grade with sxs "
                           f"{'clicks' if witness is Witness.CLICKS else 'llm-judge'} grade "
                           "first)")
    return label_basis(asked)


def labels_for(store: Store, dataset: Dataset, filled: bool,
               policy: LabelPolicy | str = LabelPolicy.MEDIAN,
               basis: str = LABEL_BASES[0]) -> pd.DataFrame:
    """The dataset's judgments, or the filled label set (the labels of ``basis`` — experts
    alone unless a machine witness is asked for — under ``policy``)."""
    if filled:
        if LabelPolicy(policy) is LabelPolicy.DAWID_SKENE:
            ensure_consensus(store, dataset, basis)
        return store.filled_judgments(dataset, policy, basis)[["query_id", "doc_id", "grade"]]
    return store.judgments(dataset)[["query_id", "doc_id", "grade"]]


def expert_share(store: Store, dataset: Dataset,
                 policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                 basis: str = LABEL_BASES[0]) -> ExpertShare:
    """What the labels of ``basis`` did in the filled set under ``policy``: gaps filled and
    dataset grades overridden (:class:`~judge_app.policies.ExpertShare`); its ``name`` is the
    set's name everywhere a figure names it."""
    if LabelPolicy(policy) is LabelPolicy.DAWID_SKENE:
        ensure_consensus(store, dataset, basis)
    return store.expert_share(dataset, policy, basis)


def filled_description(size: int, share: ExpertShare) -> str:
    """``8 labels: the dataset's judgments and experts' labels; grades of experts filled 2
    gaps; overrode 1 dataset grade (policy median)``."""
    return (f"{size:,} labels: the dataset's judgments and {share.basis}' labels; "
            f"{share.describe()}")


@dataclass(frozen=True)
class LabelSet:
    """One set of labels a figure stands on: its name (``dataset``, ``filled:experts``),
    the labels (query_id, doc_id, grade) and a one-line description."""

    name: str
    qrels: pd.DataFrame
    description: str


def label_sets(store: Store, dataset: Dataset, choice: str = BOTH,
               policy: LabelPolicy | str = LabelPolicy.MEDIAN, basis: str = LABEL_BASES[0]
               ) -> tuple[list[LabelSet], list[str]]:
    """The label sets ``choice`` asks for, and notes on any left out (and why).

    Raises :class:`SxsError` when no asked-for set has a label."""
    if choice not in LABEL_CHOICES:
        raise SxsError(f"labels must be one of {', '.join(LABEL_CHOICES)}; got {choice!r}")
    policy = LabelPolicy(policy)
    own = labels_for(store, dataset, False)
    share = expert_share(store, dataset, policy, basis)
    filled = store.filled_judgments(dataset, policy, basis)
    added = int((filled["source"] != "dataset").sum())
    own_set = LabelSet(DATASET, own, f"the dataset's {len(own):,} judgments")
    filled_set = LabelSet(share.name, filled[["query_id", "doc_id", "grade"]],
                          filled_description(len(filled), share))
    notes: list[str] = []
    if choice == DATASET:
        sets = [own_set]
    elif choice == FILLED:
        sets = [filled_set]
    elif added == 0:
        sets = [own_set]
        notes.append(f"no labels from {basis} for dataset {dataset.name!r} yet: the filled "
                     "set equals the dataset's, shown once")
    elif own.empty:
        sets = [filled_set]
        notes.append(f"dataset {dataset.name!r} has no judgments of its own: only the filled "
                     "set is shown")
    else:
        sets = [own_set, filled_set]
    sets = [s for s in sets if not s.qrels.empty]
    left_out = left_out_line(store, dataset)
    if left_out and filled_set in sets:
        notes.append(left_out)
    if not sets:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    return sets, notes


def _check_missing(missing_queries: str) -> None:
    if missing_queries not in MISSING_QUERIES:
        raise SxsError(f"missing queries must be one of {', '.join(MISSING_QUERIES)}; "
                       f"got {missing_queries!r}")


def coverage_line(run: str, judged: int, not_answered: int, unlabelled: int,
                  missing_queries: str) -> str:
    """``bm25: 225 averaged, 0 dropped`` and why: what a run's mean stands on."""
    if missing_queries == "drop":
        line = (f"{run}: {judged - not_answered:,} averaged, {not_answered:,} dropped "
                "(not in the run)")
    elif not_answered:
        line = (f"{run}: {judged:,} averaged, {not_answered:,} not in the run scored 0 "
                "(--missing-queries zero)")
    else:
        line = f"{run}: {judged:,} averaged, 0 dropped"
    if unlabelled:
        line += f"; {unlabelled:,} of its queries have no judgment (not evaluated)"
    return line


def measure_lines(measures: list[str]) -> list[str]:
    """One line per measure: its k, gain and discount (every parameter)."""
    return [m.describe() for m in parse_measures(measures)]


@dataclass(frozen=True)
class EvaluationReport:
    """evaluate over one or two label sets: per (label set, run) an Evaluation."""

    label_sets: tuple[LabelSet, ...]
    results: dict[tuple[str, str], Evaluation]  # (labels, run) -> Evaluation
    measures: tuple[str, ...]
    missing_queries: str
    notes: tuple[str, ...]

    def means(self) -> pd.DataFrame:
        """One row per (run, labels), one column per measure."""
        table = pd.DataFrame({key: r.mean for key, r in self.results.items()}).T
        table.index = pd.MultiIndex.from_tuples(
            [(run, labels) for labels, run in self.results], names=["run", "labels"])
        return table.sort_index(level="run", sort_remaining=False)

    def per_query(self) -> pd.DataFrame:
        """One row per (run, labels, query), one column per measure."""
        return pd.concat({(run, labels): r.per_query
                          for (labels, run), r in self.results.items()},
                         names=["run", "labels"])

    def side_by_side(self) -> pd.DataFrame:
        """Means with one row per run and each measure's label sets in adjacent columns."""
        means = self.means()
        if len(self.label_sets) == 1:
            return means.droplevel("labels")
        wide = means.unstack("labels")
        order = [(m, s.name) for m in self.measures for s in self.label_sets]
        wide = wide[order]
        wide.columns = [f"{m} {labels}" for m, labels in order]
        return wide

    def stands_on(self) -> list[str]:
        """The lines that say what every figure stands on."""
        lines: list[str] = []
        for labels in self.label_sets:
            lines.append(f"labels: {labels.name} = {labels.description}")
            for (name, run), r in self.results.items():
                if name == labels.name:
                    s = r.settings
                    judged = int(s["queries_judged"])  # type: ignore[call-overload]
                    lines.append("  " + coverage_line(
                        run, judged, int(s["queries_not_answered"]),  # type: ignore[call-overload]
                        int(s["queries_without_labels"]),  # type: ignore[call-overload]
                        self.missing_queries) + f" ({judged:,} queries judged)")
        lines += [f"note: {n}" for n in self.notes]
        lines += [f"measure {line}" for line in measure_lines(list(self.measures))]
        return lines


def evaluate_run(store: Store, dataset: Dataset, run: str, measures: list[str],
                 filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                 basis: str = LABEL_BASES[0], missing_queries: str = "zero",
                 qrels: pd.DataFrame | None = None) -> Evaluation:
    """One run on one label set (``qrels`` if given, else the one ``filled`` names)."""
    _check_missing(missing_queries)
    if qrels is None:
        qrels = labels_for(store, dataset, filled, policy, basis)
    if qrels.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    from metrics import evaluate

    return evaluate(store.run(dataset, run), qrels, measures, max_grade=dataset.scale,
                    missing_queries=missing_queries)  # type: ignore[arg-type]


def evaluate_report(store: Store, dataset: Dataset, runs: list[str], measures: list[str],
                    labels: str = BOTH, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                    basis: str = LABEL_BASES[0], missing_queries: str = "zero"
                    ) -> EvaluationReport:
    """Evaluate ``runs`` on the label sets ``labels`` asks for (see :func:`label_sets`)."""
    _check_missing(missing_queries)
    sets, notes = label_sets(store, dataset, labels, policy, basis)
    results = {(s.name, run): evaluate_run(store, dataset, run, measures, policy=policy,
                                           basis=basis, missing_queries=missing_queries,
                                           qrels=s.qrels)
               for s in sets for run in runs}
    return EvaluationReport(tuple(sets), results, tuple(measures), missing_queries,
                            tuple(notes))


def compare_runs(store: Store, dataset: Dataset, run_a: str, run_b: str, measures: list[str],
                 filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                 permutations: int = 10_000, seed: int = 0, basis: str = LABEL_BASES[0],
                 missing_queries: str = "zero", qrels: pd.DataFrame | None = None
                 ) -> Comparison:
    """Run B against run A on one label set (``qrels`` if given, else ``filled``'s)."""
    _check_missing(missing_queries)
    if qrels is None:
        qrels = labels_for(store, dataset, filled, policy, basis)
    if qrels.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    from metrics import compare

    return compare(store.run(dataset, run_a), store.run(dataset, run_b), qrels, measures,
                   max_grade=dataset.scale, permutations=permutations, seed=seed,
                   missing_queries=missing_queries)  # type: ignore[arg-type]


@dataclass(frozen=True)
class ComparisonReport:
    """compare over one or two label sets."""

    label_sets: tuple[LabelSet, ...]
    results: dict[str, Comparison]  # labels -> Comparison
    run_a: str
    run_b: str
    measures: tuple[str, ...]
    missing_queries: str
    notes: tuple[str, ...]

    def summary(self) -> pd.DataFrame:
        """One row per (labels, measure): means, delta, p-values, CI, wins/ties/losses."""
        return pd.concat({name: r.summary for name, r in self.results.items()},
                         names=["labels"])

    def per_query(self) -> pd.DataFrame:
        """labels, query_id, measure, a, b, delta and every RBO measure's columns."""
        parts = []
        for name, result in self.results.items():
            table = result.per_query
            for measure, frame in result.rbo_frames.items():
                table = table.merge(frame.add_prefix(f"{measure}:").reset_index(),
                                    on="query_id", how="left")
            parts.append(table.assign(labels=name))
        table = pd.concat(parts, ignore_index=True)
        return table[["labels", *[c for c in table.columns if c != "labels"]]]

    def to_dict(self) -> dict[str, object]:
        """summary and rbo records each carrying ``labels``; settings; what it stands on."""
        summary, rbo = [], []
        for name, result in self.results.items():
            d = result.to_dict()
            summary += [{"labels": name, **row} for row in d["summary"]]  # type: ignore[union-attr]
            rbo += [{"labels": name, **row} for row in d["rbo"]]  # type: ignore[union-attr]
        first = next(iter(self.results.values()))
        return {"summary": summary, "rbo": rbo, "settings": first.settings,
                "stands_on": self.stands_on()}

    def stands_on(self) -> list[str]:
        lines: list[str] = []
        for labels in self.label_sets:
            s = self.results[labels.name].settings
            judged = int(s["queries_judged"])  # type: ignore[call-overload]
            lines.append(f"labels: {labels.name} = {labels.description}")
            for side, run in (("a", self.run_a), ("b", self.run_b)):
                lines.append("  " + coverage_line(
                    run, judged, s["queries_not_answered"][side],  # type: ignore[index]
                    s["queries_without_labels"][side],  # type: ignore[index]
                    self.missing_queries) + f" ({judged:,} queries judged)")
            if self.missing_queries == "drop":
                lines.append(f"  paired over the {s['queries']:,} queries both runs answer")
        lines += [f"note: {n}" for n in self.notes]
        rbo = next(iter(self.results.values())).rbo_measures
        lines += [f"measure {line}" for line in
                  measure_lines([*self.measures, *(str(m) for m in rbo
                                                   if str(m) not in self.measures)])]
        return lines

    def __str__(self) -> str:
        blocks = []
        for name, result in self.results.items():
            blocks.append(f"[{name}]\n{result}")
        return "\n\n".join(["\n".join(self.stands_on()), *blocks])


def compare_report(store: Store, dataset: Dataset, run_a: str, run_b: str,
                   measures: list[str], labels: str = BOTH,
                   policy: LabelPolicy | str = LabelPolicy.MEDIAN, permutations: int = 10_000,
                   seed: int = 0, basis: str = LABEL_BASES[0], missing_queries: str = "zero"
                   ) -> ComparisonReport:
    """Compare run B against run A on the label sets ``labels`` asks for."""
    _check_missing(missing_queries)
    sets, notes = label_sets(store, dataset, labels, policy, basis)
    results = {s.name: compare_runs(store, dataset, run_a, run_b, measures, policy=policy,
                                    permutations=permutations, seed=seed, basis=basis,
                                    missing_queries=missing_queries, qrels=s.qrels)
               for s in sets}
    return ComparisonReport(tuple(sets), results, run_a, run_b, tuple(measures),
                            missing_queries, tuple(notes))
