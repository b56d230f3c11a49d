"""``sxs delete run|dataset``: say what goes with it, ask, then delete
(:mod:`judge_app.store.deletion`)."""

from __future__ import annotations

from pathlib import Path

import click

from judge_app.cli.base import dataset_option, db_option, friendly, main, open_store

yes_option = click.option("--yes", "-y", is_flag=True, help="Do not ask for confirmation.")


@main.group("delete")
def delete_group() -> None:
    """Delete a run or a whole dataset (asks first; back up with sxs backup)."""


@delete_group.command("run")
@click.argument("name")
@dataset_option
@yes_option
@db_option
@friendly
def delete_run(name: str, dataset: str, yes: bool, db: Path | None) -> None:
    """Delete a run and its results.  Votes cast on it stay as history and stop counting (a
    later run of the same name does not inherit them); labels
    and judgments belong to the dataset and stay.

    Example: sxs delete run bm25-old -d products
    """
    from judge_app.services import deletion

    with open_store(db) as store:
        found = store.dataset(dataset)
        click.echo(deletion.run_deletion_notice(store, found, name))
        if not yes:
            click.confirm(f"Delete run {name!r}?", abort=True)
        click.echo(deletion.delete_run(store, found, name))


@delete_group.command("dataset")
@click.argument("name")
@yes_option
@db_option
@friendly
def delete_dataset(name: str, yes: bool, db: Path | None) -> None:
    """Delete a dataset and everything in it: runs and their results, queries, documents,
    judgments and their history, expert labels, votes and retractions.

    Example: sxs delete dataset scratch
    """
    from judge_app.services import deletion

    with open_store(db) as store:
        found = store.dataset(name)
        click.echo(deletion.dataset_deletion_notice(store, found))
        if not yes:
            click.confirm(f"Delete dataset {name!r} and all of this?", abort=True)
        click.echo(deletion.delete_dataset(store, found))
