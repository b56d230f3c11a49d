"""Dawid-Skene against crowd-kit, its invariants, and the simple aggregations beside it.

The reference numbers in ``data/dawid_skene/`` are crowd-kit 1.4.2's ``DawidSkene`` on six
simulated data sets (2-5 grades, full and sparse overlap, a judge who always gives one grade,
a run capped at 3 steps, a tight tolerance), written by ``data/dawid_skene/make_fixtures.py``
(the command and versions are in ``data/dawid_skene/README.md``).  crowd-kit is not a
dependency (it pulls in transformers); with it installed, the live test checks the same.
The lower median is checked against DuckDB's ``quantile_disc(grade, 0.5)``, the SQL of the
store's ``median`` label policy.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.consensus import EPS, dawid_skene, lower_median, majority
from metrics.errors import ArgumentError, GradeError, MetricsError
from tests.metrics.simulated_judges import simulate

DATA = Path(__file__).parent / "data" / "dawid_skene"
CASES = json.loads((DATA / "cases.json").read_text())["cases"]
TASKS = {"items": "task", "judge": "worker", "grade": "label"}


def _reference(name: str) -> tuple[pd.DataFrame, pd.Series, pd.Series, pd.Series]:
    labels = pd.read_csv(DATA / f"{name}.labels.csv", dtype={"task": str, "worker": str})
    probas = pd.read_csv(DATA / f"{name}.probas.csv").set_index(["task", "label"])["p"]
    errors = pd.read_csv(DATA / f"{name}.errors.csv").set_index(["worker", "given", "true"])["p"]
    priors = pd.read_csv(DATA / f"{name}.priors.csv").set_index("label")["p"]
    return labels, probas, errors, priors


def _assert_same_as_crowd_kit(ours, probas: pd.Series, errors: pd.Series, priors: pd.Series,
                              iterations: int) -> None:
    assert ours.iterations == iterations
    posterior = ours.posterior.stack()
    posterior.index.names = ["task", "label"]
    assert posterior.index.sort_values().equals(probas.index.sort_values())
    # crowd-kit clips its returned posteriors at EPS; ours are not clipped
    assert np.abs(posterior.reindex(probas.index) - probas).max() <= EPS + 1e-12
    confusion = ours.confusion.stack()
    confusion.index.names = ["worker", "given", "true"]
    assert np.abs(confusion.reindex(errors.index) - errors).max() < 1e-12
    assert (confusion.drop(errors.index) == 0).all()  # grades a judge never gave
    assert np.abs(ours.priors.reindex(priors.index) - priors).max() < 1e-12
    wide = probas.unstack("label")
    top_two = np.sort(wide.to_numpy(), axis=1)[:, -2:]
    clear = (top_two[:, 1] - top_two[:, 0]) > 1e-9
    assert clear.sum() > 0.9 * len(wide)
    theirs = wide.idxmax(axis=1)[clear]
    assert (ours.grade.reindex(theirs.index) == theirs).all()


@pytest.mark.parametrize("name", sorted(CASES))
def test_dawid_skene_equals_crowd_kit(name: str) -> None:
    labels, probas, errors, priors = _reference(name)
    case = CASES[name]
    ours = dawid_skene(labels, **TASKS, max_iter=case["n_iter"], tol=case["tol"])
    _assert_same_as_crowd_kit(ours, probas, errors, priors, case["iterations"])
    assert ours.converged == (case["iterations"] < case["n_iter"])


@pytest.mark.filterwarnings("ignore")  # crowd-kit's pandas 3 deprecation warnings
@pytest.mark.parametrize("name", sorted(CASES))
def test_dawid_skene_equals_crowd_kit_live(name: str) -> None:
    pytest.importorskip("crowdkit")
    from crowdkit.aggregation import DawidSkene

    labels = _reference(name)[0]
    case = CASES[name]
    model = DawidSkene(n_iter=case["n_iter"], tol=case["tol"]).fit(labels)
    probas = model.probas_.stack().rename_axis(["task", "label"])
    errors = model.errors_.stack().rename_axis(["worker", "given", "true"])
    ours = dawid_skene(labels, **TASKS, max_iter=case["n_iter"], tol=case["tol"])
    _assert_same_as_crowd_kit(ours, probas, errors, model.priors_,
                              len(model.loss_history_))


def test_dawid_skene_recovers_true_grades_more_often_than_the_median() -> None:
    simulated = simulate(seed=23)
    truth = simulated.truth
    rates = {name: float((grades.reindex(truth.index) == truth).mean())
             for name, grades in [("dawid-skene", dawid_skene(simulated.labels).grade),
                                  ("median", lower_median(simulated.labels)),
                                  ("majority", majority(simulated.labels))]}
    print(f"\ntrue grade recovered on {len(truth)} items: "
          + ", ".join(f"{name} {rate:.3f}" for name, rate in rates.items()))
    assert rates["dawid-skene"] > rates["median"] + 0.05, rates
    assert rates["dawid-skene"] > rates["majority"] + 0.05, rates


@st.composite
def label_sets(draw, max_items: int = 10, max_judges: int = 5, grades: int = 4) -> pd.DataFrame:
    """Any grades of up to ``max_judges`` judges on up to ``max_items`` items, each item
    graded by at least one judge."""
    n_items = draw(st.integers(1, max_items))
    n_judges = draw(st.integers(1, max_judges))
    rows = []
    for i in range(n_items):
        judges = draw(st.sets(st.integers(0, n_judges - 1), min_size=1))
        rows += [(f"q{i % 3}", f"d{i}", f"j{j}", draw(st.integers(0, grades - 1)))
                 for j in sorted(judges)]
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "judge", "grade"])


@settings(max_examples=80, deadline=None)
@given(label_sets())
def test_posteriors_confusions_and_priors_are_distributions(labels: pd.DataFrame) -> None:
    result = dawid_skene(labels)
    posterior = result.posterior.to_numpy()
    assert np.all(posterior >= 0) and np.allclose(posterior.sum(axis=1), 1.0, atol=1e-12)
    assert np.isclose(result.priors.sum(), 1.0, atol=1e-12)
    columns = result.confusion.groupby(level="judge").sum().to_numpy()
    assert np.allclose(columns, 1.0, atol=1e-12)
    best = posterior.max(axis=1)
    assert np.array_equal(result.confidence.to_numpy(), best)
    lowest_best = result.posterior.columns[(posterior == best[:, None]).argmax(axis=1)]
    assert np.array_equal(result.grade.to_numpy(), np.asarray(lowest_best))
    counts = labels.groupby(["query_id", "doc_id"]).size()
    assert result.judges.reindex(counts.index).equals(counts.rename("judges"))
    assert 1 <= result.iterations <= 100


@settings(max_examples=50, deadline=None)
@given(label_sets(), st.randoms(use_true_random=False))
def test_renaming_and_reordering_judges_and_items_changes_nothing(labels: pd.DataFrame,
                                                                    rnd) -> None:
    before = dawid_skene(labels)
    judges = sorted(labels["judge"].unique())
    new_judge = dict(zip(judges, rnd.sample([f"w{i}" for i in range(10)], len(judges)),
                         strict=True))
    docs = sorted(labels["doc_id"].unique())
    new_doc = dict(zip(docs, rnd.sample([f"x{i:02d}" for i in range(20)], len(docs)),
                       strict=True))
    shuffled = labels.sample(frac=1.0, random_state=rnd.randrange(2**32)).assign(
        judge=lambda f: f["judge"].map(new_judge), doc_id=lambda f: f["doc_id"].map(new_doc))
    after = dawid_skene(shuffled)
    assert after.iterations == before.iterations
    back = after.posterior.rename(index={v: k for k, v in new_doc.items()}, level="doc_id")
    back = back.reindex(before.posterior.index)
    assert np.allclose(back.to_numpy(), before.posterior.to_numpy(), atol=1e-9)
    top_two = np.sort(before.posterior.to_numpy(), axis=1)[:, -2:]
    clear = (top_two[:, -1] - (top_two[:, 0] if top_two.shape[1] > 1 else 0)) > 1e-6
    grades = after.grade.rename(index={v: k for k, v in new_doc.items()}, level="doc_id")
    assert (grades.reindex(before.grade.index)[clear] == before.grade[clear]).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=12), st.integers(1, 5))
def test_unanimous_items_get_their_grade_when_every_judge_gave_every_grade(
        grades: list[int], n_judges: int) -> None:
    labels = pd.DataFrame([("q", f"d{i:02d}", f"j{j}", g) for i, g in enumerate(grades)
                           for j in range(n_judges)],
                          columns=["query_id", "doc_id", "judge", "grade"])
    result = dawid_skene(labels)
    assert result.grade.tolist() == grades
    assert (result.confidence > 1 - 1e-6).all()


def test_a_judge_who_gives_one_grade_only_says_nothing() -> None:
    # "solo" gave only grade 0, on d0 alone; the others give 3 to d1..d4: d0's posterior is
    # the priors (1/5, 4/5), so its "unanimous" grade 0 loses to 3 (the module doc's edge case)
    labels = pd.DataFrame([("q", "d0", "solo", 0)]
                          + [("q", f"d{i}", "other", 3) for i in range(1, 5)],
                          columns=["query_id", "doc_id", "judge", "grade"])
    result = dawid_skene(labels)
    assert result.posterior.loc[("q", "d0")].tolist() == pytest.approx([0.2, 0.8], abs=1e-9)
    assert result.grade[("q", "d0")] == 3


def test_the_scale_adds_grades_nobody_gave_and_refuses_others() -> None:
    labels = pd.DataFrame({"query_id": "q", "doc_id": ["a", "a", "b", "b"],
                           "judge": ["x", "y", "x", "y"], "grade": [0, 0, 2, 2]})
    result = dawid_skene(labels, grades=[0, 1, 2, 3])
    assert result.posterior.columns.tolist() == [0, 1, 2, 3]
    assert result.posterior[[1, 3]].to_numpy().max() == 0.0
    assert result.priors.tolist() == pytest.approx([0.5, 0.0, 0.5, 0.0])
    assert result.table().columns.tolist() == ["query_id", "doc_id", "grade", "confidence",
                                               "judges"]
    with pytest.raises(GradeError, match="grade 2 is not on the scale"):
        dawid_skene(labels, grades=[0, 1])


def test_no_labels_give_an_empty_consensus() -> None:
    result = dawid_skene(pd.DataFrame(columns=["query_id", "doc_id", "judge", "grade"]))
    assert result.posterior.empty and result.grade.empty and result.iterations == 0


@pytest.mark.parametrize("labels, error, message", [
    (pd.DataFrame({"query_id": ["q", "q"], "doc_id": ["a", "a"], "judge": ["x", "x"],
                   "grade": [1, 2]}), ArgumentError, "graded item .* twice"),
    (pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "judge": ["x"], "grade": ["high"]}),
     GradeError, "'high' of judge 'x' is not a number"),
    (pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "grade": [1]}), MetricsError,
     "missing column"),
])
def test_bad_labels_are_refused_in_one_line(labels, error, message) -> None:
    with pytest.raises(error, match=message):
        dawid_skene(labels)


@pytest.mark.parametrize("kwargs", [{"max_iter": 0}, {"max_iter": 2.5}, {"tol": float("nan")}])
def test_bad_iteration_settings_are_refused(kwargs) -> None:
    labels = pd.DataFrame({"query_id": ["q"], "doc_id": ["a"], "judge": ["x"], "grade": [1]})
    with pytest.raises(ArgumentError):
        dawid_skene(labels, **kwargs)


@settings(max_examples=60, deadline=None)
@given(label_sets(max_items=12, max_judges=6, grades=5))
def test_lower_median_equals_the_stores_quantile_disc(labels: pd.DataFrame) -> None:
    duckdb = pytest.importorskip("duckdb")
    expected = duckdb.sql("SELECT query_id, doc_id, quantile_disc(grade, 0.5) AS grade "
                          "FROM labels GROUP BY query_id, doc_id").df()
    expected = expected.set_index(["query_id", "doc_id"])["grade"]
    ours = lower_median(labels)
    assert ours.reindex(expected.index).tolist() == expected.tolist()


@settings(max_examples=60, deadline=None)
@given(label_sets(max_items=12, max_judges=6, grades=5))
def test_majority_is_the_most_given_grade_the_lower_on_a_tie(labels: pd.DataFrame) -> None:
    ours = majority(labels)
    for (query, doc), group in labels.groupby(["query_id", "doc_id"]):
        counts = group["grade"].value_counts()
        assert ours[(query, doc)] == min(counts[counts == counts.max()].index)
