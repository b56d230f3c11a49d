"""Acting on what the judges' figures say: exclude a judge's labels and votes, restore them,
or weigh a judge's labels in the consensus — on one dataset or on every dataset.

Each decision is an event the store keeps (who decided, when, why: :mod:`judge_app.store.
exclusions`), so it is recorded and reversible; the newest decision counts.  Every figure's
label set comes from views that honour them (``filled_labels`` through ``expert_consensus``,
votes through ``counted_votes``), and :func:`left_out_line` is the line a figure prints to say
whom it leaves out.
"""

from __future__ import annotations

from judge_app.errors import SxsError
from judge_app.store import Dataset, Store


def _known(store: Store, judge: str) -> str:
    judge = judge.strip()
    if not store.judge_known(judge):
        raise SxsError(f"no judge {judge!r} in this store (no account, label or vote)")
    return judge


def exclude(store: Store, judge: str, dataset: Dataset | None = None, by: str | None = None,
            reason: str | None = None) -> str:
    """Leave ``judge``'s labels and votes out of every figure (of ``dataset``, or of every
    dataset); returns what was done, in a sentence."""
    judge = _known(store, judge)
    store.record_standing(judge, "exclude", dataset, decided_by=by, reason=reason)
    return f"excluded {judge} from {_scope(dataset)}: their labels and votes are left out"


def restore(store: Store, judge: str, dataset: Dataset | None = None, by: str | None = None,
            reason: str | None = None) -> str:
    """Count ``judge``'s labels and votes again."""
    judge = _known(store, judge)
    store.record_standing(judge, "restore", dataset, decided_by=by, reason=reason)
    return f"restored {judge} in {_scope(dataset)}: their labels and votes count again"


def set_weight(store: Store, judge: str, weight: float, dataset: Dataset | None = None,
               by: str | None = None, reason: str | None = None) -> str:
    """Weigh ``judge``'s labels by ``weight`` (>= 0; 1 is everyone's) in the weighted lower
    median that fills the gaps (policy ``median``)."""
    judge = _known(store, judge)
    store.record_standing(judge, "weight", dataset, weight=weight, decided_by=by,
                          reason=reason)
    return f"{judge} weighs {weight:g} in the consensus of {_scope(dataset)}"


def left_out_line(store: Store, dataset: Dataset) -> str | None:
    """``left out: judges X, Y (excluded)`` when ``dataset``'s figures leave judges out."""
    excluded = store.excluded_judges(dataset)
    return f"left out: judges {', '.join(excluded)} (excluded)" if excluded else None


def _scope(dataset: Dataset | None) -> str:
    return f"dataset {dataset.name!r}" if dataset is not None else "every dataset"
