"""Click-log commands: ``sxs import clicks``, ``sxs replay`` and ``sxs clicks
grade|list|convert``, through :mod:`judge_app.services.clicks` and
:mod:`judge_app.services.click_engines`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import click

from judge_app.cli.base import dataset_option, db_option, friendly, main, open_store
from judge_app.cli.imports import import_group, phases
from judge_app.io.formats import CLICK_FORMATS, ImportKind

weights_option = click.option(
    "--weights", default=None,
    help="Engaged actions and their weights, e.g. click=1,add_to_cart=2,purchase=3 (the "
         "default); any other action is not an engagement.")


def engine_options(command: Callable) -> Callable:
    """``--from``, ``--engine``, ``--spark-master`` and ``--memory-limit``."""
    for option in reversed([
        click.option("--from", "source", default=None,
                     help="Read a log's files instead of the store: a converted log's "
                          "Parquet file, glob ('logs/day=2026-11-*/*.parquet') or folder of "
                          "day partitions (sxs clicks convert writes one), or UBI NDJSON "
                          "read in place: a file, glob ('logs/dt=2026-11-*/*.ndjson.gz') or "
                          "folder of them (bulk or plain; .gz, .zst too)."),
        click.option("--engine", type=click.Choice(["store", "duckdb", "spark"]), default=None,
                     help="Who runs the plan: store (the imported log, out of core), duckdb "
                          "(--from files; the default with --from), spark (--from files, "
                          "pip install 'sxs[spark]').  Default without --from: the stored "
                          "log in memory."),
        click.option("--spark-master", default="local[*]", show_default=True,
                     help="Spark master URL for --engine spark."),
        click.option("--memory-limit", default=None,
                     help="DuckDB's memory limit for --engine duckdb (default 2GB); beyond it "
                          "DuckDB spills to a temporary folder.")]):
        command = option(command)
    return command


def _engine_kwargs(source: str | None, engine: str | None, spark_master: str,
                   memory_limit: str | None) -> dict[str, object]:
    if source is None and engine is None:
        return {}
    return {"source": source, "engine": engine, "spark_master": spark_master,
            "memory_limit": memory_limit,
            "progress": lambda line: click.echo(line, err=True)}


def _floats(text: str | None) -> tuple[float, ...] | None:
    if text is None:
        return None
    try:
        return tuple(float(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise click.BadParameter(f"{text!r} is not a comma-separated list of numbers",
                                 param_hint="--thresholds") from None


@import_group.command(ImportKind.CLICKS.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(CLICK_FORMATS), default=None,
              help="ubi (bulk or plain NDJSON/JSON), csv, tsv or parquet (default: from the "
                   "suffix).")
@weights_option
@click.option("--as-run", "as_run", default=None,
              help="Also store the logged ranking (impressions by mean logged rank per query) "
                   "as a run of this name, e.g. logged.")
@click.option("--replace", is_flag=True, help="Overwrite a run named like --as-run.")
@db_option
@friendly
def import_clicks(dataset: str, file: Path, fmt: str | None, weights: str | None,
                  as_run: str | None, replace: bool, db: Path | None) -> None:
    """Import a click log (OpenSearch UBI ubi_queries/ubi_events, or a table of
    session_id, query or query_id, doc_id, position, action, timestamp), matching its
    queries to the dataset's by id, else by normalised text.

    Example: sxs import clicks -d esci-ubi data/esci-ubi/ubi_queries_events.ndjson --as-run logged
    """
    from judge_app.services import clicks

    parsed = clicks.parse_weights(weights)
    with open_store(db) as store, phases(file) as progress:
        click.echo(str(clicks.import_clicks(store, store.dataset(dataset), file, fmt, parsed,
                                            as_run, replace, progress=progress)))


@main.command("replay")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("--depth", type=click.IntRange(min=1), default=None,
              help="Censor ranks beyond this depth (default: the longer of the two rankings "
                   "per query).")
@weights_option
@click.option("--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Also write one row per replayed session here (.parquet, else CSV).")
@click.option("--permutations", default=10_000, show_default=True)
@click.option("--seed", default=0, show_default=True,
              help="Seed of the randomization test and the query bootstrap.")
@click.option("--format", "fmt", type=click.Choice(["table", "json"]), default="table",
              show_default=True)
@engine_options
@db_option
@friendly
def replay_command(run_a: str, run_b: str, dataset: str, depth: int | None,
                   weights: str | None, output: Path | None, permutations: int, seed: int,
                   fmt: str, source: str | None, engine: str | None, spark_master: str,
                   memory_limit: str | None, db: Path | None) -> None:
    """Replay the logged sessions under run A and run B: where would each run have put what
    users engaged with (mean reciprocal rank, B - A), every query weighing the same.

    Example: sxs replay logged clicks-oracle -d esci-ubi -o sessions.csv

    A log too big for memory, converted to Parquet (sxs clicks convert):
    sxs replay logged clicks-oracle -d esci-ubi --from logs/ --engine duckdb
    """
    from judge_app.io.csv_safe import write_table
    from judge_app.services import clicks

    parsed = clicks.parse_weights(weights)
    chosen = _engine_kwargs(source, engine, spark_master, memory_limit)
    if output is not None and chosen:
        raise click.UsageError("-o writes per-session rows, which only the in-memory replay "
                               "of the stored log keeps (drop --from/--engine)")
    with open_store(db) as store:
        result = clicks.replay_runs(store, store.dataset(dataset), run_a, run_b, depth=depth,
                                    weights=parsed, permutations=permutations, seed=seed,
                                    **chosen)
    if output is not None:
        rows = write_table(result.sessions, output)
        click.echo(f"wrote {rows:,} per-session rows to {output}")
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, default=str))
    else:
        click.echo(f"run B = {run_b} against run A = {run_a} on dataset {dataset!r} "
                   f"(weights {result.settings['weights']}, depth {result.settings['depth']})")
        click.echo(str(result))


@main.group("clicks")
def clicks_group() -> None:
    """Click logs: list the imports, grade (query, doc) pairs by clicks over expected clicks."""


@clicks_group.command("grade")
@dataset_option
@click.option("--min-impressions", type=click.IntRange(min=1), default=10, show_default=True,
              help="Grade only (query, doc) pairs shown at least this often.")
@click.option("--thresholds", default=None,
              help="Ascending COEC cut-offs, one fewer than the scale's grades (default: "
                   "geometric around 1, e.g. 0.5,1,2 for ESCI).")
@engine_options
@db_option
@friendly
def clicks_grade(dataset: str, min_impressions: int, thresholds: str | None,
                 source: str | None, engine: str | None, spark_master: str,
                 memory_limit: str | None, db: Path | None) -> None:
    """Grade (query, doc) pairs by clicks over expected clicks (COEC, position bias from the
    log itself: over every query of the imported log; with --engine or --from over the
    dataset's queries' impressions — the output says which) and store the grades as labels
    of judge clicks:coec — never as dataset judgments; they count only where asked
    (--witness clicks).  A pair shown --min-impressions times and never clicked gets the
    lowest grade; when nothing is graded the output says why.

    Example: sxs clicks grade -d esci-ubi --min-impressions 3
    """
    from judge_app.services import clicks

    cuts = _floats(thresholds)
    with open_store(db) as store:
        click.echo(str(clicks.grade_clicks(
            store, store.dataset(dataset), min_impressions, cuts,
            **_engine_kwargs(source, engine, spark_master, memory_limit))))


@clicks_group.command("convert")
@click.argument("log", type=click.Path(path_type=Path))
@click.argument("out", type=click.Path(file_okay=False, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(CLICK_FORMATS), default=None,
              help="ubi, csv, tsv or parquet (default: from the suffix).")
@friendly
def clicks_convert(log: Path, out: Path, fmt: str | None) -> None:
    """Write a UBI (or table) click log as Parquet partitioned by the UTC day each session
    began (OUT/day=YYYY-MM-DD/), the layout sxs replay and sxs clicks grade read with --from.
    UBI NDJSON (.gz too) is streamed, never held whole.

    Example: sxs clicks convert data/esci-ubi/ubi_queries_events.ndjson logs/
    """
    from judge_app.services import click_engines

    days = click_engines.convert_log(log, out, fmt,
                                     progress=lambda line: click.echo(line, err=True))
    click.echo(f"wrote {sum(days.values()):,} events in {len(days):,} day partition(s) "
               f"under {out} ({min(days)} .. {max(days)})")


@clicks_group.command("list")
@dataset_option
@db_option
@friendly
def clicks_list(dataset: str, db: Path | None) -> None:
    """List the dataset's click-log imports with their counts.

    Example: sxs clicks list -d esci-ubi
    """
    with open_store(db) as store:
        imports = store.click_imports(store.dataset(dataset))
    if imports.empty:
        click.echo(f"dataset {dataset!r} has no click log")
    for row in imports.itertuples():
        run = f", logged run {row.logged_run!r}" if row.logged_run else ""
        click.echo(f"import {row.import_id}: {row.source} ({row.format}) at "
                   f"{row.imported_at:%Y-%m-%d %H:%M}: {row.impressions:,} impressions, "
                   f"{row.events:,} events, sessions {row.sessions_matched:,} of "
                   f"{row.sessions:,} matched, queries {row.queries_matched:,} of "
                   f"{row.log_queries:,} matched; weights {row.weights}{run}")
