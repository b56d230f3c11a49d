"""A dataset grade replaced by an import (``--on-conflict last``, or ``max``/``min`` when they
change it) is kept in ``judgment_history``, written in the import's transaction, exported in
the provenance CSV as a ``replaced`` row, and read back from it."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.services import exporting, importing
from judge_app.store import Store
from metrics import ESCI


def grades(*rows: tuple[str, str, int]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query_id", "doc_id", "grade"])


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "h.duckdb") as opened:
        dataset = opened.create_dataset("p", ESCI)
        opened.put_judgments(dataset, grades(("q1", "a", 1), ("q1", "b", 2), ("q2", "a", 0)),
                             "first.qrels")
        yield opened


@pytest.mark.parametrize(("policy", "incoming", "kept", "replaced"), [
    ("last", 3, 3, [1]), ("last", 0, 0, [1]), ("last", 1, 1, []),
    ("max", 3, 3, [1]), ("max", 0, 1, []), ("min", 0, 0, [1]), ("min", 3, 1, [])])
def test_a_replaced_grade_is_kept_in_history(store: Store, policy: str, incoming: int,
                                             kept: int, replaced: list[int]) -> None:
    dataset = store.dataset("p")
    store.put_judgments(dataset, grades(("q1", "a", incoming)), "second.qrels",
                        on_conflict=policy)
    now = store.judgments(dataset).set_index(["query_id", "doc_id"])
    assert now.loc[("q1", "a"), "grade"] == kept
    history = store.judgment_history(dataset)
    assert list(history["grade"]) == replaced
    assert now.loc[("q1", "a"), "source"] == ("second.qrels" if kept == incoming
                                              else "first.qrels")
    if replaced:
        row = history.iloc[0]
        assert (row["query_id"], row["doc_id"], row["source"], row["replaced_by"]) == (
            "q1", "a", "first.qrels", "second.qrels")


def test_every_replacement_is_kept_in_order(store: Store) -> None:
    dataset = store.dataset("p")
    for grade, name in ((3, "b.qrels"), (2, "c.qrels"), (0, "d.qrels")):
        store.put_judgments(dataset, grades(("q1", "a", grade), ("q2", "a", 0)), name,
                            on_conflict="last")
    history = store.judgment_history(dataset)
    assert list(zip(history["grade"], history["source"], history["replaced_by"],
                    strict=True)) == [(1, "first.qrels", "b.qrels"), (3, "b.qrels", "c.qrels"),
                                      (2, "c.qrels", "d.qrels")]


def test_a_refused_import_keeps_no_history(store: Store) -> None:
    dataset = store.dataset("p")
    with pytest.raises(Exception, match="already judged"):
        store.put_judgments(dataset, grades(("q1", "a", 3)), "x.qrels")
    assert store.judgment_history(dataset).empty


def test_the_provenance_csv_carries_history_and_round_trips(store: Store,
                                                            tmp_path: Path) -> None:
    dataset = store.dataset("p")
    store.put_judgments(dataset, grades(("q1", "a", 3)), "b.qrels", on_conflict="last")
    store.put_judgments(dataset, grades(("q1", "a", 2)), "c.qrels", on_conflict="last")
    store.add_expert_label(dataset, "q1", "a", 0, "ann", "t1")
    first = tmp_path / "p.csv"
    exporting.export_labels(store, dataset, first, "csv")
    table = pd.read_csv(first, dtype=str, keep_default_na=False)
    pair = table[(table["query_id"] == "q1") & (table["doc_id"] == "a")]
    assert list(zip(pair["source"], pair["grade"], pair["origin"], strict=True)) == [
        ("dataset", "2", "c.qrels"), ("expert", "0", ""), ("replaced", "1", "first.qrels"),
        ("replaced", "3", "b.qrels")]
    with Store(tmp_path / "fresh.duckdb") as other:
        fresh = other.create_dataset("p", ESCI)
        importing.import_labels(other, fresh, first)
        importing.import_labels(other, fresh, first)  # again: nothing more
        assert len(other.judgment_history(fresh)) == 2
        again = tmp_path / "again.csv"
        exporting.export_labels(other, fresh, again, "csv")
    assert again.read_bytes() == first.read_bytes()


imports = st.lists(st.tuples(st.sampled_from(["last", "max", "min"]),
                             st.dictionaries(st.sampled_from(["a", "b", "c"]),
                                             st.integers(0, 3), min_size=1)),
                   min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(first=st.dictionaries(st.sampled_from(["a", "b"]), st.integers(0, 3)), later=imports)
def test_history_holds_every_grade_that_stopped_being_current(tmp_path_factory, first,
                                                              later) -> None:
    """Oracle: a dict of current grades and a list of replaced ones, kept by hand."""
    current: dict[str, tuple[int, str]] = {}
    replaced: list[tuple[str, int, str, str]] = []
    path = tmp_path_factory.mktemp("h") / "p.duckdb"
    with Store(path) as store:
        dataset = store.create_dataset("p", ESCI)
        for n, (policy, rows) in enumerate([("last", first), *later]):
            if not rows:
                continue
            source = f"f{n}.qrels"
            store.put_judgments(dataset, grades(*(("q", d, g) for d, g in rows.items())),
                                source, on_conflict=policy)
            for doc, grade in sorted(rows.items()):
                if doc in current:
                    old, origin = current[doc]
                    keep = {"last": grade, "max": max(old, grade), "min": min(old, grade)}[
                        policy]
                    if keep != old:
                        replaced.append((doc, old, origin, source))
                    current[doc] = (keep, source if keep == grade else origin)
                else:
                    current[doc] = (grade, source)
        history = store.judgment_history(dataset)
        got = list(zip(history["doc_id"], history["grade"], history["source"],
                       history["replaced_by"], strict=True))
        assert sorted(got) == sorted(replaced)
        for doc in "abc":  # per pair, in the order it happened
            assert [g for d, g, *_ in got if d == doc] == [g for d, g, *_ in replaced
                                                           if d == doc]
        now = store.judgments(dataset)
        assert dict(zip(now["doc_id"], zip(now["grade"], now["source"], strict=True),
                        strict=True)) == current
