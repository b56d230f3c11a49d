"""Label policy ``dawid-skene`` on DuckDB and PostgreSQL: the filled set holds the Dawid-Skene
grade of :func:`metrics.consensus.dawid_skene` over the same labels (itself checked against
crowd-kit in tests/metrics/test_consensus.py), its posterior confidence is stored, and it is
computed again when a label or an exclusion changes the data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from judge_app.policies import LabelPolicy
from judge_app.services import judge_standing
from judge_app.services.analysis import labels_for
from judge_app.services.importing import create_dataset
from judge_app.store import Store
from metrics.consensus import dawid_skene
from tests.metrics.simulated_judges import simulate


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def test_the_filled_set_is_the_dawid_skene_consensus(store: Store) -> None:
    simulated = simulate(seed=23, n_items=120, n_gold=10)
    labels = simulated.labels[["query_id", "doc_id", "judge", "grade"]]
    dataset = create_dataset(store, "ds", "esci")
    store.put_judgments(dataset, pd.DataFrame({"query_id": ["q00", "zz"], "doc_id": ["d000", "z"],
                                               "grade": [0, 1]}), "seed.qrels")
    store.append_expert_labels(dataset, labels, "sim")
    filled = labels_for(store, dataset, True, LabelPolicy.DAWID_SKENE)
    expected = dawid_skene(labels, grades=dataset.scale.values)
    got = filled.set_index(["query_id", "doc_id"])["grade"]
    assert got.drop(("zz", "z")).sort_index().to_dict() == expected.grade.sort_index().to_dict()
    assert got[("zz", "z")] == 1  # no judge: the dataset's grade stands
    stored = store.consensus_labels(dataset).set_index(["query_id", "doc_id"])
    np.testing.assert_allclose(stored["confidence"].sort_index(),
                               expected.confidence.sort_index(), atol=1e-9)
    # Dawid-Skene recovers the true grades more often than the lower median
    truth = simulated.truth
    median = labels_for(store, dataset, True, LabelPolicy.MEDIAN).set_index(
        ["query_id", "doc_id"])["grade"]
    ds_rate = float((got.reindex(truth.index) == truth).mean())
    median_rate = float((median.reindex(truth.index) == truth).mean())
    assert ds_rate > median_rate, (ds_rate, median_rate)

    judge_standing.exclude(store, "random", dataset)
    again = labels_for(store, dataset, True, LabelPolicy.DAWID_SKENE)
    without = dawid_skene(labels[labels["judge"] != "random"], grades=dataset.scale.values)
    assert again.set_index(["query_id", "doc_id"])["grade"].drop(("zz", "z")).sort_index() \
        .to_dict() == without.grade.sort_index().to_dict()
    assert (store.consensus_labels(dataset)["judges"].to_numpy()
            == without.judges.sort_index().to_numpy()).all()
