"""A judge's open tab and the dataset's current round: has a new round started since the tab
was drawn, and what the judge is told when it has.

The check is one indexed single-row read (the dataset's latest round), cheap enough for every
rerun of the judge page and a periodic check of an idle tab.  A tab drawn without a round
(``seen_round_id`` None) learns of the first round the same way.  The notice names the new
round's depth, judges per query and whether it is blind; the run names only when it is not
blind (a blind round never names them to judges).
"""

from __future__ import annotations

from dataclasses import dataclass

from judge_app.store import Dataset, Store
from judge_app.store.votes import Round


@dataclass(frozen=True)
class RoundChange:
    """The round a tab should now show, instead of the one (by id) it was drawn with."""

    seen_round_id: int | None
    now: Round

    @property
    def notice(self) -> str:
        """One line for the judge: ``a new round started: top 5, 2 judges per query, blind —
        this tab now shows it``."""
        new = self.now
        judges = f"{new.overlap} judge{'s' if new.overlap > 1 else ''} per query"
        runs = "blind" if new.blind else f"{new.run_a} vs {new.run_b}"
        return (f"a new round started: top {new.k}, {judges}, {runs} — this tab now shows it "
                "(votes already cast stay with the round they were cast in)")


def round_change(store: Store, dataset: Dataset, seen_round_id: int | None
                 ) -> RoundChange | None:
    """The change when the dataset's current round is not the one of ``seen_round_id``
    (None: the tab was drawn without a round); None when it is (or there is still none)."""
    current = store.current_round(dataset)
    if current is None or current.round_id == seen_round_id:
        return None
    return RoundChange(seen_round_id, current)
