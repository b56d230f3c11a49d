"""Inter-judge agreement: how far the judges' grades and votes agree, read from the store.

* per pair of judges (machine witnesses included, so each is scored against every expert), the
  quadratic weighted kappa over the (query, doc) items both graded
  (:func:`metrics.agreement.weighted_kappa`, equal to scikit-learn's ``cohen_kappa_score`` with
  ``weights='quadratic'``);
* Krippendorff's alpha (ordinal) over the experts' latest grades, on the items two or more
  experts graded (:func:`metrics.agreement.krippendorff_alpha`, equal to the ``krippendorff``
  package);
* on votes: the share of pairs of judges voting on the same query who chose the same outcome
  (B better, A better, neither), over the counted votes (neither stale nor an excluded
  judge's), as the dashboard counts them.

Every figure says the items it stands on.  Used by ``sxs agreement``, ``sxs compare`` and the
dashboard.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pandas as pd

from judge_app.policies import Witness, witness_of
from judge_app.store import Dataset, Store
from metrics.agreement import krippendorff_alpha, vote_for_b, weighted_kappa

KAPPA_COLUMNS = ["judge_1", "judge_2", "items", "kappa"]


@dataclass(frozen=True)
class Agreement:
    """The judges' agreement on one dataset (see the module)."""

    kappas: pd.DataFrame  # judge_1, judge_2, items, kappa
    alpha: float  # ordinal, over the experts; NaN when no item has two experts' grades
    items_multiply_judged: int  # items two or more experts graded (what alpha stands on)
    vote_agreement: float  # NaN when no two judges voted on one query
    vote_pairs: int  # pairs of judges' votes on one query (what vote_agreement stands on)

    def summary(self) -> str:
        """One line: alpha and the vote agreement with what each stands on."""
        alpha = ("no item graded by two experts" if self.items_multiply_judged == 0 else
                 f"Krippendorff's alpha (ordinal) {self.alpha:.3f} over "
                 f"{self.items_multiply_judged:,} items graded by two or more experts")
        votes = ("no query with two judges' votes" if self.vote_pairs == 0 else
                 f"votes agree on {self.vote_agreement:.1%} of {self.vote_pairs:,} pairs of "
                 "judges on one query")
        return f"inter-judge agreement: {alpha}; {votes}"


def judge_agreement(labels: pd.DataFrame) -> tuple[pd.DataFrame, float, int]:
    """Quadratic kappa per judge pair (machine witnesses included) and ordinal alpha over the
    experts' latest labels (query_id, doc_id, judge, grade), with the items alpha stands on."""
    if labels.empty:
        return pd.DataFrame(columns=KAPPA_COLUMNS), float("nan"), 0
    wide = labels.pivot_table(index=["query_id", "doc_id"], columns="judge", values="grade",
                              aggfunc="last")
    rows = []
    for first, second in itertools.combinations(sorted(wide.columns), 2):
        shared = wide[[first, second]].dropna()
        if len(shared):
            rows.append({"judge_1": first, "judge_2": second, "items": len(shared),
                         "kappa": weighted_kappa(shared[first], shared[second])})
    experts = wide[[j for j in wide.columns if witness_of(j) is Witness.EXPERT]]
    multiply = int((experts.notna().sum(axis=1) >= 2).sum())
    alpha = krippendorff_alpha(experts, "ordinal") if multiply else float("nan")
    return pd.DataFrame(rows, columns=KAPPA_COLUMNS), alpha, multiply


def vote_agreement(votes: pd.DataFrame) -> tuple[float, int]:
    """Share of pairs of judges voting on the same query who chose the same outcome, and how
    many such pairs there are."""
    if votes.empty:
        return float("nan"), 0
    outcome = votes.assign(outcome=vote_for_b(votes))
    agree = total = 0
    for _, group in outcome.groupby("query_id"):
        per_judge = group.groupby("judge")["outcome"].last()
        for x, y in itertools.combinations(per_judge.to_numpy(), 2):
            total += 1
            agree += int(x == y)
    return (agree / total if total else float("nan")), total


def agreement(store: Store, dataset: Dataset, run_a: str | None = None,
              run_b: str | None = None) -> Agreement:
    """The judges' agreement on ``dataset`` (votes: on the pair of runs when given)."""
    kappas, alpha, multiply = judge_agreement(store.current_expert_labels(dataset))
    votes = store.preferences(dataset, run_a, run_b)
    counted = votes[~votes["stale"].astype(bool) & ~votes["excluded"].astype(bool)]
    share, pairs = vote_agreement(counted)
    return Agreement(kappas, alpha, multiply, share, pairs)
