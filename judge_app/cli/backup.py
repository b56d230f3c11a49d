"""``sxs backup`` and ``sxs restore``: the whole store into one file and back
(:mod:`judge_app.services.backups`)."""

from __future__ import annotations

from pathlib import Path

import click

from judge_app.cli.base import db_option, friendly, main, open_store, store_path

SERVED_HINT = ("press Back up now on the app's Settings page, or serve it with "
               "--backup-every 15m --backup-dir DIR")


@main.command("backup")
@click.argument("output", type=click.Path(dir_okay=False, path_type=Path))
@db_option
@friendly
def backup_command(output: Path, db: Path | None) -> None:
    """Back up the whole store (every table, votes, reasons, retractions, history, settings)
    into one file.  An existing OUTPUT is replaced only if it is an earlier sxs backup, and
    only once the new backup is complete; any other file is refused.

    A served store is backed up by the app that serves it (Settings page, or
    sxs serve --backup-every).

    Example: sxs backup nightly.sxs-backup --db labels.duckdb
    """
    from judge_app.errors import StoreLocked
    from judge_app.services import backups
    from judge_app.store.serving import served_by

    path = store_path(db)
    holder = served_by(path)
    if holder is not None:
        raise StoreLocked(f"{path} is being served by sxs serve (pid {holder}), which alone "
                          f"can read it: {SERVED_HINT}")
    with open_store(db) as store:
        report = backups.backup_store(store, output)
    click.echo(f"backed up {report}")


@main.command("restore")
@click.argument("backup", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--db", "db", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The new store file to write (it must not exist; its folder must), or an "
                   "empty postgresql:// database.")
@friendly
def restore_command(backup: Path, db: Path) -> None:
    """Restore a backup into a new store file (never over an existing one).

    Example: sxs restore nightly.sxs-backup --db restored.duckdb
    """
    from judge_app.services import backups
    from judge_app.store.model import store_address

    report = backups.restore_store(backup, store_address(db))
    click.echo(f"restored {backup} into {report}")
