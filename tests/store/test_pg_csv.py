"""Rows between frames and PostgreSQL (judge_app.store.pg_csv) are exact both ways: random
frames of every column type the store uses, written by one side and read by the other, each
side checked against psycopg's own bound values (an independent path: no CSV)."""

from __future__ import annotations

import datetime as dt
import json
import math

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.store import pg_cursor
from judge_app.store.postgres import PostgresBackend

TABLE = """CREATE TABLE IF NOT EXISTS csv_round_trip (
    k BIGINT PRIMARY KEY, t TEXT, i BIGINT, n INTEGER, d DOUBLE PRECISION, b BOOLEAN,
    ts TIMESTAMPTZ, j JSON)"""
COLUMNS = ["k", "t", "i", "n", "d", "b", "ts", "j"]

# text that CSV and COPY find awkward, mixed with any Unicode but NUL (PostgreSQL stores none)
awkward = st.sampled_from(["\\N", "\\", "", " ", '"', "'", ",", "\n", "\r", "\r\n", "\t",
                           "NULL", "null", "NaN", "é", "😀", "\u2028", "\ufeff"])
characters = st.characters(exclude_characters="\x00", exclude_categories=("Cs",))
texts = st.lists(awkward | st.text(characters, max_size=6),
                 max_size=5).map("".join)
UTC = dt.UTC
times = st.datetimes(min_value=dt.datetime(1900, 1, 1), max_value=dt.datetime(2200, 1, 1),
                     timezones=st.just(UTC))
rows = st.lists(st.tuples(
    st.none() | texts,
    st.none() | st.integers(-2**63, 2**63 - 1),
    st.none() | st.integers(-2**31, 2**31 - 1),
    st.none() | st.floats(allow_nan=False),
    st.none() | st.booleans(),
    st.none() | times,
    st.none() | texts.map(lambda s: json.dumps({"s": s}, ensure_ascii=False)),
), max_size=25)


def frame_of(values: list[tuple]) -> pd.DataFrame:
    columns = list(zip(*values, strict=True)) if values else [[]] * 7
    return pd.DataFrame({
        "k": pd.Series(range(len(values)), dtype="int64"),
        "t": pd.Series(columns[0], dtype=object),
        "i": pd.Series(columns[1], dtype="Int64"),
        "n": pd.Series(columns[2], dtype="Int64"),
        "d": pd.Series([math.nan if v is None else v for v in columns[3]], dtype="float64"),
        "b": pd.Series(columns[4], dtype="boolean"),
        "ts": pd.Series(pd.to_datetime(list(columns[5]), utc=True),
                        dtype="datetime64[us, UTC]"),
        "j": pd.Series(columns[6], dtype=object)})


def plain(value: object) -> object:
    """A frame's cell as a Python value, None when missing."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, pd.Timestamp):
        return value.to_pydatetime()
    if hasattr(value, "item"):
        return value.item()
    return value


def as_rows(frame: pd.DataFrame) -> list[tuple]:
    return [tuple(plain(v) for v in row) for row in frame.itertuples(index=False, name=None)]


def expected(values: list[tuple]) -> list[tuple]:
    return [(k, *row) for k, row in enumerate(values)]


@pytest.fixture
def backend(postgres_address: str) -> PostgresBackend:
    backend = PostgresBackend(postgres_address)
    with backend.transaction() as cur:
        cur.execute(TABLE)
    return backend


def _empty(backend: PostgresBackend) -> None:
    with backend.transaction() as cur:
        cur.execute("TRUNCATE csv_round_trip")


@pytest.mark.parametrize("fetched", [0, pg_cursor.FETCHED_ROWS],
                         ids=["read-by-copy", "fetched"])
@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=rows)
def test_frames_read_from_postgresql_equal_what_was_stored(backend: PostgresBackend,
                                                           values: list[tuple], fetched: int,
                                                           monkeypatch) -> None:
    monkeypatch.setattr(pg_cursor, "FETCHED_ROWS", fetched)  # 0: any row goes by COPY
    _empty(backend)
    with backend.pool.connection() as conn, conn.cursor() as cur:  # bound values, no CSV
        cur.executemany("INSERT INTO csv_round_trip VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                        expected(values))
    read = backend.cursor().frame("SELECT * FROM csv_round_trip ORDER BY k")
    assert list(read.columns) == COLUMNS
    assert as_rows(read) == expected(values)
    assert str(read["ts"].dtype) == "datetime64[us, UTC]"


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=rows)
def test_frames_written_to_postgresql_arrive_as_they_were(backend: PostgresBackend,
                                                          values: list[tuple]) -> None:
    _empty(backend)
    with backend.transaction() as cur:
        cur.copy_in("csv_round_trip", frame_of(values), COLUMNS)
    with backend.pool.connection() as conn:  # fetched row by row, JSON as text, no CSV
        stored = conn.execute("SELECT * FROM csv_round_trip ORDER BY k").fetchall()
    assert stored == expected(values)


@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=rows)
def test_frames_round_trip_through_the_store(backend: PostgresBackend, values: list[tuple],
                                             monkeypatch) -> None:
    monkeypatch.setattr(pg_cursor, "FETCHED_ROWS", 0)
    _empty(backend)
    with backend.transaction() as cur:
        cur.copy_in("csv_round_trip", frame_of(values), COLUMNS)
    read = backend.cursor().frame("SELECT * FROM csv_round_trip ORDER BY k")
    assert as_rows(read) == expected(values)
