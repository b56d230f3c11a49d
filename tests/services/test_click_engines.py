"""Replay and COEC at production scale: the plan run by the store and by DuckDB over a
converted log's Parquet files gives :mod:`metrics.replay` / :mod:`metrics.coec`'s figures to
1e-9 (the oracle: the in-memory functions on the stored frames), censored and skipped
counts included; ``sxs clicks convert`` writes the files by day; UBI NDJSON read in place
(a folder of hive partitions, a glob, one file) gives the figures of the same log imported
or converted; a wrong path, a file not in the layout, an empty partition, a bad or empty
NDJSON file → one line naming it.  Spark: tests/services/test_click_spark.py.
"""

from __future__ import annotations

import csv
import gzip
import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import SxsError
from judge_app.services import click_engines, clicks
from judge_app.store import Dataset, Store
from judge_app.store.click_spark import spark_missing
from metrics.coec import coec
from metrics.replay import Replay
from metrics.scale import ESCI
from tests.services.test_clicks import SAMPLE, put_run

QUERIES = 12
START = datetime(2026, 11, 1, 22, tzinfo=UTC)


def generated_log(path: Path, seed: int, sessions: int = 300) -> dict[str, list[str]]:
    """A table log of ``sessions`` sessions and the docs each query's run A ranks.

    Dataset queries q0..q11 ("query k"); sessions name their query by id, by text with other
    case and spacing, or an unknown text; q10 is in no run (its sessions are skipped), q11
    only in run B.  Each session is shown 1..8 of run A's docs, engages 0..3 of them (clicks,
    carts, purchases, hovers that weigh nothing — so some sessions have no engagement, some
    engage twice one doc) and sometimes a doc in neither run (censored), over three UTC days.
    """
    rng = np.random.default_rng(seed)
    ranked = {f"q{k}": [f"d{k}_{j}" for j in range(int(rng.integers(3, 9)))]
              for k in range(QUERIES)}
    rows = []
    for s in range(sessions):
        k = int(rng.integers(0, QUERIES))
        how = rng.choice(["id", "text", "unknown"], p=[0.6, 0.3, 0.1])
        query_id = f"q{k}" if how == "id" else ""
        text = {"id": "", "text": f"  QUERY   {k} ", "unknown": "green hat"}[how]
        stamp = START + timedelta(hours=int(rng.integers(0, 60)))
        shown = ranked[f"q{k}"][:int(rng.integers(1, len(ranked[f"q{k}"]) + 1))]
        for position, doc in enumerate(shown, start=1):
            rows.append((f"s{s}", text, query_id, doc, position, "impression", stamp))
        for _ in range(int(rng.integers(0, 4))):
            outside = rng.random() < 0.15
            doc = f"x{k}_{int(rng.integers(0, 3))}" if outside else str(rng.choice(shown))
            position = "" if outside else shown.index(doc) + 1
            action = str(rng.choice(["click", "click", "add_to_cart", "purchase", "hover"]))
            rows.append((f"s{s}", text, query_id, doc, position, action, stamp))
    with path.open("w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["session_id", "query", "query_id", "doc_id", "position", "action",
                      "timestamp"])
        out.writerows([*r[:6], r[6].isoformat()] for r in rows)
    return ranked


def generated_store(tmp_path: Path, seed: int, address: object = None
                    ) -> tuple[Store, Dataset, Path]:
    """A store (at ``address``, default a DuckDB file in ``tmp_path``) with the generated
    log imported, run A (each query's ranking, q10 left out) and run B (A with neighbours
    swapped — equal-weight swaps tie — a doc replaced, q11 added), and the log converted to
    Parquet by day."""
    log = tmp_path / "log.csv"
    ranked = generated_log(log, seed)
    store = Store(address if address is not None else tmp_path / "engines.duckdb")
    dataset = shop_with_runs(store, ranked)
    clicks.import_clicks(store, dataset, log)
    click_engines.convert_log(log, tmp_path / "parquet")
    return store, dataset, tmp_path / "parquet"


def shop_with_runs(store: Store, ranked: dict[str, list[str]]) -> Dataset:
    """The dataset "shop" (queries q0..q11, "query k") with runs A and B of
    :func:`generated_store`."""
    dataset = store.create_dataset("shop", ESCI)
    store.put_queries(dataset, pd.DataFrame({"query_id": list(ranked),
                                             "text": [f"query {k}" for k in range(QUERIES)]}))
    run_a = [(q, d) for q, docs in ranked.items() if q not in ("q10", "q11") for d in docs]
    run_b = []
    for q, docs in ranked.items():
        if q == "q10":
            continue
        docs = list(docs)
        docs[0], docs[1] = docs[1], docs[0]
        docs[-1] = f"new_{q}"
        run_b += [(q, d) for d in docs[: len(docs) - int(q == "q3")]]
    put_run(store, dataset, "a", run_a)
    put_run(store, dataset, "b", run_b)
    return dataset


def generated_ubi_log(tmp_path: Path, seed: int) -> tuple[dict[str, list[str]], Path, Path]:
    """The generated log of :func:`generated_log` as UBI NDJSON in hive partitions
    ``ubi/dt=YYYY-MM-DD/`` — ``part-0.ndjson.gz`` in OpenSearch bulk format (action lines),
    ``part-1.ndjson`` plain — and the same lines in one file ``all.ndjson`` (what ``sxs
    import clicks`` reads).  It takes every path of the UBI reader: a session is named by
    ``session_id``, by ``event_attributes.session_id`` (``session_id`` blank) or by an
    integer ``client_id`` only; a dataset query by its id (the event's ``query_id``), or a
    search id whose text is the event's ``user_query`` or only its ``ubi_queries``
    documents' (in another partition), or two documents that disagree (no text); ordinals
    0-based, integers or text; timestamps ISO text or epoch milliseconds."""
    rng = np.random.default_rng(seed + 100)
    ranked = generated_log(tmp_path / "log.csv", seed)
    rows = pd.read_csv(tmp_path / "log.csv", dtype=str, keep_default_na=False)
    parts: dict[tuple[str, int], list[str]] = {}
    queries: list[dict[str, object]] = []

    def put(day: str, part: int, document: dict[str, object], index: str) -> None:
        if part == 0:
            action = "create" if index == "ubi_queries" else "index"  # bulk takes either
            parts.setdefault((day, part), []).append(json.dumps({action: {"_index": index}}))
        parts.setdefault((day, part), []).append(json.dumps(document))

    for session, events in rows.groupby("session_id", sort=False):
        first = events.iloc[0]
        stamp = datetime.fromisoformat(first["timestamp"])
        day, part = stamp.date().isoformat(), int(rng.integers(0, 2))
        naming, texts = rng.integers(0, 3), rng.integers(0, 4)
        search = first["query_id"] or f"search-{session}"
        for _, row in events.iterrows():
            document: dict[str, object] = {
                "action_name": row["action"], "query_id": search,
                "timestamp": (row["timestamp"] if rng.random() < 0.5
                              else int(stamp.timestamp() * 1000)),
                "event_attributes": {"object": {"object_id": row["doc_id"]}}}
            if row["position"]:
                ordinal = int(row["position"]) - 1
                document["event_attributes"]["position"] = {
                    "ordinal": ordinal if rng.random() < 0.7 else str(ordinal)}
            if naming == 0:
                document["session_id"] = session
            elif naming == 1:
                document |= {"session_id": "  ", "client_id": "c"}
                document["event_attributes"]["session_id"] = session
            else:
                document["client_id"] = int(session[1:]) + 10_000
            if row["query"] and (texts == 0 or (not first["query_id"] and texts == 3)):
                document["user_query"] = row["query"]
            put(day, part, document, "ubi_events")
        if row["query"] and texts in (1, 2):
            queries.append({"query_id": search, "user_query": row["query"],
                            "timestamp": first["timestamp"]})
            if texts == 2:  # the search id logged with another text too: no text at all
                queries.append({"query_id": search, "user_query": "other words",
                                "timestamp": first["timestamp"]})
    last = max(parts)[0]
    for document in queries:  # in the last day's bulk file, after the events
        put(last, 0, document, "ubi_queries")
    folder = tmp_path / "ubi"
    everything = []
    for (day, part), lines in sorted(parts.items()):
        target = folder / f"dt={day}" / f"part-{part}.ndjson{'.gz' if part == 0 else ''}"
        target.parent.mkdir(parents=True, exist_ok=True)
        text = "\n".join(lines) + "\n"
        target.write_bytes(gzip.compress(text.encode()) if part == 0 else text.encode())
        everything += lines
    (tmp_path / "all.ndjson").write_text("\n".join(everything) + "\n", encoding="utf-8")
    return ranked, folder, tmp_path / "all.ndjson"


def generated_ubi_store(tmp_path: Path, seed: int) -> tuple[Store, Dataset, Path, Path]:
    """A store with :func:`generated_ubi_log` imported (``all.ndjson``) and the runs of
    :func:`generated_store`; returns it, the dataset, the partition folder and the file."""
    ranked, folder, whole = generated_ubi_log(tmp_path, seed)
    store = Store(tmp_path / "ubi.duckdb")
    dataset = shop_with_runs(store, ranked)
    clicks.import_clicks(store, dataset, whole)
    return store, dataset, folder, whole


def assert_same_replay(got: Replay, oracle: Replay) -> None:
    assert got.basis == oracle.basis
    for field, value in vars(oracle.summary).items():
        assert getattr(got.summary, field) == pytest.approx(value, abs=1e-9, nan_ok=True), field
    expected = oracle.per_query.assign(query_id=oracle.per_query["query_id"].astype(str))
    pd.testing.assert_frame_equal(got.per_query, expected.reset_index(drop=True),
                                  check_dtype=False, atol=1e-9, rtol=0)


@pytest.mark.parametrize(("seed", "depth"), [(0, None), (1, 3), (2, None), (3, 1)])
def test_every_engine_replays_a_generated_log_as_metrics_does(tmp_path: Path, seed: int,
                                                              depth: int | None) -> None:
    store, dataset, files = generated_store(tmp_path, seed)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", depth=depth, seed=seed,
                                    permutations=300)
        assert oracle.basis.skipped_sessions > 0 and oracle.basis.censored_a > 0
        assert oracle.basis.censored_b > 0
        assert (oracle.sessions["outcome"] == "unchanged").any()  # ties at the tolerance
        for engine, source, options in (
                ("store", None, {}), ("duckdb", files, {}),
                ("duckdb", str(files) + "/day=*/*.parquet", {}),
                ("duckdb", files, {"batch_rows": 1})):  # one day partition per batch
            got = clicks.replay_runs(store, dataset, "a", "b", depth=depth, seed=seed,
                                     permutations=300, engine=engine, source=source,
                                     **options)
            assert_same_replay(got, oracle)


def assert_same_coec(opened: object, store: Store, dataset: Dataset, minimum: int) -> None:
    expected = coec(store.click_rows(dataset, "impressions", matched_only=True),
                    clicks.engagement_events(store, dataset), min_impressions=minimum)
    judged = click_engines.coec_with(opened, store, dataset, minimum)
    pd.testing.assert_frame_equal(judged.pairs, expected.pairs.astype(
        {"query_id": str, "doc_id": str}), check_dtype=False, atol=1e-12, rtol=0)
    pd.testing.assert_frame_equal(judged.curve, expected.curve, check_dtype=False)
    assert (judged.clicks_off_curve, judged.clicks_unshown) == (expected.clicks_off_curve,
                                                                 expected.clicks_unshown)


@pytest.mark.parametrize(("seed", "depth"), [(0, None), (3, 1)])
def test_ubi_ndjson_is_read_in_place_as_import_and_convert_read_it(tmp_path: Path, seed: int,
                                                                    depth: int | None) -> None:
    """UBI NDJSON read where it lies by DuckDB — a folder of hive partitions (bulk gzip and
    plain files), a glob, one file gzipped or zstd — replays and grades as the imported log (the
    oracle: metrics on the stored frames), the store engine and the converted Parquet do."""
    store, dataset, folder, whole = generated_ubi_store(tmp_path, seed)
    packed = tmp_path / "all.ndjson.gz"
    packed.write_bytes(gzip.compress(whole.read_bytes()))
    zstandard = pytest.importorskip("zstandard")
    squeezed = tmp_path / "all.jsonl.zst"
    squeezed.write_bytes(zstandard.ZstdCompressor().compress(whole.read_bytes()))
    converted = tmp_path / "converted"
    click_engines.convert_log(whole, converted)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", depth=depth, permutations=300)
        assert oracle.basis.skipped_sessions > 0 and oracle.basis.censored_a > 0
        assert (oracle.sessions["outcome"] == "unchanged").any()
        for engine, source in (("store", None), ("duckdb", folder),
                               ("duckdb", f"{folder}/dt=*/*.ndjson*"), ("duckdb", packed),
                               ("duckdb", squeezed), ("duckdb", converted)):
            got = clicks.replay_runs(store, dataset, "a", "b", depth=depth, permutations=300,
                                     engine=engine, source=source)
            assert_same_replay(got, oracle)
            with click_engines.open_engine(store, dataset, engine, source) as opened:
                assert_same_coec(opened, store, dataset, 2)


def test_a_folder_skips_hidden_and_underscore_folders_as_spark_does(tmp_path: Path) -> None:
    """A folder ``--from`` (NDJSON or Parquet) leaves out what lies under a ``.``- or
    ``_``-named folder — a notebook's ``.ipynb_checkpoints/``, a Spark writer's
    ``_temporary/`` — whose copies would count events twice: the figures stay the
    imported log's."""
    import shutil

    store, dataset, folder, whole = generated_ubi_store(tmp_path, 0)
    converted = tmp_path / "converted"
    click_engines.convert_log(whole, converted)
    for root in (folder, converted):
        partitions = [p for p in root.iterdir() if p.is_dir()]
        shutil.copytree(partitions[0], root / "_temporary" / "0" / partitions[0].name)
        shutil.copytree(partitions[-1], root / ".ipynb_checkpoints" / partitions[-1].name)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", permutations=100)
        for source in (folder, converted):
            got = clicks.replay_runs(store, dataset, "a", "b", permutations=100,
                                     engine="duckdb", source=source)
            assert_same_replay(got, oracle)  # a session read twice weighs the same...
            with click_engines.open_engine(store, dataset, "duckdb", source) as opened:
                assert_same_coec(opened, store, dataset, 1)  # ...its impressions do not


def test_ndjson_query_texts_are_normalised_in_duckdb_and_only_matches_leave_it(
        tmp_path: Path) -> None:
    """The check normalises the log's distinct query texts inside DuckDB (the importer's
    ``normalise_query`` as a vectorised function; full-width and ligature forms included) and
    keeps them there; what leaves it for an engine without that connection (Spark) is the
    (text, norm) rows a dataset query matches — bounded by the dataset, not the log — and
    the replay figures stay the imported log's."""
    from judge_app.io.clicks import dataset_query_keys, normalise_query
    from judge_app.store.click_ndjson import dataset_matches

    store, dataset, folder, _ = generated_ubi_store(tmp_path, 1)
    extra = folder / "dt=2026-11-02" / "unicode.ndjson"
    event = json.loads((folder / "dt=2026-11-01" / "part-1.ndjson").read_text(
        encoding="utf-8").splitlines()[0])
    texts = ["\uff31\uff35\uff25\uff32\uff39 1", "query\u00a0 2", "\ufb01g", "green hat"]
    extra.write_text("".join(json.dumps(event | {"user_query": t, "session_id": f"u{k}"}) + "\n"
                             for k, t in enumerate(texts)), encoding="utf-8")
    clicks.import_clicks(store, dataset, extra)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", permutations=100)
        got = clicks.replay_runs(store, dataset, "a", "b", permutations=100,
                                 engine="duckdb", source=folder)
        assert_same_replay(got, oracle)
        keys = dataset_query_keys(store.queries(dataset))
        with click_engines.open_engine(store, dataset, "duckdb", folder) as opened:
            assert not hasattr(opened.ndjson, "norms")  # no text went through pandas
            every = opened.con.execute("SELECT query, norm FROM plan_query_norms").df()
            matched = dataset_matches(opened.con, keys.texts)
    assert {"\uff31\uff35\uff25\uff32\uff39 1", "query\u00a0 2", "green hat"} <= set(every["query"])
    assert (every["norm"] == every["query"].map(normalise_query)).all()
    assert set(matched["norm"]) <= set(keys.texts["norm"]) and len(matched) < len(every)
    assert {"\uff31\uff35\uff25\uff32\uff39 1", "query\u00a0 2"} <= set(matched["query"])
    assert "green hat" not in set(matched["query"])


def test_the_store_engine_gives_the_same_figures_on_either_backend(store_address,
                                                                   tmp_path: Path) -> None:
    store, dataset, _ = generated_store(tmp_path, 7, store_address)
    with store:
        for depth in (None, 2):
            oracle = clicks.replay_runs(store, dataset, "a", "b", depth=depth, permutations=200)
            got = clicks.replay_runs(store, dataset, "a", "b", depth=depth, permutations=200,
                                     engine="store")
            assert_same_replay(got, oracle)
        expected = coec(store.click_rows(dataset, "impressions", matched_only=True),
                        clicks.engagement_events(store, dataset), min_impressions=2)
        with click_engines.open_engine(store, dataset, "store", None) as opened:
            judged = click_engines.coec_with(opened, store, dataset, 2)
    pd.testing.assert_frame_equal(judged.pairs, expected.pairs.astype(
        {"query_id": str, "doc_id": str}), check_dtype=False, atol=1e-12, rtol=0)
    assert (judged.clicks_off_curve, judged.clicks_unshown) == (expected.clicks_off_curve,
                                                                 expected.clicks_unshown)


def test_the_shipped_sample_replays_and_grades_alike_on_every_engine(tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    done = CliRunner().invoke(main, ["demo", "--clicks", "--no-serve", "--db", str(db)])
    assert done.exit_code == 0, done.output
    files = tmp_path / "logs"
    converted = CliRunner().invoke(main, ["clicks", "convert", str(SAMPLE), str(files)])
    assert converted.exit_code == 0, converted.output
    with Store(db) as store:
        dataset = store.dataset("esci-ubi")
        oracle = clicks.replay_runs(store, dataset, "logged", "clicks-oracle",
                                    permutations=500)
        events = clicks.engagement_events(store, dataset)
        impressions = store.click_rows(dataset, "impressions", matched_only=True)
        expected = coec(impressions, events, min_impressions=3)
        for engine, source, options in (("store", None, {}), ("duckdb", files, {}),
                                        ("duckdb", files, {"batch_rows": 1}),
                                        ("duckdb", SAMPLE, {})):  # NDJSON, streamed
            got = clicks.replay_runs(store, dataset, "logged", "clicks-oracle",
                                     permutations=500, engine=engine, source=source,
                                     **options)
            assert_same_replay(got, oracle)
            with click_engines.open_engine(store, dataset, engine, source,
                                           **options) as opened:
                judged = click_engines.coec_with(opened, store, dataset, 3)
            pd.testing.assert_frame_equal(
                judged.pairs, expected.pairs.astype({"query_id": str, "doc_id": str}),
                check_dtype=False, atol=1e-12, rtol=0)
            pd.testing.assert_frame_equal(judged.curve, expected.curve, check_dtype=False)
            assert (judged.clicks_off_curve, judged.clicks_unshown) == (
                expected.clicks_off_curve, expected.clicks_unshown)
    graded = CliRunner().invoke(main, ["clicks", "grade", "-d", "esci-ubi", "--db", str(db),
                                       "--min-impressions", "3", "--from", str(files)])
    assert graded.exit_code == 0, graded.output
    assert "of the log's files" in graded.output
    replayed = CliRunner().invoke(main, ["replay", "logged", "clicks-oracle", "-d", "esci-ubi",
                                         "--db", str(db), "--from", str(files),
                                         "--permutations", "500"])
    assert replayed.exit_code == 0, replayed.output
    assert (f"sessions replayed: {oracle.basis.sessions} over {oracle.basis.queries} "
            f"queries") in replayed.output
    assert "reading 19 file(s), 3,448 events" in replayed.stderr


def test_convert_writes_every_event_in_the_utc_day_its_session_began(tmp_path: Path
                                                                     ) -> None:
    began: dict[str, datetime] = {}
    ended: dict[str, datetime] = {}
    events: list[str] = []
    index = None
    with SAMPLE.open(encoding="utf-8") as handle:  # counted with plain json
        for line in handle:
            document = json.loads(line)
            if "index" in document:
                index = document["index"]["_index"]
            elif index == "ubi_events":
                stamp = document["timestamp"]
                moment = (datetime.fromtimestamp(stamp / 1000, UTC) if isinstance(stamp, int)
                          else datetime.fromisoformat(stamp.replace("Z", "+00:00")))
                session = (document.get("session_id")  # as UBI says: else in the
                           or document["event_attributes"].get("session_id")  # attributes,
                           or document["client_id"])  # else the client
                began[session] = min(began.get(session, moment), moment)
                ended[session] = max(ended.get(session, moment), moment)
                events.append(session)
    days = Counter(began[s].date().isoformat() for s in events)
    assert any(began[s].date() != ended[s].date() for s in began)  # one crosses midnight
    out = tmp_path / "logs"
    result = CliRunner().invoke(main, ["clicks", "convert", str(SAMPLE), str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {sum(days.values()):,} events in {len(days)} day partition(s)" in \
        result.output
    written = {p.name.removeprefix("day="): len(pd.read_parquet(p)) for p in out.iterdir()}
    assert written == dict(days)
    again = CliRunner().invoke(main, ["clicks", "convert", str(SAMPLE), str(out)])
    assert again.exit_code == 2 and "not empty" in again.output


def test_a_wrong_path_a_foreign_schema_or_an_empty_partition_is_one_line(tmp_path: Path
                                                                           ) -> None:
    store, _, files = generated_store(tmp_path, 0)
    store.close()
    foreign = tmp_path / "foreign.parquet"
    pd.DataFrame({"user": ["u1"], "clicked": ["d1"]}).to_parquet(foreign)
    empty_day = files / "day=2026-11-09"
    empty_day.mkdir()
    empty = empty_day / "empty.parquet"
    day = next(files.iterdir())
    pd.read_parquet(day).head(0).to_parquet(empty)
    runner = CliRunner()
    for source, says in ((tmp_path / "nowhere", "no click-log file found there"),
                         (foreign, "not a UBI click log"), (files, "holds no event"),
                         (tmp_path / "log.csv", "not Parquet")):
        for command in (["replay", "a", "b"], ["clicks", "grade"]):
            result = runner.invoke(main, [*command, "-d", "shop", "--db",
                                          str(tmp_path / "engines.duckdb"), "--from",
                                          str(source)])
            assert result.exit_code == 2, result.output
            line = result.output.strip()
            assert line.count("\n") == 0 and says in line, line
            assert str(empty if source == files else source) in line
    with Store(tmp_path / "engines.duckdb") as store, pytest.raises(SxsError, match="--from"):
        clicks.replay_runs(store, store.dataset("shop"), "a", "b", engine="duckdb")


def test_duckdb_keeps_to_its_memory_limit_by_spilling(tmp_path: Path) -> None:
    store, dataset, files = generated_store(tmp_path, 5)
    with store:
        oracle = clicks.replay_runs(store, dataset, "a", "b", permutations=200)
        tight = clicks.replay_runs(store, dataset, "a", "b", permutations=200,
                                   source=files, memory_limit="64MB")
    assert_same_replay(tight, oracle)


def test_convert_streams_ndjson_in_chunks_with_the_same_layout(tmp_path: Path) -> None:
    """The sample (bulk NDJSON, gzipped here) read 50 documents at a time — bulk action lines
    and their documents split across chunks, texts filled from ubi_queries documents of
    other chunks — gives the layout the whole-file reader gives."""
    packed = tmp_path / "sample.ndjson.gz"
    packed.write_bytes(gzip.compress(SAMPLE.read_bytes()))
    streamed = click_engines.convert_log(packed, tmp_path / "streamed", chunk=50)
    from judge_app.io.clicks import layout_frame, read_clicks
    from judge_app.store.click_files import write_partitioned

    whole = write_partitioned(layout_frame(read_clicks(SAMPLE)), tmp_path / "whole")
    assert streamed == whole

    def rows(folder: Path) -> pd.DataFrame:
        frame = pd.read_parquet(folder)
        return frame.astype({"day": str}).sort_values(list(frame.columns)).reset_index(
            drop=True)

    pd.testing.assert_frame_equal(rows(tmp_path / "streamed"), rows(tmp_path / "whole"),
                                  check_dtype=False)


def test_a_bad_line_late_in_a_streamed_log_is_one_line_and_nothing_is_written(
        tmp_path: Path) -> None:
    lines = SAMPLE.read_text(encoding="utf-8").splitlines()
    broken = tmp_path / "broken.ndjson"
    broken.write_text("\n".join([*lines[:-1], '{"action_name": "click", "timestamp": '
                                 '"2024-12-10T00:01:29Z"}']) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["clicks", "convert", str(broken),
                                       str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    said = [line for line in result.output.splitlines() if not line.startswith("reading ")]
    assert len(said) == 1, result.output  # beside the progress line, one line
    assert str(broken) in said[0] and f"line {len(lines)}" in said[0], said
    assert "session_id" in said[0]
    assert not (tmp_path / "out").exists()


def test_a_bad_ubi_ndjson_file_read_in_place_is_one_line_naming_it(tmp_path: Path) -> None:
    """In a folder of good partitions, a file whose document misses a required field, has a
    field of the wrong type, is not JSON, names an unknown index, is empty, is a cut gzip
    stream, or files an event under ``ubi_queries`` (the importer reads it as a query; in
    place it is refused, with a pointer to ``sxs clicks convert``): replay and
    grade (DuckDB and Spark, which share the check) print one line naming the file, and the
    line and field where there is one.  Each bulk action line is paired with the line after
    it (not counted per file): a misfiled event balanced by a plain query, two action lines
    in a row, a trailing one; a timestamp DuckDB casts but the importer refuses
    (``infinity``, ``epoch``, a zone name, hour 24)."""
    store, _, folder, _ = generated_ubi_store(tmp_path, 0)
    store.close()
    good = (folder / "dt=2026-11-01" / "part-1.ndjson").read_text(encoding="utf-8")
    event = json.loads(good.splitlines()[0])
    cases = {
        "no-stamp.ndjson": ([good.splitlines()[0], json.dumps(
            {k: v for k, v in event.items() if k != "timestamp"})], "line 2, field timestamp"),
        "typed.ndjson": ([json.dumps(event | {"session_id": True})],
                         "line 1, field session_id"),
        "ordinal.ndjson.gz": ([json.dumps(event | {"event_attributes": {
            "position": {"ordinal": 1.5}}})], "line 1, field event_attributes.position"),
        "broken.ndjson": ([good.splitlines()[0], '{"action_name": "click",'],
                          "line 2: not valid JSON"),
        "index.ndjson": ([json.dumps({"index": {"_index": "ubi_other"}}),
                          json.dumps(event)], "line 1, field _index"),
        "empty.ndjson": ([], "the file is empty"),
        "kinds.ndjson": ([json.dumps({"index": {"_index": "ubi_queries"}}), json.dumps(event)],
                         "line 2, field _index: the bulk action line's _index disagrees with "
                         "its document"),  # import reads a query here
        # the same balanced by a plain query document (a check of counts alone passed it)
        "balanced.ndjson": ([json.dumps({"index": {"_index": "ubi_queries"}}), json.dumps(event),
                             json.dumps({"query_id": "q1", "user_query": "query 1"})],
                            "line 2, field _index"),
        "twice.ndjson": ([json.dumps({"index": {"_index": "ubi_events"}})] * 2
                         + [json.dumps(event)] * 2, "line 2: two bulk action lines in a row"),
        "trailing.ndjson": ([json.dumps(event)] * 2 + [json.dumps({"create": {}})],
                            "line 3: a bulk action line with no document after it"),
        # DuckDB's cast reads these; the importer refuses them (not ISO 8601)
        "infinity.ndjson": ([json.dumps(event), json.dumps(event | {"timestamp": "infinity"})],
                            "line 2, field timestamp: timestamp 'infinity' is neither"),
        "epoch.ndjson": ([json.dumps(event | {"timestamp": "epoch"})],
                         "line 1, field timestamp"),
        "zone.ndjson": ([json.dumps(event | {"timestamp": "2026-11-01 12:00:00 Europe/Paris"})],
                        "line 1, field timestamp"),
        "hour24.ndjson": ([json.dumps(event | {"timestamp": "2026-11-01T24:00:00Z"})],
                          "line 1, field timestamp"),
        "truncated.ndjson.gz": ([good] * 40, "not a readable file")}
    runner = CliRunner()
    for name, (lines, says) in cases.items():
        bad = folder / "dt=2026-11-02" / name
        text = ("\n".join(lines) + "\n" if lines else "").encode()
        packed = gzip.compress(text)
        bad.write_bytes(text if not name.endswith(".gz") else
                        packed[:len(packed) // 2] if name.startswith("truncated") else packed)
        ways = [(["replay", "a", "b"], "duckdb")]
        if name == "no-stamp.ndjson":  # Spark is checked by the same pass, before it starts
            ways += [(["clicks", "grade"], "duckdb")] + (
                [(["replay", "a", "b"], "spark")] if spark_missing() is None else [])
        for command, engine in ways:
            result = runner.invoke(main, [*command, "-d", "shop", "--db",
                                          str(tmp_path / "ubi.duckdb"), "--from", str(folder),
                                          "--engine", engine])
            assert result.exit_code == 2, result.output
            said = [line for line in result.output.strip().splitlines()
                    if not line.startswith(("checking ", "reading "))]
            assert len(said) == 1 and str(bad) in said[0] and says in said[0], result.output
        bad.unlink()
    array = tmp_path / "array.json"
    array.write_text(f"[{json.dumps(event)}]", encoding="utf-8")
    result = runner.invoke(main, ["replay", "a", "b", "-d", "shop", "--db",
                                  str(tmp_path / "ubi.duckdb"), "--from", str(array)])
    assert result.exit_code == 2 and "a JSON array, not NDJSON" in result.output
    assert str(array) in result.output
