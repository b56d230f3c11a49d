"""The one SQL, two dialects (issue 15): values are always bound — text full of placeholder
and quote characters round-trips unchanged on both backends — and the PostgreSQL
translation touches only placeholders and the listed DuckDB functions, never quoted text."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.store import Store
from judge_app.store.dialect import POSTGRES
from metrics import ESCI

nasty = st.text(st.sampled_from("?$%'\"\\:;()a1 éø\n"), min_size=1, max_size=30)


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(note=nasty, query=nasty, judge=nasty.filter(lambda s: s.strip() != ""))
def test_any_text_round_trips_through_both_backends(store_address, note: str, query: str,
                                                    judge: str) -> None:
    with Store(store_address) as store:
        dataset = store.create_dataset("p", ESCI)
        token = f"t{note}{query}{judge}"
        store.add_expert_label(dataset, query, "d?", 2, judge, token, note=note)
        mine = store.current_expert_labels(dataset, judge=judge)
        got = mine[(mine["query_id"] == query) & (mine["doc_id"] == "d?")]
        assert list(got["note"]) == [note]
        assert store.query_text(dataset, query) is None  # bound, not spliced: no match
        assert not store.add_expert_label(dataset, query, "d?", 2, judge, token)


def test_the_translation_leaves_quoted_text_alone() -> None:
    sql, values = POSTGRES.translate(
        "SELECT '?', '$d', 'x%y', \"a?\" FROM t WHERE a = ? AND list_contains(?, b)", [1, [2]])
    assert sql == ("SELECT '?', '$d', 'x%%y', \"a?\" FROM t WHERE a = %s AND "
                   "(b = ANY(%s))")
    assert values == [1, [2]]
    named, _ = POSTGRES.translate("SELECT $d, '$d', ? FROM t WHERE x LIKE 'a%'", {"d": 1})
    assert named == "SELECT %(d)s, '$d', ? FROM t WHERE x LIKE 'a%%'"
    plain, none = POSTGRES.translate("CREATE TABLE t (x DOUBLE, y DOUBLE PRECISION)", None)
    assert plain == "CREATE TABLE t (x DOUBLE PRECISION, y DOUBLE PRECISION)"
    assert none is None


@pytest.mark.parametrize(("duckdb", "postgres"), [
    ("list_contains($runs, r.run_id)", "(r.run_id = ANY($runs))"),
    ("list_contains(?, query_id)", "(query_id = ANY(?))"),
    ("quantile_disc(grade, 0.5)", "percentile_disc(0.5) WITHIN GROUP (ORDER BY grade)"),
    ("arg_max(grade, label_id)", "(array_agg(grade ORDER BY label_id DESC))[1]"),
    ("current_timestamp + to_seconds($lease)",
     "current_timestamp + make_interval(secs => $lease)"),
])
def test_each_duckdb_function_has_its_postgresql_form(duckdb: str, postgres: str) -> None:
    assert POSTGRES.translate(duckdb, None)[0] == postgres
