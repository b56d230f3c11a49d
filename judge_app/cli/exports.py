"""``sxs export``: labels out, through :mod:`judge_app.services.exporting`."""

from __future__ import annotations

from pathlib import Path

import click

from judge_app.cli.analysis import filled_option, policy_option
from judge_app.cli.base import dataset_option, db_option, friendly, main, open_store
from judge_app.io.formats import EXPORT_CHOICES, RUN, VOTE_FORMATS, VOTES


@main.command("export")
@click.argument("fmt", metavar="FORMAT", type=click.Choice(list(EXPORT_CHOICES)))
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@dataset_option
@filled_option
@policy_option
@click.option("--replace-whitespace", "replace_whitespace", metavar="CHAR", default=None,
              help="trec: write CHAR for each whitespace character in an id (by default such "
                   "ids are refused: a TREC file cannot hold them).")
@click.option("--format", "file_format", type=click.Choice(list(VOTE_FORMATS)), default=None,
              help="votes: csv, parquet or jsonl (default: from OUTPUT's suffix, else csv).")
@click.option("--run", "run", default=None, metavar="NAME",
              help="run: the stored run to write as a TREC run file.")
@db_option
@friendly
def export_command(fmt: str, output: Path, dataset: str, filled: bool, policy: str,
                   replace_whitespace: str | None, file_format: str | None, run: str | None,
                   db: Path | None) -> None:
    """Export labels: trec, quepid, csv / parquet (with provenance) or wide (one column a judge);
    or votes: every side-by-side vote with its reason, sides, blind flag, round, judge and
    times, stale and retracted ones marked (csv, parquet or jsonl; read back by sxs import
    votes).

    Example: sxs export trec filled.qrels -d cranfield --filled

    Example: sxs export votes votes.csv -d cranfield

    Or one stored run as a TREC run file (qid Q0 docid rank score tag; read back by sxs
    import run).

    Example: sxs export run bm25.run -d cranfield --run bm25
    """
    from judge_app.services import exporting, judge_standing

    if file_format is not None and fmt != VOTES:
        raise click.UsageError("--format is for sxs export votes (a label format is FORMAT)")
    if (run is None) == (fmt == RUN):
        raise click.UsageError("sxs export run takes --run NAME (and only it takes --run)")
    with open_store(db) as store:
        chosen = store.dataset(dataset)
        if fmt == RUN:
            rows = exporting.export_run(store, chosen, run, output, replace_whitespace)
            click.echo(f"wrote {rows:,} results of run {run!r} to {output}")
            return
        if fmt == VOTES:
            click.echo(f"wrote {exporting.export_votes(store, chosen, output, file_format):,} "
                       f"votes to {output}")
            return
        rows = exporting.export_labels(store, chosen, output, fmt, filled, policy,
                                       replace_whitespace)
        named = exporting.labels_exported(store, chosen, fmt, filled, policy)
        left_out = judge_standing.left_out_line(store, chosen)
    click.echo(f"wrote {rows:,} rows to {output}")
    if filled:
        click.echo(named)
    if left_out:
        click.echo(left_out)
