"""Is B better yet: ``sxs decide`` (each witness's verdict), ``sxs backfill next`` (the next
pairs to grade, most useful first) and ``sxs simulate judging`` (replay judging with an
oracle's grades)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judge_app.cli.analysis import policy_option, witness_option
from judge_app.cli.base import dataset_option, db_option, friendly, main, open_store

if TYPE_CHECKING:
    from judge_app.services.decision import DecisionReport
    from metrics.judging_simulation import JudgingReplay

UNDECIDED_EXIT = 3
"""``sxs decide``'s exit code while the labels verdict on the first measure is undecided."""

confidence_option = click.option(
    "--confidence", default=0.95, show_default=True, type=float,
    help="How sure a verdict must be (strictly between 0.5 and 1).")
measure_option = click.option(
    "--measure", "-m", "measure", default="ndcg_m@10", show_default=True,
    help="The measure the order serves: ndcg_m@k, ndcg@k or ndcg_f@k.")
ORDER_DEFAULT = "decision"
"""The order served by default (the names are :class:`metrics.judging_order.JudgingOrder`'s,
checked by it: importing it here would load numpy at start-up)."""
order_help = ("One of decision, weight, pool, random.  decision: by value for the decision "
              "(the expected reduction of the label uncertainty of mean Δ); weight: the sum "
              "of the pair's discounts in both top k's (the app's backfill order so far); "
              "pool: query by query, best rank first; random: seeded shuffle.")
table_or_json = click.option("--format", "fmt", type=click.Choice(["table", "json"]),
                             default="table", show_default=True)
seed_option = click.option("--seed", default=0, show_default=True, type=int,
                           help="Seed of the Monte Carlo and of the random order.")


def _number(value: float, digits: int = 4, sign: bool = False) -> str:
    return f"{value:+.{digits}f}" if sign else f"{value:.{digits}f}"


def _decision_text(report: DecisionReport) -> str:
    import pandas as pd

    from judge_app.policies import MISSING

    rows = []
    for d in report.decisions:
        needed = MISSING
        if d.limit is not None:
            count = d.labels_needed if d.limit.value == "labels" else d.queries_needed
            needed = f"~{count:,} {d.limit.value}" if count is not None else d.limit.value
        rows.append({"measure": d.measure, "verdict": d.verdict.label,
                     "judged": f"{d.judged:,} of {d.judged + d.unjudged:,}",
                     "mean Δ": _number(d.expected, sign=True),
                     "certain": f"{_number(d.lower, sign=True)} .. {_number(d.upper, sign=True)}",
                     "P(B>A)": _number(d.p_b_better, 3), "paired t p": f"{d.p_query:.3g}",
                     "still needed": needed})
    table = pd.DataFrame(rows).to_string(index=False)
    votes = report.votes
    cast = votes.wins_a + votes.wins_b
    if cast:
        vote_line = (f"expert votes: {votes.wins_b:,} for B, {votes.wins_a:,} for A "
                     f"({votes.ties:,} ties or both bad left out): {votes.description}; "
                     f"always-valid {report.confidence:.0%} interval for P(B preferred) "
                     f"{votes.low:.3f} .. {votes.high:.3f} (rate {votes.rate:.3f})")
    else:
        vote_line = (f"expert votes: none for B or A yet ({votes.ties:,} ties or both bad): "
                     "undecided")
    lines = [f"{report.run_b} (B) against {report.run_a} (A), dataset {report.dataset!r}, "
             f"confidence {report.confidence:g}",
             f"labels: {report.labels.name} = {report.labels.description}", "", table, ""]
    lines += [f"{d.measure}: {d.verdict.label}; {d.explanation()}" for d in report.decisions]
    lines += ["", vote_line]
    return "\n".join(lines)


@main.command("decide")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("--measure", "-m", "measures", multiple=True, default=("ndcg_m@10",),
              show_default=True,
              help="Measure to decide on (repeatable, or space-separated): ndcg_m@k, ndcg@k, "
                   "ndcg_f@k.  The exit code follows the first.")
@confidence_option
@table_or_json
@policy_option
@witness_option
@seed_option
@db_option
@friendly
def decide_command(run_a: str, run_b: str, dataset: str, measures: tuple[str, ...],
                   confidence: float, fmt: str, policy: str, witnesses: tuple[str, ...],
                   seed: int, db: Path | None) -> None:
    """Is B better than A yet?  Each witness's verdict and what would decide it.

    Labels: per measure, the mean Δ (B - A) on the filled label set (the dataset's judgments
    with expert labels filling the gaps), its certain bounds over every grade the unjudged
    pool pairs could take, the probable P(B > A) under a model of those grades, the paired
    t-test over the queries, the verdict (decided: B better / A better / no difference we
    could detect, or undecided) and about how many more labels or queries would decide it.
    Expert votes: an always-valid sequential test of the win rate (valid however often it
    is checked) and its interval.

    Exit code: 0 when the labels verdict on the first measure is decided, 3 when it is
    undecided (usable in CI), 2 on bad input.

    Example: sxs decide title bm25 -d cranfield -m ndcg_m@10 -m ndcg@10
    """
    from judge_app.services import analysis
    from judge_app.services import decision as service

    names = [m for value in measures for m in value.split()]
    with open_store(db) as store:
        found = store.dataset(dataset)
        basis = analysis.witness_basis(store, found, witnesses, analysis.FILLED)
        report = service.decide_runs(store, found, run_a, run_b, names, confidence, policy,
                                     basis, seed)
    if fmt == "json":
        click.echo(json.dumps(report.to_dict(), indent=2, default=str, allow_nan=False))
    else:
        click.echo(_decision_text(report))
    if not report.decided:
        sys.exit(UNDECIDED_EXIT)


@main.group("backfill")
def backfill_group() -> None:
    """Backfill: the pairs to grade next, for assessors working outside the app.

    Example: sxs backfill next title bm25 -d cranfield --batch 50
    """


@backfill_group.command("next")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("--batch", default=20, show_default=True, type=click.IntRange(min=1),
              help="How many pairs.")
@click.option("--order", default=ORDER_DEFAULT, show_default=True, help=order_help)
@measure_option
@click.option("--format", "fmt", type=click.Choice(["tsv", "csv", "json"]), default="tsv",
              show_default=True, help="tsv/csv (cells guarded against spreadsheet formulas) "
                                      "or json records.")
@policy_option
@witness_option
@seed_option
@db_option
@friendly
def backfill_next_command(run_a: str, run_b: str, dataset: str, batch: int, order: str,
                          measure: str, fmt: str, policy: str, witnesses: tuple[str, ...],
                          seed: int, db: Path | None) -> None:
    """The next unjudged (query_id, doc_id) pairs of the two runs' top k, most useful first.

    Columns: query_id, doc_id, rank_a, rank_b (0: not in that run's top k), weight (the sum
    of the pair's discounts in both top k's) and value (what the order sorts by).  Grades
    come back with: sxs import labels.

    Example: sxs backfill next title bm25 -d cranfield --batch 50 --format csv
    """
    from judge_app.io.csv_safe import write_csv
    from judge_app.services import analysis
    from judge_app.services import decision as service

    with open_store(db) as store:
        found = store.dataset(dataset)
        basis = analysis.witness_basis(store, found, witnesses, analysis.FILLED)
        pairs = service.backfill_next(store, found, run_a, run_b, batch, order, measure,
                                      policy, basis, seed)
    if fmt == "json":
        click.echo(pairs.to_json(orient="records", indent=2))
    else:
        stream = click.get_text_stream("stdout")
        write_csv(pairs, stream, sep="\t" if fmt == "tsv" else ",")


@main.group("simulate")
def simulate_group() -> None:
    """Simulations on your own fully judged data, before trusting a method.

    Example: sxs simulate judging title bm25 -d cranfield --oracle data/cranfield/qrels.txt
    """


def _replay_table(replays: list[JudgingReplay]) -> str:
    import pandas as pd

    rows = [{"order": r.order.value, "judgments": f"{r.judgments:,}",
             "share of pool": f"{r.share:.1%}", "verdict": r.verdict.label,
             "all judged": r.reference.verdict.label, "agrees": "yes" if r.agrees else "NO"}
            for r in replays]
    first = replays[0].to_dict()
    head = (f"{first['measure']} at confidence {first['confidence']:g}: depth-k pool of "
            f"{first['pool']:,} pairs, {first['judged_at_start']:,} judged at the start")
    return f"{head}\n{pd.DataFrame(rows).to_string(index=False)}"


@simulate_group.command("judging")
@click.argument("run_a")
@click.argument("run_b")
@dataset_option
@click.option("--oracle", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="TREC qrels (or SMART) file with the grades to replay; a pool pair it "
                   "does not list is grade 0.")
@click.option("--order", "orders", multiple=True, default=(ORDER_DEFAULT,), show_default=True,
              help="Judging order to replay (repeatable). " + order_help)
@confidence_option
@click.option("--start-from", default="none", show_default=True,
              help="none: start from no label; dataset: from the labels the store holds (the "
                   "filled set).")
@measure_option
@click.option("--batch", default=1, show_default=True, type=click.IntRange(min=1),
              help="Judgments between two decisions (1: decide after every one).")
@table_or_json
@policy_option
@seed_option
@db_option
@friendly
def simulate_judging_command(run_a: str, run_b: str, dataset: str, oracle: Path,
                             orders: tuple[str, ...], confidence: float, start_from: str,
                             measure: str, batch: int, fmt: str, policy: str, seed: int,
                             db: Path | None) -> None:
    """Replay judging with an oracle's grades: judgments until decided, per order.

    Walks the two runs' depth-k pool in each order, grading with the oracle and deciding
    after every batch, until the verdict is decided or the pool is judged; prints the
    judgments made, their share of the pool, the verdict, and the verdict with every pool
    pair judged by the oracle.  Reads the store, never writes it.

    Example: sxs simulate judging title bm25 -d cranfield --oracle data/cranfield/qrels.txt --order decision --order weight
    """  # noqa: E501 - the example is one command line
    from judge_app.services import decision as service

    with open_store(db) as store:
        found = store.dataset(dataset)
        replays = service.simulate(store, found, run_a, run_b, oracle, orders, measure,
                                   confidence, start_from, batch, policy, seed=seed)
    if fmt == "json":
        click.echo(json.dumps([r.to_dict() for r in replays], indent=2, default=str))
    else:
        click.echo(_replay_table(replays))
