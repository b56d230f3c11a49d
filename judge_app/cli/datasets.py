"""Store and dataset commands: init, dataset create/list, measures."""

from __future__ import annotations

from pathlib import Path

import click

from judge_app.cli.base import db_option, friendly, main, open_store
from metrics.scale import NAMED_SCALES


@main.command()
@db_option
@friendly
def init(db: Path | None) -> None:
    """Create (or upgrade) the store: a DuckDB file, or a postgresql:// database.

    Example: sxs init --db labels.duckdb
    """
    from judge_app.addresses import describe_address

    with open_store(db, create=True) as store:
        click.echo(f"{describe_address(store.path)}: schema {store.migrations()[-1]}, "
                   f"datasets: {', '.join(store.dataset_names()) or 'none yet'}")


@main.group()
def dataset() -> None:
    """Create and list datasets (a dataset has a grade scale)."""


@dataset.command("create")
@click.argument("name")
@click.option("--scale", required=True,
              help=f"{', '.join(NAMED_SCALES)}, or values with names: 0=Bad,1=Fair,2=Good")
@db_option
@friendly
def dataset_create(name: str, scale: str, db: Path | None) -> None:
    """Create a dataset with its grade scale.

    Example: sxs dataset create products --scale esci
    """
    from judge_app.services import importing

    with open_store(db, create=True) as store:
        created = importing.create_dataset(store, name, scale)
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




@main.command("measures")
def measures_command() -> None:
    """List the measures sxs computes, with their parameters.

    Example: sxs measures
    """
    from metrics.measures import REGISTRY

    for name, definition in REGISTRY.items():
        click.echo(f"{name}@k  {definition.description}")
        for pname, param in definition.params.items():
            choices = f" ({'|'.join(map(str, param.choices))})" if param.choices else ""
            click.echo(f"    {pname}={param.default!r}{choices}  {param.description}")
