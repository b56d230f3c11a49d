"""``--engine spark``: the plan's Spark SQL pieces over a converted log give the figures of
:mod:`metrics.replay` / :mod:`metrics.coec` to 1e-9 — the same the store and DuckDB give
(tests/services/test_click_engines.py) — on the shipped UBI sample and on a generated log
with ties, censoring, skipped queries and sessions without engagement.  Spark on
``local[2]``; skipped, saying why, without pyspark or a Java runtime.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services import click_engines, clicks
from judge_app.store import Store, click_spark
from judge_app.store.click_spark import spark_missing
from metrics.coec import coec
from tests.services.test_click_engines import (
    assert_same_coec,
    assert_same_replay,
    generated_store,
    generated_ubi_store,
)
from tests.services.test_clicks import SAMPLE

pytestmark = pytest.mark.skipif(spark_missing() is not None,
                                reason=f"Spark cannot run here: {spark_missing()}")
MASTER = "local[2]"


@pytest.fixture(scope="module", autouse=True)
def spark_session():
    """One Spark session for the module, with the engine's own settings
    (:func:`click_spark.spark_session`; JVM start-up is most of a Spark test's time): the
    engines' ``getOrCreate`` reuse it, and it stops when the module is done."""
    session = click_spark.spark_session(MASTER, app="sxs-tests")
    yield session
    session.stop()


def test_local_sessions_are_sized_to_their_cores() -> None:
    assert click_spark.local_cores("local[2]") == 2
    assert click_spark.local_cores("local") == 1
    assert click_spark.local_cores("spark://lake:7077") is None
    config = click_spark.session_config("local[2]")
    assert config["spark.sql.shuffle.partitions"] == "8"
    assert config["spark.sql.adaptive.enabled"] == "true"
    assert "spark.driver.memory" not in click_spark.session_config("yarn")


def test_spark_replays_and_grades_the_sample_as_metrics_does(tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    runner = CliRunner()
    assert runner.invoke(main, ["demo", "--clicks", "--no-serve", "--db", str(db)]).exit_code == 0
    files = tmp_path / "logs"
    assert runner.invoke(main, ["clicks", "convert", str(SAMPLE), str(files)]).exit_code == 0
    replayed = runner.invoke(main, ["replay", "logged", "clicks-oracle", "-d", "esci-ubi",
                                    "--db", str(db), "--from", str(SAMPLE), "--engine", "spark",
                                    "--spark-master", MASTER, "--format", "json",
                                    "--permutations", "500"])
    assert replayed.exit_code == 0, replayed.output
    with Store(db) as store:
        dataset = store.dataset("esci-ubi")
        oracle = clicks.replay_runs(store, dataset, "logged", "clicks-oracle",
                                    permutations=500)
        got = json.loads(replayed.stdout)  # one Spark replay: the NDJSON, via the command
        assert got["basis"] == asdict(oracle.basis)
        for field, value in asdict(oracle.summary).items():
            assert got["summary"][field] == pytest.approx(value, abs=1e-9), field
        expected = coec(store.click_rows(dataset, "impressions", matched_only=True),
                        clicks.engagement_events(store, dataset), min_impressions=3)
        with click_engines.open_engine(store, dataset, "spark", files,
                                       spark_master=MASTER) as opened:
            judged = click_engines.coec_with(opened, store, dataset, 3)
    pd.testing.assert_frame_equal(judged.pairs,
                                  expected.pairs.astype({"query_id": str, "doc_id": str}),
                                  check_dtype=False, atol=1e-12, rtol=0)
    pd.testing.assert_frame_equal(judged.curve, expected.curve, check_dtype=False)
    assert (judged.clicks_off_curve, judged.clicks_unshown) == (expected.clicks_off_curve,
                                                                 expected.clicks_unshown)


def test_spark_replays_a_generated_log_as_metrics_does(tmp_path: Path) -> None:
    store, dataset, files = generated_store(tmp_path, 1)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", depth=3, permutations=300,
                                    seed=1)
        got = clicks.replay_runs(store, dataset, "a", "b", depth=3, permutations=300, seed=1,
                                 engine="spark", source=files, spark_master=MASTER)
    assert oracle.basis.skipped_sessions > 0 and oracle.basis.censored_b > 0
    assert_same_replay(got, oracle)


def test_spark_reads_ubi_ndjson_partitions_in_place_as_import_does(tmp_path: Path) -> None:
    """spark.read.json over hive partitions of bulk gzip and plain NDJSON: the figures of
    the imported log (texts filled from ubi_queries documents, sessions by attribute or
    client, skipped queries, censoring)."""
    store, dataset, folder, _ = generated_ubi_store(tmp_path, 2)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", permutations=300)
        with click_engines.open_engine(store, dataset, "spark", folder,
                                       spark_master=MASTER) as opened:
            got = click_engines.replay_with(opened, store, dataset, "a", "b",
                                            permutations=300)
            assert_same_coec(opened, store, dataset, 2)
    assert oracle.basis.skipped_sessions > 0 and oracle.basis.censored_b > 0
    assert_same_replay(got, oracle)
