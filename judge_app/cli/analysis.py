"""Analysis commands: evaluate, compare, report, check."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

import click

from judge_app.cli.base import (
    dataset_option,
    db_option,
    emit_table,
    friendly,
    main,
    open_store,
    table_format_option,
)
from judge_app.measure_sets import COMPARE_MEASURES, default_measures
from judge_app.policies import MACHINE_WITNESSES, LabelPolicy, choices
from metrics.conventions import DISCOUNTS, GAINS

FILLED_HELP = ("the dataset's judgments with expert labels filling the gaps and, under "
               "policies median, latest and dawid-skene, overriding dataset grades (the set "
               "is then named overridden:experts, with how many)")
filled_option = click.option("--filled", is_flag=True,
                             help=f"Use the filled label set: {FILLED_HELP}.")
labels_options = (
    click.option("--filled", is_flag=True,
                 help=f"Only the filled label set: {FILLED_HELP}."),
    click.option("--dataset-labels-only", "dataset_only", is_flag=True,
                 help="Only the dataset's own judgments."),
)


def _label_choice(filled: bool, dataset_only: bool) -> str:
    """both (default), filled or dataset, from the two flags (not both at once)."""
    if filled and dataset_only:
        raise click.UsageError("--filled and --dataset-labels-only exclude each other: "
                               "give one, or neither for both label sets side by side")
    return "filled" if filled else "dataset" if dataset_only else "both"
policy_option = click.option(
    "--policy", type=click.Choice(choices(LabelPolicy)), default=LabelPolicy.MEDIAN.value,
    show_default=True, help="How expert labels combine with the dataset's (filled set).")
output_option = click.option(
    "--output", "-o", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Also write the per-query table here (.parquet, else CSV), with a labels column.")
format_option = click.option(
    "--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
    show_default=True,
    help="table: what the figures stand on, then the figures; csv/json: the figures only "
         "(one row per label set, its name in the labels column), the rest on stderr.")
missing_option = click.option(
    "--missing-queries", type=click.Choice(["zero", "drop"]), default="zero",
    show_default=True,
    help="A judged query the run does not answer: scores 0 and is averaged (trec_eval -c), "
         "or is dropped (trec_eval's default).")


witness_option = click.option(
    "--witness", "witnesses", multiple=True,
    type=click.Choice([w.value for w in MACHINE_WITNESSES]),
    help="Also count a machine witness's labels when filling the gaps (repeatable); every "
         "figure then names its label basis, e.g. filled:experts+llm.")

LABELS_HELP = """
    The figures stand on the dataset's judgments and, when experts (or --witness) labelled
    anything, also on the filled label set, side by side and each named (dataset,
    filled:experts); --filled or --dataset-labels-only picks one.  The output first says how
    many queries each mean averages and drops (and why), and each measure's k, gain and
    discount.
"""


def label_and_output_options(fn: Callable) -> Callable:
    """The options evaluate and compare share: labels, policy, output format and file, store."""
    for option in (friendly, db_option, output_option, format_option, missing_option,
                   witness_option, policy_option, *labels_options):
        fn = option(fn)
    return fn


def _stands_on(lines: list[str], fmt: str) -> None:
    """What the figures stand on: on stdout before a table, on stderr beside csv/json."""
    click.echo("\n".join(lines), err=fmt != "table")
    if fmt == "table":
        click.echo("")


@main.command("evaluate")
@dataset_option
@click.option("--run", "runs", multiple=True, required=True, help="Run name (repeatable).")
@click.option("--measures", "-m", default=" ".join(default_measures()),
              show_default=True,
              help="Space-separated measure names (see: sxs measures); ndcg without @k is "
                   "full depth (trec_eval's ndcg).")
@click.option("--per-query", is_flag=True, help="One row per query instead of the means.")
@label_and_output_options
def evaluate_command(dataset: str, runs: tuple[str, ...], measures: str, per_query: bool,
                     filled: bool, dataset_only: bool, policy: str,
                     witnesses: tuple[str, ...], missing_queries: str, fmt: str,
                     output: Path | None, db: Path | None) -> None:
    """Evaluate stored runs on the dataset's judgments and the filled labels.

    Example: sxs evaluate -d cranfield --run bm25 --run title -m "ndcg@10 ndcg_f@10"
    """
    from judge_app.io.csv_safe import write_table
    from judge_app.services import analysis
    from metrics.measures import parse_measures

    labels = _label_choice(filled, dataset_only)
    parsed = [str(m) for m in parse_measures(measures)]
    with open_store(db) as store:
        found = store.dataset(dataset)
        basis = analysis.witness_basis(store, found, witnesses, labels)
        report = analysis.evaluate_report(store, found, list(runs), parsed, labels, policy,
                                          basis, missing_queries)
    _stands_on(report.stands_on(), fmt)
    if output is not None:
        rows = write_table(report.per_query().reset_index(), output)
        click.echo(f"wrote {rows:,} per-query rows to {output}", err=fmt != "table")
    if per_query:
        table = report.per_query()
    elif fmt == "table":
        table = report.side_by_side()
    else:
        table = report.means()
    _emit(table, fmt)


evaluate_command.help = (evaluate_command.help or "") + LABELS_HELP


@main.command("compare")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("--measures", "-m",
              default=" ".join(default_measures(COMPARE_MEASURES)),
              show_default=True, help="Space-separated measure names.")
@click.option("--permutations", default=10_000, show_default=True)
@click.option("--seed", default=0, show_default=True)
@label_and_output_options
def compare_command(run_a: str, run_b: str, dataset: str, measures: str, permutations: int,
                    seed: int, filled: bool, dataset_only: bool, policy: str,
                    witnesses: tuple[str, ...], missing_queries: str, fmt: str,
                    output: Path | None, db: Path | None) -> None:
    """Compare run B against run A: deltas (B - A), paired tests, RBO between them.

    Example: sxs compare title bm25 -d cranfield
    """
    from judge_app.io.csv_safe import csv_text, write_table
    from judge_app.services import analysis
    from metrics.measures import parse_measures

    labels = _label_choice(filled, dataset_only)
    from judge_app.services.agreement import agreement

    with open_store(db) as store:
        found = store.dataset(dataset)
        basis = analysis.witness_basis(store, found, witnesses, labels)
        report = analysis.compare_report(
            store, found, run_a, run_b, [str(m) for m in parse_measures(measures)], labels,
            policy, permutations, seed, basis, missing_queries)
        agreed = agreement(store, found, run_a, run_b) if fmt == "table" else None
    if output is not None:
        rows = write_table(report.per_query(), output)
        click.echo(f"wrote {rows:,} per-query rows to {output}", err=fmt != "table")
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, default=str))
    elif fmt == "csv":
        _stands_on(report.stands_on(), fmt)
        click.echo(csv_text(report.summary()), nl=False)
    else:
        click.echo(str(report))
        if agreed is not None and (agreed.items_multiply_judged or agreed.vote_pairs):
            click.echo(agreed.summary())


compare_command.help = (compare_command.help or "") + LABELS_HELP


_emit = emit_table


@main.command("agreement")
@dataset_option
@click.option("--run-a", default=None, help="Count only the votes on this pair of runs (with "
              "--run-b).")
@click.option("--run-b", default=None)
@table_format_option
@db_option
@friendly
def agreement_command(dataset: str, run_a: str | None, run_b: str | None, fmt: str,
                      db: Path | None) -> None:
    """Inter-judge agreement: quadratic kappa per pair of judges (with the items both graded),
    Krippendorff's alpha over the experts, and how often judges voting on one query agree.

    Example: sxs agreement -d cranfield
    """
    from judge_app.services.agreement import agreement

    with open_store(db) as store:
        found = agreement(store, store.dataset(dataset), run_a, run_b)
    if fmt == "json":
        click.echo(json.dumps({
            "kappas": found.kappas.to_dict(orient="records"),
            "alpha": None if found.items_multiply_judged == 0 else found.alpha,
            "items_multiply_judged": found.items_multiply_judged,
            "vote_agreement": None if found.vote_pairs == 0 else found.vote_agreement,
            "vote_pairs": found.vote_pairs}, indent=2))
        return
    emit_table(found.kappas, fmt)
    if fmt == "table":
        click.echo(found.summary())


@main.command("report")
@click.argument("run_a")
@click.argument("run_b")
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@dataset_option
@click.option("-k", "k", default=10, show_default=True, help="Depth of every measure.")
@click.option("--gain", type=click.Choice(GAINS), default=GAINS[0],
              show_default=True)
@click.option("--discount", type=click.Choice(DISCOUNTS), default=DISCOUNTS[0],
              show_default=True)
@policy_option
@witness_option
@click.option("--rules", type=click.Path(path_type=Path), default=None,
              help="A rules file (see sxs check) to include, checked on run B.")
@db_option
@friendly
def report_command(run_a: str, run_b: str, output: Path, dataset: str, k: int, gain: str,
                   discount: str, policy: str, witnesses: tuple[str, ...], rules: Path | None,
                   db: Path | None) -> None:
    """Write the dashboard as one self-contained HTML file.

    Example: sxs report title bm25 report.html -d cranfield
    """
    from judge_app.io.rules import load_rules
    from judge_app.services import analysis, checks, clicks, dashboard, report

    with open_store(db) as store:
        found = store.dataset(dataset)
        basis = analysis.witness_basis(store, found, witnesses, analysis.FILLED)
        results = None
        if rules is not None:
            results = checks.run_checks(store, found, run_b, load_rules(rules),
                                        filled=True, policy=policy)
        board = dashboard.dashboard(store, found, run_a, run_b,
                                    dashboard.Settings(k, gain, discount, policy,
                                                       basis=basis),
                                    checks=results)
        replayed = clicks.sessions_replayed(store, found, run_a, run_b, k, policy)
    report.write_report(board, output, replayed)
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
    from judge_app.io.rules import load_rules
    from judge_app.services import checks

    parsed = load_rules(rules)
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
