"""The filled label set of policy ``dawid-skene``: the Dawid-Skene consensus of the judges'
current labels (:func:`metrics.consensus.dawid_skene`), per label basis, stored with each
item's posterior confidence and read from the ``filled_labels`` view like the other policies.

:func:`ensure_consensus` computes it when the stored one is missing or was computed at another
data version of the dataset (:meth:`~judge_app.store.Store.data_version`: any label, vote,
judgment, run or judge exclusion written since); every reader of a filled set calls it first
(:func:`judge_app.services.analysis.labels_for` and ``label_sets``).  The annotators are the
judges the basis counts (experts; ``clicks:``/``llm:`` judges only in a basis naming them),
excluded judges left out; judge weights do not enter Dawid-Skene (each judge's confusion
matrix is its weight).
"""

from __future__ import annotations

import pandas as pd

from judge_app.policies import Witness
from judge_app.store import Dataset, Store


def _version(store: Store, dataset: Dataset) -> str:
    return "|".join(store.data_version(dataset))


def compute_consensus(store: Store, dataset: Dataset, basis: str) -> pd.DataFrame:
    """Dawid-Skene over the counted judges' current labels of ``basis``: query_id, doc_id,
    grade, confidence (the grade's posterior probability), judges."""
    from metrics.consensus import ITEM, dawid_skene  # scipy: loaded when a consensus is due

    counted = {Witness.EXPERT.value, *basis.split("+")[1:]}
    labels = store.current_expert_labels(dataset, counted_only=True)
    labels = labels[labels["witness"].isin(counted)]
    if labels.empty:
        return pd.DataFrame(columns=[*ITEM, "grade", "confidence", "judges"])
    found = dawid_skene(labels, items=ITEM, grades=dataset.scale.values)
    frame = pd.concat([found.grade, found.confidence, found.judges], axis=1).reset_index()
    return frame[[*ITEM, "grade", "confidence", "judges"]]


def ensure_consensus(store: Store, dataset: Dataset, basis: str) -> None:
    """Compute and store the consensus of ``basis`` unless the stored one is current."""
    version = _version(store, dataset)
    stored = store.consensus_labels(dataset, basis)
    if len(stored) and (stored["data_version"] == version).all():
        return
    frame = compute_consensus(store, dataset, basis)
    if len(frame) or len(stored):
        store.put_consensus_labels(dataset, basis, frame, version)
