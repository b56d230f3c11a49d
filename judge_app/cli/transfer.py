"""``sxs copy``: a whole store from one backend to the other
(:mod:`judge_app.services.transfer`)."""

from __future__ import annotations

import click

from judge_app.cli.base import friendly, main


@main.command("copy")
@click.option("--from", "source", required=True, metavar="STORE",
              help="The store to copy: a DuckDB file or postgresql://user@host:port/db.")
@click.option("--to", "target", required=True, metavar="STORE",
              help="The new store: a DuckDB file that does not exist yet, or an empty "
                   "PostgreSQL database.")
@friendly
def copy_command(source: str, target: str) -> None:
    """Copy a whole store (every table, votes, history, judges, settings) into a new one,
    DuckDB file to PostgreSQL or back.

    Example: sxs copy --from labels.duckdb --to postgresql://sxs@127.0.0.1:5432/sxs
    """
    from judge_app.services.transfer import copy_store
    from judge_app.store.model import store_address

    click.echo(str(copy_store(store_address(source), store_address(target))))
