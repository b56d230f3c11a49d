"""Where the decision on a pair of runs stands, in one line, cheap enough for every page draw.

:func:`decision_state` is :func:`judge_app.services.decision.decide_runs` on one measure —
``ndcg_m@k`` at the round's depth k (:func:`round_measure`), confidence 0.95, the filled labels
(policy ``median``, basis ``experts``), seed 0: exactly what ``sxs decide A B -d DS -m
ndcg_m@k --format json`` prints — with the experts' sequential vote test beside it.

It is cached per store address, dataset, pair, measure and confidence on the store's
:meth:`~judge_app.store.Store.data_version` (which moves with every label, vote, withdrawal,
retraction, exclusion, judgment import and run import of the dataset), so a page pays one
small read while nothing changed and one decision after each change; at most
:data:`CACHE_ENTRIES` states are kept (the oldest go first), shared by every session of the
process.

:func:`pair_done` is the round's "stop when decided": the state when the round asks for it and
the labels verdict is decided (B better, A better, or no difference we could detect), else
None.  The judge page's queue (:func:`judge_app.services.next_query.next_query`) and the
backfill page serve nothing for a pair that is done.
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_app.services.decision import DecisionReport, decide_runs
from judge_app.services.versioned_cache import VersionedCache
from judge_app.store import Dataset, Store
from judge_app.store.votes import Round
from metrics.decision import Decision
from metrics.sequential import SequentialWinRate

CONFIDENCE = 0.95
CACHE_ENTRIES = 64

_cache: VersionedCache[DecisionState] = VersionedCache(CACHE_ENTRIES)


def round_measure(k: int) -> str:
    """The measure a round's pair is decided on: NDCG-m at the round's depth."""
    return f"ndcg_m@{int(k)}"


@dataclass(frozen=True)
class DecisionState:
    """The labels verdict on one measure and the experts' vote test, for one pair."""

    report: DecisionReport

    @property
    def labels(self) -> Decision:
        return self.report.decisions[0]

    @property
    def votes(self) -> SequentialWinRate:
        return self.report.votes

    @property
    def decided(self) -> bool:
        """Whether the labels verdict on the measure is decided (``sxs decide`` exits 0)."""
        return self.report.decided

    def labels_line(self) -> str:
        """The labels witness in words: verdict, mean Δ with its certain bounds, P(B > A),
        what it stands on and what would move it."""
        d = self.labels
        return (f"{d.measure} {d.verdict.label} — mean Δ (B - A) {d.expected:+.3f}, certain "
                f"{d.lower:+.3f} .. {d.upper:+.3f}, P(B better) {d.p_b_better:.2f}, "
                f"paired t p = {d.p_query:.2g} over {d.queries:,} queries, "
                f"{d.judged:,} of {d.judged + d.unjudged:,} pool pairs judged; {d.explanation()}")

    def votes_line(self) -> str:
        """The votes witness in words."""
        v = self.votes
        if not v.wins_a + v.wins_b:
            return f"expert votes: undecided (none for A or B yet, {v.ties:,} ties or both bad)"
        return (f"expert votes: {v.description} ({v.wins_b:,} for B, {v.wins_a:,} for A, "
                f"{v.ties:,} ties or both bad; P(B preferred) {v.low:.2f} .. {v.high:.2f})")

    def line(self, blind: bool = False) -> str:
        """The decision state in one line (the judge and backfill pages).  ``blind``: for a
        judge of a blind round, without which run leads (no verdict's direction, no signed
        figure, no vote counts per run), so the line cannot tell them which side is B."""
        d, v = self.labels, self.votes
        if blind:
            votes = (f"votes: {v.wins_a + v.wins_b:,} for a side" if v.wins_a + v.wins_b
                     else "votes: none for a side yet")
            state = "decided" if d.verdict.decided else "undecided"
            rest = (f"about {d.labels_needed:,} more labels would decide it"
                    if not d.verdict.decided and d.limit is not None
                    and d.limit.value == "labels" and d.labels_needed else
                    f"{d.judged:,} of {d.judged + d.unjudged:,} pool pairs judged")
            return f"Decision on {d.measure}: labels {state} ({rest}) · {votes}"
        votes = (f"votes {v.description} ({v.wins_b:,} B / {v.wins_a:,} A)"
                 if v.wins_a + v.wins_b else "votes: none for A or B yet")
        if d.verdict.decided:
            rest = f"{d.judged:,} of {d.judged + d.unjudged:,} pool pairs judged"
        elif d.limit is not None and d.limit.value == "labels" and d.labels_needed:
            rest = f"about {d.labels_needed:,} more labels would decide it"
        else:
            rest = d.explanation()
        return (f"Decision on {d.measure}: labels {d.verdict.label} (mean Δ {d.expected:+.3f}, "
                f"certain {d.lower:+.3f} .. {d.upper:+.3f}; {rest}) · {votes}")

    def done_line(self, blind: bool = False) -> str:
        """What a judge is told when the round stops serving the decided pair (``blind``:
        without which run won, as :meth:`line`)."""
        d = self.labels
        if blind:
            return (f"This pair is decided on {d.measure}, nothing more to judge. Thank you!")
        return (f"This pair is decided: {d.verdict.label.removeprefix('decided: ')} on "
                f"{d.measure} (mean Δ "
                f"{d.expected:+.3f}, certain {d.lower:+.3f} .. {d.upper:+.3f}), nothing more "
                "to judge. Thank you!")


def decision_state(store: Store, dataset: Dataset, run_a: str, run_b: str, measure: str,
                   confidence: float = CONFIDENCE) -> DecisionState:
    """The decision on ``run_b`` against ``run_a`` on ``measure`` (module doc), from the
    cache while the dataset's data version stays.  Unknown runs or an undecidable measure
    raise :class:`~judge_app.errors.SxsError` as ``sxs decide`` does."""
    key = (str(store.path), dataset.name, run_a, run_b, measure, float(confidence),
           store.data_version(dataset))
    return _cache.get(key, lambda: DecisionState(
        decide_runs(store, dataset, run_a, run_b, [measure], confidence)))


def round_state(store: Store, dataset: Dataset, round_: Round) -> DecisionState:
    """The decision state of a round's pair on :func:`round_measure`."""
    return decision_state(store, dataset, round_.run_a, round_.run_b, round_measure(round_.k))


def pair_done(store: Store, dataset: Dataset, round_: Round | None) -> DecisionState | None:
    """The decided state when ``round_`` stops serving its pair once decided and the labels
    verdict is decided; None otherwise (no round, the setting off, or undecided)."""
    if round_ is None or not round_.stop_when_decided:
        return None
    state = round_state(store, dataset, round_)
    return state if state.decided else None
