"""Fuzzed input files: every importer either imports the file or raises the project's own
InputError naming the file (and the line where there is one) — never another exception, and
never a partial import.

Figures: 4 formats x the ``max_examples`` below = the cases that run on every CI run.
"""

from __future__ import annotations

import string
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.errors import InputError
from judge_app.io.labels import ColumnMap
from judge_app.services import importing
from judge_app.store import Store
from metrics import ESCI

EXAMPLES = 150
SETTINGS = settings(max_examples=EXAMPLES, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])

tokens = st.one_of(
    st.sampled_from(["q1", "q2", "d1", "d2", "0", "Q0", "1", "2", "3", "-1", "7", "nan", "NaN",
                     "inf", "-inf", "1e309", "99999999999999999999", "1.5", "-3", "", "E",
                     "Exact", "x" * 5000, "\u00e9", "=cmd", "\x00", "\t", '"', ","]),
    st.text(alphabet=string.printable, max_size=12),
)
lines = st.lists(tokens, min_size=0, max_size=7).map(
    lambda parts: " ".join(parts))
line_files = st.one_of(
    st.lists(lines, max_size=25).map(lambda ls: "\n".join(ls)).map(str.encode),
    st.binary(max_size=400),
    st.lists(lines, max_size=10).map(lambda ls: "\r\n".join(ls)).map(
        lambda text: b"\xef\xbb\xbf" + text.encode()),
)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    with Store(tmp_path_factory.mktemp("fuzz") / "fuzz.duckdb") as opened:
        yield opened


def snapshot(store: Store, dataset) -> tuple[int, int]:
    runs = sum(len(store.run(dataset, r)) for r in store.run_names(dataset))
    return len(store.judgments(dataset)), runs


def attempt(store: Store, tmp_path: Path, content: bytes, name: str, action) -> None:
    dataset = store.create_dataset("fuzz", ESCI)
    path = tmp_path / name
    path.write_bytes(content)
    before = snapshot(store, dataset)
    try:
        report = action(store, dataset, path)
    except InputError as error:
        assert str(error).startswith(str(path)), error
        assert snapshot(store, dataset) == before  # nothing half-written
        return
    judgments, run_rows = snapshot(store, dataset)
    lines = [line for line in content.splitlines() if line.strip()]
    assert 0 <= report.rows <= len(lines)
    if "run" in name:
        assert run_rows == report.rows  # the run was replaced, whole
    else:
        assert judgments >= before[0]


@SETTINGS
@given(content=line_files)
def test_fuzzed_qrels(store: Store, tmp_path: Path, content: bytes) -> None:
    attempt(store, tmp_path, content, "fuzz.qrels",
            lambda s, d, p: importing.import_qrels(s, d, p, on_conflict="last"))


@SETTINGS
@given(content=line_files, trust_rank=st.booleans(), dedupe=st.booleans())
def test_fuzzed_runs(store: Store, tmp_path: Path, content: bytes, trust_rank: bool,
                     dedupe: bool) -> None:
    attempt(store, tmp_path, content, "fuzz.run",
            lambda s, d, p: importing.import_run(s, d, p, name="fuzz", replace=True,
                                                trust_rank=trust_rank, dedupe=dedupe))


csv_rows = st.lists(st.lists(tokens, min_size=0, max_size=4), max_size=15)


@SETTINGS
@given(rows=csv_rows, header=st.booleans())
def test_fuzzed_csv_judgments(store: Store, tmp_path: Path, rows, header: bool) -> None:
    text = ("query_id,doc_id,grade\n" if header else "") + "\n".join(
        ",".join(r) for r in rows)
    attempt(store, tmp_path, text.encode(), "fuzz.csv",
            lambda s, d, p: importing.import_judgments(s, d, p, ColumnMap(),
                                                      on_conflict="last"))


json_values = st.one_of(st.none(), st.booleans(), st.integers(-10, 10), st.floats(),
                        st.text(max_size=8), st.lists(st.integers(), max_size=2))


@SETTINGS
@given(records=st.lists(st.fixed_dictionaries(
    {}, optional={"query_id": json_values, "doc_id": json_values, "grade": json_values}),
    max_size=12), garbage=st.booleans())
def test_fuzzed_jsonl_judgments(store: Store, tmp_path: Path, records, garbage: bool) -> None:
    text = "\n".join(pd.Series(records, dtype=object).map(
        lambda r: __import__("json").dumps(r)).tolist())
    if garbage:
        text += "\n{not json"
    attempt(store, tmp_path, text.encode(), "fuzz.jsonl",
            lambda s, d, p: importing.import_judgments(s, d, p, ColumnMap(),
                                                      on_conflict="last"))
