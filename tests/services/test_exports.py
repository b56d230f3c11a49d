"""Exporters: formats, provenance, the filled label policy, formula guards, round trips."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from judge_app.io.csv_safe import unguard
from judge_app.services import exporting, importing
from judge_app.store import Store
from metrics import ESCI


@pytest.fixture
def store(tmp_path: Path):
    with Store(tmp_path / "s.duckdb") as opened:
        dataset = opened.create_dataset("p", ESCI)
        opened.put_queries(dataset, pd.DataFrame({"query_id": ["q1", "q2"],
                                                  "text": ["red shoes", "=cmd|' /C calc'!A0"]}))
        opened.put_judgments(dataset, pd.DataFrame({
            "query_id": ["q1", "q1", "q2"], "doc_id": ["a", "b", "c"], "grade": [3, 0, 1]}),
            "seed.txt")
        for token, (query, doc, grade, judge) in enumerate([
                ("q1", "b", 2, "ann"), ("q1", "b", 3, "bob"), ("q1", "b", 1, "cy"),
                ("q1", "x", 2, "ann"), ("q1", "x", 1, "ann"), ("q2", "c", 3, "bob")]):
            opened.add_expert_label(dataset, query, doc, grade, judge, f"t{token}",
                                    note="+1 looks right" if token == 0 else None)
        yield opened


def filled(store: Store, policy: str) -> dict:
    frame = store.filled_judgments(store.dataset("p"), policy)
    return {(q, d): (g, s) for q, d, g, s in
            frame[["query_id", "doc_id", "grade", "source"]].itertuples(index=False)}


def test_filled_label_policies(store: Store) -> None:
    # q1/b: dataset 0, experts ann 2, bob 3, cy 1 -> lower median of (1, 2, 3) = 2
    # q1/x: unlabelled, ann re-graded 2 -> 1 (latest counts)
    median = filled(store, "median")
    assert median[("q1", "a")] == (3, "dataset")
    assert median[("q1", "b")] == (2, "expert_override")
    assert median[("q1", "x")] == (1, "expert")
    assert median[("q2", "c")] == (3, "expert_override")
    assert filled(store, "latest")[("q1", "b")] == (1, "expert_override")  # cy was last
    first = filled(store, "dataset_first")
    assert first[("q1", "b")] == (0, "dataset") and first[("q1", "x")] == (1, "expert")


def test_exports_in_every_format(store: Store, tmp_path: Path) -> None:
    dataset = store.dataset("p")
    assert exporting.export_labels(store, dataset, tmp_path / "d.qrels", "trec") == 3
    assert (tmp_path / "d.qrels").read_text() == "q1 0 a 3\nq1 0 b 0\nq2 0 c 1\n"
    exporting.export_labels(store, dataset, tmp_path / "f.qrels", "trec", filled=True)
    assert "q1 0 x 1" in (tmp_path / "f.qrels").read_text()
    exporting.export_labels(store, dataset, tmp_path / "q.csv", "quepid")
    quepid = (tmp_path / "q.csv").read_text().splitlines()
    assert quepid[0] == "query,docid,rating" and quepid[1] == "red shoes,a,3"
    assert quepid[3].startswith("'=cmd")  # formula injection guarded
    exporting.export_labels(store, dataset, tmp_path / "w.csv", "wide")
    wide = pd.read_csv(tmp_path / "w.csv", dtype=str, keep_default_na=False)
    assert list(wide.columns) == ["query_id", "doc_id", "ann", "bob", "cy"]
    assert wide[wide["doc_id"] == "x"][["ann", "bob"]].values.tolist() == [["1", ""]]
    rows = exporting.export_labels(store, dataset, tmp_path / "p.csv", "csv")
    provenance = pd.read_csv(tmp_path / "p.csv", dtype=str,
                             keep_default_na=False).apply(unguard)
    assert rows == len(provenance) == 3 + 5
    assert set(provenance["source"]) == {"dataset", "expert"}
    assert "'+1 looks right" in (tmp_path / "p.csv").read_text()
    assert "+1 looks right" in set(provenance["note"])
    exporting.export_labels(store, dataset, tmp_path / "p.parquet", "parquet")
    assert len(pd.read_parquet(tmp_path / "p.parquet")) == rows


def test_round_trip_import_export_import(store: Store, tmp_path: Path) -> None:
    dataset = store.dataset("p")
    for fmt, name in (("trec", "rt.qrels"), ("quepid", "rt.csv")):
        path = tmp_path / name
        exporting.export_labels(store, dataset, path, fmt, filled=True)
        with Store(tmp_path / f"{fmt}.duckdb") as other:
            copy = other.create_dataset("p", ESCI)
            other.put_queries(copy, store.queries(dataset))
            if fmt == "trec":
                importing.import_qrels(other, copy, path)
            else:
                importing.import_quepid(other, copy, path)
            again = tmp_path / f"again-{name}"
            exporting.export_labels(other, copy, again, fmt)
            assert again.read_bytes() == path.read_bytes(), fmt
            want = store.filled_judgments(dataset)[["query_id", "doc_id", "grade"]]
            got = other.judgments(copy)[["query_id", "doc_id", "grade"]]
            pd.testing.assert_frame_equal(got.reset_index(drop=True),
                                          want.reset_index(drop=True), check_dtype=False)
