"""The ``sxs`` command line: a thin layer over :mod:`judge_app.services`.

The library's own errors become one line on stderr and a non-zero exit, never a traceback.
Every command's help ends with an example.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pandas as pd

from judge_app import checks, dashboard, report, services
from judge_app.demo import build_demo_store
from judge_app.errors import SxsError
from judge_app.io.labels import ColumnMap
from judge_app.store import LabelPolicy, Store, default_db_path
from judge_app.store.serving import SERVED_ENV, serving
from metrics.measures import REGISTRY, parse_measures

DEFAULT_MEASURES = "ndcg@10 ndcg_f@10 ndcg_m@10 best_ndcg_m@10 p@10 judged@10"


def friendly(fn: Callable) -> Callable:
    """Turn sxs and input errors into a one-line ClickException."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SxsError as error:
            raise click.ClickException(str(error)) from None
        except ValueError as error:  # metrics' LayoutError, DuplicateDocError, bad measures
            raise click.ClickException(str(error)) from None
        except BrokenPipeError:
            raise
        except OSError as error:
            raise click.ClickException(f"{error.filename or ''}: {error.strerror}") from None

    return wrapper


db_option = click.option(
    "--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Store file (default: $SXS_DB or ./sxs.duckdb).")
dataset_option = click.option("--dataset", "-d", required=True, help="Dataset name.")


def open_store(db: Path | None) -> Store:
    return Store(db if db is not None else default_db_path())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sxs")
def main() -> None:
    """sxs: side-by-side search judging.

    Blind side-by-side preferences, grades for the results nobody labelled, and NDCG,
    NDCG-f, NDCG-m and rank-biased overlap recomputed with the gaps filled.

    Start with: sxs demo
    """


@main.command()
@db_option
@friendly
def init(db: Path | None) -> None:
    """Create (or upgrade) the store file.

    Example: sxs init --db labels.duckdb
    """
    with open_store(db) as store:
        click.echo(f"{store.path}: schema {store.migrations()[-1]}, "
                   f"datasets: {', '.join(store.dataset_names()) or 'none yet'}")


@main.group()
def dataset() -> None:
    """Create and list datasets (a dataset has a grade scale)."""


@dataset.command("create")
@click.argument("name")
@click.option("--scale", required=True,
              help="esci, wands, binary, cranfield, or values with names: 0=Bad,1=Fair,2=Good")
@db_option
@friendly
def dataset_create(name: str, scale: str, db: Path | None) -> None:
    """Create a dataset with its grade scale.

    Example: sxs dataset create products --scale esci
    """
    with open_store(db) as store:
        created = store.create_dataset(name, services.parse_scale(scale))
        click.echo(f"dataset {created.name!r}: {created.scale.describe()}")


@dataset.command("list")
@db_option
@friendly
def dataset_list(db: Path | None) -> None:
    """List datasets with their scale and runs.

    Example: sxs dataset list
    """
    with open_store(db) as store:
        for name in store.dataset_names():
            found = store.dataset(name)
            runs = ", ".join(store.run_names(found)) or "no runs"
            click.echo(f"{name}: {found.scale.describe()}; runs: {runs}")


@main.group("import")
def import_group() -> None:
    """Import qrels, runs, documents, queries, judgments or Quepid ratings."""


def _report(report: services.ImportReport) -> None:
    click.echo(str(report))


BIG_FILE = 5 * 2**20


@contextlib.contextmanager
def phases(file: Path) -> Iterator[services.Progress | None]:
    """A progress bar through an import's phases (reading, storing) for files over 5 MB."""
    if not file.is_file() or file.stat().st_size < BIG_FILE:
        yield None
        return
    with click.progressbar(length=2, label=f"importing {file.name}", file=sys.stderr,
                           show_eta=False) as bar:
        def step(phase: str) -> None:
            bar.label = f"{phase} {file.name}"
            if phase == "storing":
                bar.update(1)
            bar.render_progress()

        yield step
        bar.update(2 - bar.pos)


conflict_option = click.option(
    "--on-conflict", type=click.Choice(["error", "max", "min", "last"]), default="error",
    show_default=True, help="A (query, doc) judged twice with different grades.")
value_map_option = click.option(
    "--value-map", default=None,
    help="Rewrite raw grades first, e.g. Cranfield codes 1=4,2=3,3=2,4=1,-1= (empty drops).")


@import_group.command("qrels")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@conflict_option
@value_map_option
@click.option("--format", "fmt", type=click.Choice(["auto", "trec", "smart"]), default="auto",
              show_default=True,
              help="trec: qid 0 docid grade; smart: qid docid 0 0, every listed pair relevant "
                   "(grade 1, binary scale); auto: smart when columns 3-4 are all zero.")
@db_option
@friendly
def import_qrels(dataset: str, file: Path, on_conflict: str, value_map: str | None, fmt: str,
                 db: Path | None) -> None:
    """Import TREC qrels (qid 0 docid grade) or a SMART relevance file as the dataset's
    judgments; .gz, .bz2 and .zst files are read as they are.

    Example: sxs import qrels -d cranfield data/cranfield/qrels.txt
    """
    with open_store(db) as store, phases(file) as progress:
        _report(services.import_qrels(store, store.dataset(dataset), file, on_conflict,
                                      value_map, progress, fmt))


@import_group.command("run")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--name", default=None, help="Run name (default: the file's tag column).")
@click.option("--trust-rank", is_flag=True,
              help="Keep the file's ranks instead of re-ranking by score (trec_eval's rule).")
@click.option("--dedupe", is_flag=True, help="Keep the first line of a doc repeated in a query.")
@click.option("--replace", is_flag=True, help="Overwrite a run of the same name.")
@db_option
@friendly
def import_run(dataset: str, file: Path, name: str | None, trust_rank: bool, dedupe: bool,
               replace: bool, db: Path | None) -> None:
    """Import a TREC run (qid Q0 docid rank score tag).

    Example: sxs import run -d cranfield data/cranfield/run_bm25.txt --name bm25
    """
    with open_store(db) as store, phases(file) as progress:
        _report(services.import_run(store, store.dataset(dataset), file, name, trust_rank,
                                    dedupe, replace, progress))


@import_group.command("docs")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--id-column", default="doc_id", show_default=True)
@click.option("--title-column", default="title", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["csv", "tsv", "parquet", "jsonl"]))
@db_option
@friendly
def import_docs(dataset: str, file: Path, id_column: str, title_column: str, fmt: str | None,
                db: Path | None) -> None:
    """Import a document catalog (id, title, any other columns kept as fields).

    Example: sxs import docs -d cranfield data/cranfield/docs.jsonl
    """
    with open_store(db) as store, phases(file) as progress:
        _report(services.import_documents(store, store.dataset(dataset), file, id_column,
                                          title_column, fmt, progress))


@import_group.command("queries")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["csv", "tsv", "parquet", "jsonl"]))
@db_option
@friendly
def import_queries(dataset: str, file: Path, fmt: str | None, db: Path | None) -> None:
    """Import queries (query_id, text), e.g. a headerless query_id<TAB>text file.

    Example: sxs import queries -d cranfield data/cranfield/queries.tsv
    """
    with open_store(db) as store, phases(file) as progress:
        _report(services.import_queries(store, store.dataset(dataset), file, fmt, progress))


@import_group.command("judgments")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--query-column", default="query_id", show_default=True)
@click.option("--doc-column", default="doc_id", show_default=True)
@click.option("--grade-column", default="grade", show_default=True)
@click.option("--format", "fmt", type=click.Choice(["csv", "tsv", "parquet", "jsonl"]))
@conflict_option
@value_map_option
@db_option
@friendly
def import_judgments(dataset: str, file: Path, query_column: str, doc_column: str,
                     grade_column: str, fmt: str | None, on_conflict: str,
                     value_map: str | None, db: Path | None) -> None:
    """Import judgments from CSV, TSV, Parquet or JSONL; grades by value or by name.

    Example: sxs import judgments -d products esci.csv --grade-column esci_label
    """
    with open_store(db) as store:
        columns = ColumnMap(query_column, doc_column, grade_column)
        with phases(file) as progress:
            _report(services.import_judgments(store, store.dataset(dataset), file, columns,
                                              value_map, fmt, on_conflict, progress))


@import_group.command("quepid")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@conflict_option
@db_option
@friendly
def import_quepid(dataset: str, file: Path, on_conflict: str, db: Path | None) -> None:
    """Import Quepid ratings (query,docid,rating), matching queries by their text.

    Example: sxs import quepid -d products ratings.csv
    """
    with open_store(db) as store, phases(file) as progress:
        _report(services.import_quepid(store, store.dataset(dataset), file, on_conflict,
                                       progress))


filled_option = click.option("--filled", is_flag=True,
                             help="Use the filled label set: expert labels fill the gaps.")
policy_option = click.option(
    "--policy", type=click.Choice([p.value for p in LabelPolicy]), default="median",
    show_default=True, help="How expert labels combine with the dataset's (with --filled).")
output_option = click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Also write the per-query table here (.parquet, else CSV).")
format_option = click.option("--format", "fmt", type=click.Choice(["table", "csv", "json"]),
                             default="table", show_default=True)


def label_and_output_options(fn: Callable) -> Callable:
    """The options evaluate and compare share: labels, policy, output format and file, store."""
    for option in (friendly, db_option, output_option, format_option, policy_option,
                   filled_option):
        fn = option(fn)
    return fn


@main.command("evaluate")
@dataset_option
@click.option("--run", "runs", multiple=True, required=True, help="Run name (repeatable).")
@click.option("--measures", "-m", default=DEFAULT_MEASURES, show_default=True,
              help="Space-separated measure names (see: sxs measures).")
@click.option("--per-query", is_flag=True, help="One row per query instead of the means.")
@label_and_output_options
def evaluate_command(dataset: str, runs: tuple[str, ...], measures: str, per_query: bool,
                     filled: bool, policy: str, fmt: str, output: Path | None,
                     db: Path | None) -> None:
    """Evaluate stored runs on the dataset's (or the filled) labels.

    Example: sxs evaluate -d cranfield --run bm25 --run title -m "ndcg@10 ndcg_f@10"
    """
    parsed = [str(m) for m in parse_measures(measures)]
    with open_store(db) as store:
        found = store.dataset(dataset)
        results = {run: services.evaluate_run(store, found, run, parsed, filled, policy)
                   for run in runs}
    per_query_table = pd.concat({run: r.per_query for run, r in results.items()},
                                names=["run"])
    if output is not None:
        rows = services.write_table(per_query_table.reset_index(), output)
        click.echo(f"wrote {rows:,} per-query rows to {output}")
    if per_query:
        table = per_query_table
    else:
        table = pd.DataFrame({run: r.mean for run, r in results.items()}).T
        table.index.name = "run"
    _emit(table, fmt)


@main.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("--measures", "-m", default="ndcg@10 ndcg_f@10 ndcg_m@10 rbo@10",
              show_default=True, help="Space-separated measure names.")
@click.option("--permutations", default=10_000, show_default=True)
@click.option("--seed", default=0, show_default=True)
@label_and_output_options
def compare_command(run_a: str, run_b: str, dataset: str, measures: str, permutations: int,
                    seed: int, filled: bool, policy: str, fmt: str, output: Path | None,
                    db: Path | None) -> None:
    """Compare run B against run A: deltas (B - A), paired tests, RBO between them.

    Example: sxs compare title bm25 -d cranfield
    """
    with open_store(db) as store:
        result = services.compare_runs(store, store.dataset(dataset), run_a, run_b,
                                       [str(m) for m in parse_measures(measures)], filled,
                                       policy, permutations, seed)
    if output is not None:
        rbo = result.rbo.add_prefix(f"{result.rbo_measure}:").reset_index()
        rows = services.write_table(result.per_query.merge(rbo, on="query_id", how="left"),
                                    output)
        click.echo(f"wrote {rows:,} per-query rows to {output}")
    if fmt == "json":
        click.echo(json.dumps(result.to_dict(), indent=2, default=str))
    elif fmt == "csv":
        click.echo(result.summary.to_csv(), nl=False)
    else:
        click.echo(str(result))


def _emit(table: Any, fmt: str) -> None:
    if fmt == "csv":
        click.echo(table.to_csv(), nl=False)
    elif fmt == "json":
        click.echo(table.reset_index().to_json(orient="records", indent=2))
    else:
        click.echo(table.to_string(float_format=lambda v: f"{v:.4f}"))


@main.command("export")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(list(services.EXPORT_FORMATS)))
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@dataset_option
@filled_option
@policy_option
@click.option("--replace-whitespace", "replace_whitespace", metavar="CHAR", default=None,
              help="trec: write CHAR for each whitespace character in an id (by default such "
                   "ids are refused: a TREC file cannot hold them).")
@db_option
@friendly
def export_command(fmt: str, output: Path, dataset: str, filled: bool, policy: str,
                   replace_whitespace: str | None, db: Path | None) -> None:
    """Export labels: trec, quepid, csv / parquet (with provenance) or wide (one column a judge).

    Example: sxs export trec filled.qrels -d cranfield --filled
    """
    with open_store(db) as store:
        rows = services.export_labels(store, store.dataset(dataset), output, fmt, filled,
                                      policy, replace_whitespace)
    click.echo(f"wrote {rows:,} rows to {output}")


@main.command("measures")
def measures_command() -> None:
    """List the measures sxs computes, with their parameters.

    Example: sxs measures
    """
    for name, definition in REGISTRY.items():
        click.echo(f"{name}@k  {definition.description}")
        for pname, param in definition.params.items():
            choices = f" ({'|'.join(map(str, param.choices))})" if param.choices else ""
            click.echo(f"    {pname}={param.default!r}{choices}  {param.description}")


@main.command("report")
@click.argument("run_a")
@click.argument("run_b")
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@dataset_option
@click.option("-k", "k", default=10, show_default=True, help="Depth of every measure.")
@click.option("--gain", type=click.Choice(["linear", "exponential"]), default="linear",
              show_default=True)
@click.option("--discount", type=click.Choice(["log2", "reciprocal"]), default="log2",
              show_default=True)
@policy_option
@click.option("--rules", type=click.Path(path_type=Path), default=None,
              help="A rules file (see sxs check) to include, checked on run B.")
@db_option
@friendly
def report_command(run_a: str, run_b: str, output: Path, dataset: str, k: int, gain: str,
                   discount: str, policy: str, rules: Path | None, db: Path | None) -> None:
    """Write the dashboard as one self-contained HTML file.

    Example: sxs report title bm25 report.html -d cranfield
    """
    with open_store(db) as store:
        found = store.dataset(dataset)
        results = None
        if rules is not None:
            results = checks.run_checks(store, found, run_b, checks.load_rules(rules),
                                        filled=True, policy=policy)
        board = dashboard.dashboard(store, found, run_a, run_b,
                                    dashboard.Settings(k, gain, discount, policy),
                                    checks=results)
    report.write_report(board, output)
    click.echo(f"wrote {output}")


@main.command("check")
@click.argument("rules", type=click.Path(path_type=Path))
@dataset_option
@click.option("--run", "run", required=True, help="The run to check.")
@filled_option
@policy_option
@db_option
@friendly
def check_command(rules: Path, dataset: str, run: str, filled: bool, policy: str,
                  db: Path | None) -> None:
    """Check a run against a TOML file of expectations; exit 1 if any fails.

    Example: sxs check rules.toml -d cranfield --run bm25
    """
    parsed = checks.load_rules(rules)
    with open_store(db) as store:
        results = checks.run_checks(store, store.dataset(dataset), run, parsed, filled, policy)
    for result in results:
        mark = "pass" if result.passed else "FAIL"
        extra = f" [{', '.join(result.offending[:10])}]" if result.offending else ""
        click.echo(f"{mark}  {result.rule.label}: {result.detail}{extra}")
    failed = sum(not r.passed for r in results)
    click.echo(f"{len(results) - failed} passed, {failed} failed")
    if failed:
        sys.exit(1)


APP = Path(__file__).resolve().parent / "ui" / "app.py"


def serve_app(path: Path, host: str, port: int, admins: tuple[str, ...]) -> int:
    """Run the Streamlit app on the store at ``path`` until interrupted; returns its exit code.

    The serve lock is taken first (a second serve or an import then fails at once, clearly),
    and the store is opened and migrated before Streamlit starts.
    """
    with serving(path):
        Store(path).close()  # create or migrate it first: a bad file fails here, clearly
        env = {**os.environ, "SXS_DB": str(path.resolve()), "SXS_ADMINS": ",".join(admins),
               SERVED_ENV: str(path.resolve())}
        return _run_streamlit(path, host, port, env)


def _run_streamlit(path: Path, host: str, port: int, env: dict[str, str]) -> int:
    command = [sys.executable, "-m", "streamlit", "run", str(APP),
               "--server.address", host, "--server.port", str(port),
               "--server.headless", "true", "--browser.gatherUsageStats", "false",
               "--server.fileWatcherType", "none", "--server.maxUploadSize", "200",
               "--client.toolbarMode", "viewer"]
    click.echo(f"sxs is serving {path} at http://{host}:{port}  (Ctrl+C stops it)")
    try:
        return subprocess.run(command, env=env, check=False).returncode
    except KeyboardInterrupt:
        return 0


serve_options = [
    click.option("--host", default="127.0.0.1", show_default=True),
    click.option("--port", default=8501, show_default=True, type=int),
    click.option("--admin", "admins", multiple=True,
                 help="A judge name allowed on the import, export and settings pages."),
]


def with_serve_options(fn: Callable) -> Callable:
    for option in reversed(serve_options):
        fn = option(fn)
    return fn


@main.command("serve")
@db_option
@with_serve_options
@friendly
def serve(db: Path | None, host: str, port: int, admins: tuple[str, ...]) -> None:
    """Start the judging app (Streamlit) on the store.

    Example: sxs serve --db labels.duckdb --admin alice --port 8501
    """
    sys.exit(serve_app(db if db is not None else default_db_path(), host, port, admins))


@main.command("demo")
@db_option
@click.option("--no-serve", is_flag=True, help="Build the store and compare; do not serve.")
@with_serve_options
@friendly
def demo(db: Path | None, no_serve: bool, host: str, port: int,
         admins: tuple[str, ...]) -> None:
    """Load the shipped Cranfield collection, compare its two runs, and serve the judging app.

    Offline and idempotent: running it again reuses the store (and the labels in it).
    Example: sxs demo --admin alice
    """
    path = db if db is not None else default_db_path()
    with Store(path) as store:
        for line in build_demo_store(store):
            click.echo(line)
        result = services.compare_runs(store, store.dataset("cranfield"), "title", "bm25",
                                       ["ndcg@10", "ndcg_f@10", "ndcg_m@10", "judged@10",
                                        "rbo@10"], permutations=2000)
    click.echo(f"\nCranfield, run B = bm25 against run A = title (store: {path}):")
    click.echo(str(result))
    if not no_serve:
        click.echo("")
        sys.exit(serve_app(path, host, port, admins))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
