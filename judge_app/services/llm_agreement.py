"""How far each LLM judge agrees with the experts, before anyone leans on it.

For every LLM judge (``llm:<model>``) of a dataset:

* **grades** — against each expert and against the expert consensus (the lower median of the
  experts' latest grades, the ``experts`` label basis): the items both graded, quadratic
  weighted kappa (:func:`metrics.agreement.weighted_kappa`) and the share of identical grades;
* **votes** on runs A and B — against each expert and against the experts' majority (per
  query, the sign of B votes minus A votes; even is "neither"): the queries both voted on, the
  share of equal outcomes and Cohen's kappa (:func:`metrics.agreement.cohen_kappa`) over the
  outcomes B / A / neither (:func:`metrics.agreement.vote_for_b`), each judge's latest vote;
* **position bias** — the queries the LLM answered in both side orders and how many of those
  answers disagreed once put on the same sides (stored as *About the same*).

Experts and LLMs are told apart by the judge name (:func:`judge_app.policies.witness_of`).
Needs no LLM client: the dashboard and the report show these without the ``llm`` extra.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from judge_app.policies import LABEL_BASES, Witness, witness_of
from judge_app.store import Dataset, Store
from metrics.agreement import cohen_kappa, vote_for_b, weighted_kappa
from metrics.votes import preferred_runs

CONSENSUS = "expert consensus"
GRADE_COLUMNS = ["llm_judge", "versus", "items", "weighted_kappa", "same_grade"]
VOTE_COLUMNS = ["llm_judge", "versus", "queries", "agreement", "cohen_kappa"]
BIAS_COLUMNS = ["llm_judge", "queries", "conflicts", "conflict_rate"]


@dataclass(frozen=True)
class LlmAgreement:
    """The three tables (see the module doc), and the reasons given on the queries an LLM
    voted on (:func:`reasons_beside`); empty when no LLM has judged."""

    grades: pd.DataFrame
    votes: pd.DataFrame
    bias: pd.DataFrame
    reasons: pd.DataFrame

    @property
    def empty(self) -> bool:
        return self.grades.empty and self.votes.empty and self.bias.empty


def _grade_rows(llm: str, mine: pd.Series, others: dict[str, pd.Series]) -> list[dict]:
    rows = []
    for versus, theirs in others.items():
        shared = pd.concat({"a": mine, "b": theirs}, axis=1, join="inner").dropna()
        if shared.empty:
            continue
        rows.append({"llm_judge": llm, "versus": versus, "items": len(shared),
                     "weighted_kappa": weighted_kappa(shared["a"], shared["b"]),
                     "same_grade": float((shared["a"] == shared["b"]).mean())})
    return rows


def grade_agreement(store: Store, dataset: Dataset) -> pd.DataFrame:
    """Per LLM judge, against each expert and the consensus (columns: GRADE_COLUMNS)."""
    labels = store.current_expert_labels(dataset)
    if labels.empty:
        return pd.DataFrame(columns=GRADE_COLUMNS)
    labels = labels.assign(witness=labels["judge"].map(witness_of))
    by_judge = {judge: group.set_index(["query_id", "doc_id"])["grade"].astype(float)
                for judge, group in labels.groupby("judge", sort=True)}
    experts = {j: g for j, g in by_judge.items() if witness_of(j) is Witness.EXPERT}
    consensus = store.current_labels(dataset, basis=LABEL_BASES[0])
    consensus = consensus[consensus["experts"] > 0].set_index(["query_id", "doc_id"])
    others = {**experts, CONSENSUS: consensus["expert_grade"].astype(float)}
    rows = [row for judge, grades in by_judge.items() if witness_of(judge) is Witness.LLM
            for row in _grade_rows(judge, grades, others)]
    return pd.DataFrame(rows, columns=GRADE_COLUMNS)


def _outcomes(votes: pd.DataFrame, run_b: str) -> pd.DataFrame:
    """Each judge's latest vote per query as +1 (``run_b`` better), -1, 0 — whichever way
    round the pair was stored."""
    outcome = vote_for_b(votes) * np.where(votes["run_b"] == run_b, 1, -1)
    frame = votes.assign(outcome=outcome.to_numpy())
    return frame.groupby(["judge", "query_id"], sort=True)["outcome"].last().reset_index()


def vote_agreement(store: Store, dataset: Dataset, run_a: str, run_b: str) -> pd.DataFrame:
    """Per LLM judge, on runs A and B, against each expert and the experts' majority
    (columns: VOTE_COLUMNS)."""
    votes = store.preferences(dataset, run_a, run_b, include_stale=False)  # oriented A/B
    pair = votes[((votes["run_a"] == run_a) & (votes["run_b"] == run_b))
                 | ((votes["run_a"] == run_b) & (votes["run_b"] == run_a))]
    if pair.empty:
        return pd.DataFrame(columns=VOTE_COLUMNS)
    outcomes = _outcomes(pair, run_b)
    by_judge = {judge: group.set_index("query_id")["outcome"]
                for judge, group in outcomes.groupby("judge", sort=True)}
    experts = {j: o for j, o in by_judge.items() if witness_of(j) is Witness.EXPERT}
    others = dict(experts)
    if experts:
        others[CONSENSUS] = np.sign(pd.concat(experts.values()).groupby(level=0).sum())
    rows = []
    for judge, mine in by_judge.items():
        if witness_of(judge) is not Witness.LLM:
            continue
        for versus, theirs in others.items():
            shared = pd.concat({"a": mine, "b": theirs}, axis=1, join="inner").dropna()
            if shared.empty:
                continue
            rows.append({"llm_judge": judge, "versus": versus, "queries": len(shared),
                         "agreement": float((shared["a"] == shared["b"]).mean()),
                         "cohen_kappa": cohen_kappa(shared["a"], shared["b"])})
    return pd.DataFrame(rows, columns=VOTE_COLUMNS)


def position_bias(store: Store, dataset: Dataset, run_a: str, run_b: str) -> pd.DataFrame:
    """Per LLM judge, on runs A and B: queries answered in both side orders, and how many of
    them conflicted (columns: BIAS_COLUMNS)."""
    calls = store.llm_calls(dataset, kinds=["prefer"])
    calls = calls[calls["output_token"].notna()
                  & (((calls["run_a"] == run_a) & (calls["run_b"] == run_b))
                     | ((calls["run_a"] == run_b) & (calls["run_b"] == run_a)))]
    if calls.empty:
        return pd.DataFrame(columns=BIAS_COLUMNS)
    right_run = calls["run_b"].where(calls["left_run"] == calls["run_a"], calls["run_a"])
    # the answer in run terms: the run preferred, or "tie" / "both_bad"
    said = preferred_runs(calls["value"], calls["left_run"], right_run, calls.index)
    said = said.where(said.notna(), calls["value"])
    answers = calls.assign(said=said).groupby(["judge", "output_token"])["said"].agg(
        ["nunique", "size"])
    answers = answers[answers["size"] == 2]
    rows = []
    for judge, group in answers.groupby(level="judge", sort=True):
        conflicts = int((group["nunique"] > 1).sum())
        rows.append({"llm_judge": judge, "queries": len(group), "conflicts": conflicts,
                     "conflict_rate": conflicts / len(group)})
    return pd.DataFrame(rows, columns=BIAS_COLUMNS)


def reasons_beside(store: Store, dataset: Dataset, run_a: str, run_b: str) -> pd.DataFrame:
    """Every current vote on runs A and B of the queries an LLM voted on, the LLM's beside
    the experts' (query_id, judge, preferred — a run name, ``tie`` or ``both_bad`` —,
    reason), by query then judge."""
    columns = ["query_id", "judge", "preferred", "reason"]
    votes = store.preferences(dataset, run_a, run_b, include_stale=False)  # oriented A/B
    pair = votes[((votes["run_a"] == run_a) & (votes["run_b"] == run_b))
                 | ((votes["run_a"] == run_b) & (votes["run_b"] == run_a))]
    llm = pair["judge"].map(witness_of) == Witness.LLM
    pair = pair[pair["query_id"].isin(set(pair["query_id"][llm]))]
    if pair.empty:
        return pd.DataFrame(columns=columns)
    # the run preferred as the store recorded it (metrics.votes.preferred_run), else the choice
    preferred = pair["preferred_run"].where(pair["preferred_run"].notna(), pair["choice"])
    latest = pair.assign(preferred=preferred).groupby(["query_id", "judge"], sort=True).last()
    return latest.reset_index()[columns]


def llm_agreement(store: Store, dataset: Dataset, run_a: str, run_b: str) -> LlmAgreement:
    """Every LLM judge of the dataset against the experts (see the module doc)."""
    return LlmAgreement(grade_agreement(store, dataset),
                        vote_agreement(store, dataset, run_a, run_b),
                        position_bias(store, dataset, run_a, run_b),
                        reasons_beside(store, dataset, run_a, run_b))
