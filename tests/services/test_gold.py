"""Gold items through the service ``sxs gold`` uses, on DuckDB and PostgreSQL: marked from a
file (qrels, a table of grades, a table of pairs) and from the dataset's own judgments, with
who marked them, when and where from; the newest mark counts."""

from __future__ import annotations

import pandas as pd
import pytest

from judge_app.errors import InputError, SxsError
from judge_app.services import gold
from judge_app.services.importing import create_dataset
from judge_app.store import Store


@pytest.fixture
def store(store_address):
    with Store(store_address) as opened:
        yield opened


def dataset_with_judgments(store: Store):
    dataset = create_dataset(store, "d", "esci")
    store.put_judgments(dataset, pd.DataFrame({
        "query_id": ["q1", "q1", "q2", "q2", "q3"], "doc_id": ["a", "b", "a", "c", "d"],
        "grade": [3, 0, 2, -1, 1]}), "seed.qrels")
    return dataset


def test_a_qrels_file_marks_graded_gold_and_again_adds_nothing(store, tmp_path) -> None:
    dataset = dataset_with_judgments(store)
    path = tmp_path / "gold.qrels"
    path.write_text("q1 0 a 2\nq9 0 z 0\n")
    assert gold.import_gold(store, dataset, path).marked == 2
    again = gold.import_gold(store, dataset, path)
    assert (again.read, again.marked) == (2, 0) and "2 already marked alike" in str(again)
    listed = gold.gold_items(store, dataset)
    assert listed[["kind", "query_id", "doc_id", "grade", "source", "origin"]].values.tolist() \
        == [["graded", "q1", "a", 2, "file", str(path)], ["graded", "q9", "z", 0, "file",
                                                          str(path)]]
    # another answer for the same item replaces the answer: the newest mark counts
    table = tmp_path / "regrade.csv"
    table.write_text("query_id,doc_id,grade\nq1,a,Exact\n")
    assert gold.import_gold(store, dataset, table).marked == 1
    assert store.gold_grades(dataset).set_index(["query_id", "doc_id"])["grade"].to_dict() \
        == {("q1", "a"): 3, ("q9", "z"): 0}


def test_pairs_from_a_table_keep_the_preferred_run(store, tmp_path) -> None:
    dataset = dataset_with_judgments(store)
    path = tmp_path / "pairs.csv"
    path.write_text("query_id,run_a,run_b,preferred_run\nq1,zeta,alpha,zeta\n")
    assert str(gold.import_gold(store, dataset, path)) == "marked 1 gold pairs of 1 read"
    pairs = store.gold_pairs(dataset)
    assert pairs[["query_id", "run_1", "run_2", "preferred_run"]].values.tolist() == [
        ["q1", "alpha", "zeta", "zeta"]]
    bad = tmp_path / "bad.csv"
    bad.write_text("query_id,run_a,run_b,preferred_run\nq1,x,y,z\n")
    with pytest.raises(SxsError, match="preferred run 'z'"):
        gold.import_gold(store, dataset, bad)
    assert len(store.gold_pairs(dataset)) == 1  # nothing of the bad file stored


def test_a_grade_off_the_scale_stores_nothing(store, tmp_path) -> None:
    dataset = dataset_with_judgments(store)
    path = tmp_path / "gold.qrels"
    path.write_text("q1 0 a 2\nq1 0 b 7\n")
    with pytest.raises(InputError):
        gold.import_gold(store, dataset, path)
    assert gold.gold_items(store, dataset).empty


def test_from_the_dataset_all_graded_or_a_seeded_sample(store) -> None:
    dataset = dataset_with_judgments(store)
    first = gold.gold_from_dataset(store, dataset, sample=2, seed=5, marked_by="root")
    assert first.marked == 2
    sampled = store.gold_grades(dataset)
    assert set(sampled["marked_by"]) == {"root"} and set(sampled["source"]) == {"dataset"}
    assert gold.gold_from_dataset(store, dataset, sample=2, seed=5).marked == 0  # same draw
    everything = gold.gold_from_dataset(store, dataset)
    assert (everything.read, everything.marked) == (4, 2)  # the -1 is no answer
    assert sorted(map(tuple, store.gold_grades(dataset)[["query_id", "doc_id", "grade"]]
                      .values.tolist())) == [("q1", "a", 3), ("q1", "b", 0), ("q2", "a", 2),
                                             ("q3", "d", 1)]
    with pytest.raises(SxsError, match="at least 1"):
        gold.gold_from_dataset(store, dataset, sample=0)
