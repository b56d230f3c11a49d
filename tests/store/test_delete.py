"""``sxs delete run`` and ``sxs delete dataset``: they say what goes with the run or dataset,
ask first (``--yes`` skips), and leave nothing of it — except the votes on a deleted run,
which stay as history, no longer counted.  A deletion interrupted half-way is finished the
next time the store is opened, and never shows in between."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.postgres import require
from tests.store.test_backup import fill


def fill_two_datasets(store: Store) -> None:
    fill(store)
    other = store.create_dataset("other", store.dataset("cranfield").scale)
    store.put_judgments(other, pd.DataFrame({"query_id": ["q"], "doc_id": ["d"],
                                             "grade": [1]}), "o.qrels")


@pytest.fixture(params=["duckdb", "postgresql"])
def db(request, tmp_path: Path):
    if request.param == "duckdb":
        path = tmp_path / "d.duckdb"
        with Store(path) as store:
            fill_two_datasets(store)
        yield path
        return
    # filled once per session, then copied per test (CREATE DATABASE … TEMPLATE)
    cluster = require(request.getfixturevalue("postgres_cluster"))
    address = cluster.copy_of("keep-delete", fill_two_datasets)
    yield address
    cluster.drop(address)


def sxs(db: Path, *args: str, answer: str | None = None):
    return CliRunner().invoke(main, [*args, "--db", str(db)], input=answer)


def test_delete_run_names_what_goes_and_asks(db: Path) -> None:
    refused = sxs(db, "delete", "run", "bm25", "-d", "cranfield", answer="n\n")
    lines = refused.output.splitlines()
    assert lines[0] == ("Deleting run 'bm25' of dataset 'cranfield' deletes 22,500 result "
                        "rows; its 3 votes (1 retracted) stay as history, no longer counted; "
                        "labels and judgments stay with the dataset.")
    assert lines[1].startswith("Delete run 'bm25'? [y/N]") and refused.exit_code == 1
    with Store(db) as store:
        assert store.run_names(store.dataset("cranfield")) == ["bm25", "title"]
    done = sxs(db, "delete", "run", "bm25", "-d", "cranfield", "--yes")
    assert done.exit_code == 0, done.output
    assert done.output.splitlines()[-1] == "deleted run 'bm25' of dataset 'cranfield'"
    with Store(db) as store:
        dataset = store.dataset("cranfield")
        assert store.run_names(dataset) == ["title"]
        counts = store.table_counts()
        assert counts["run_results"] == 22500 and counts["runs"] == 1
        votes = store.preferences(dataset, include_retracted=True)
        assert set(votes["run_a"]) == {"bm25"}  # as written: judges' history is kept
        assert votes.loc[~votes["retracted"], "stale"].all()  # ... and no longer counted
        assert list(votes["reason"]) == ["reason 0", "reason 1", "reason 2"]
        assert (votes["left_run"] == "title").all() and votes["retracted"].sum() == 1
        assert len(store.expert_label_history(dataset)) == 3
    again = sxs(db, "delete", "run", "bm25", "-d", "cranfield", "--yes")
    assert again.exit_code == 2 and "no run 'bm25'" in again.output


def test_delete_dataset_names_everything_and_takes_it_all(db: Path) -> None:
    with Store(db) as store:
        before = store.table_counts()
    refused = sxs(db, "delete", "dataset", "cranfield")
    assert refused.exit_code == 1  # no answer: nothing happens
    first = refused.output.splitlines()[0]
    assert first.startswith("Deleting dataset 'cranfield' deletes: 2 runs, 45,000 result rows, "
                            "225 queries, 1,400 documents, ")
    assert "3 expert labels, 3 votes, 1 retraction, 1 replaced grade" in first
    done = sxs(db, "delete", "dataset", "cranfield", "--yes")
    assert done.exit_code == 0, done.output
    with Store(db) as store:
        assert store.dataset_names() == ["other"]
        after = store.table_counts()
        other = store.dataset("other")
        assert len(store.judgments(other)) == 1
    assert after["datasets"] == 1 and after["runs"] == 0 and after["run_results"] == 0
    assert after["preferences"] == after["preference_retractions"] == 0
    assert after["judgments"] == 1 and after["sxs_migrations"] == before["sxs_migrations"]
    with Store(db) as store:  # the name is free again
        build_demo_store(store)
        assert store.run_names(store.dataset("cranfield")) == ["bm25", "title"]


def test_an_interrupted_dataset_deletion_is_hidden_then_finished(db: Path,
                                                                 monkeypatch) -> None:
    from judge_app.store import deletion

    calls = []

    def crash_after_first(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    original = deletion.Deletions._purge_layer
    monkeypatch.setattr(deletion.Deletions, "_purge_layer", crash_after_first)
    with Store(db) as store, pytest.raises(KeyboardInterrupt):
        store.delete_dataset(store.dataset("cranfield"))
    monkeypatch.setattr(deletion.Deletions, "_purge_layer", original)
    with Store(db, read_only=True) as store:  # half-purged, and hidden
        assert store.dataset_names() == ["other"]
        assert store.find_dataset("cranfield") is None
        assert store.table_counts()["datasets"] == 2
    with Store(db) as store:  # opened for writing: finished
        assert store.table_counts()["datasets"] == 1
        assert store.table_counts()["preferences"] == 0
