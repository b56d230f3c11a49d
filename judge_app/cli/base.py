"""The ``sxs`` group, its one error boundary and the options every command shares.

Start-up stays fast: this module and the command modules import only click and light
modules at the top; pandas, DuckDB, the store and the services load inside the command that
needs them.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from judge_app.addresses import redact
from judge_app.errors import SxsError

if TYPE_CHECKING:
    from judge_app.store import Store


class UserError(click.ClickException):
    """A user's error, printed as one line on stderr; the exit code is 2."""

    exit_code = 2


def friendly(fn: Callable) -> Callable:
    """The CLI's one error boundary: an :class:`~judge_app.errors.SxsError` (the metrics'
    :class:`~metrics.errors.MetricsError` included) or a file the system refuses becomes one
    line and exit 2 (a PostgreSQL password in it hidden, :func:`~judge_app.addresses.redact`);
    anything else is a bug and shows its traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SxsError as error:
            raise UserError(redact(str(error))) from None
        except BrokenPipeError:
            raise
        except OSError as error:
            raise UserError(redact(f"{error.filename or ''}: {error.strerror}")) from None

    return wrapper


db_option = click.option(
    "--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=None,
    help="Store file or postgresql://user@host:port/db (default: $SXS_DB or ./sxs.duckdb).")
dataset_option = click.option("--dataset", "-d", required=True, help="Dataset name.")
table_format_option = click.option(
    "--format", "fmt", type=click.Choice(["table", "csv", "json"]), default="table",
    show_default=True, help="table: aligned text; csv (spreadsheet-safe); json: records.")


def emit_table(table: Any, fmt: str) -> None:
    """A frame on stdout as ``table`` (aligned text), ``csv`` (cells guarded against
    spreadsheet formulas) or ``json`` (records, with the index as columns when named)."""
    from judge_app.io.csv_safe import csv_text

    named = any(name is not None for name in table.index.names)
    if fmt == "csv":
        click.echo(csv_text(table), nl=False)
    elif fmt == "json":
        click.echo((table.reset_index() if named else table).to_json(
            orient="records", indent=2, date_format="iso"))
    else:
        click.echo(table.to_string(index=named, float_format=lambda v: f"{v:.4f}"))


def store_path(db: Path | None) -> Path | str:
    """``db``, or the default store: ``$SXS_DB`` or ``./sxs.duckdb``; a ``postgresql://``
    address stays one."""
    from judge_app.store import default_db_path
    from judge_app.store.model import store_address

    return store_address(db) if db is not None else default_db_path()


def open_store(db: Path | None, create: bool = False) -> Store:
    """The store at ``db`` (default: ``$SXS_DB`` or ``./sxs.duckdb``).  Only the commands
    that make things (init, demo, dataset create, imports) pass ``create``: for the others a
    missing file is a mistyped path, refused in one line rather than created empty."""
    from judge_app.store import Store

    return Store(store_path(db), create=create)


@contextlib.contextmanager
def importing_store(db: Path | None) -> Iterator[Store]:
    """The store an import writes to, created when missing (:func:`open_store` with
    ``create``); when this command created the DuckDB file and the import fails, the file
    (and its ``.wal``) is removed again, so a mistyped dataset or a refused file leaves no
    empty store behind.  A store that was there before is never removed."""
    address = store_path(db)
    created = isinstance(address, Path) and not address.exists()
    try:
        with open_store(db, create=True) as store:
            yield store
    except BaseException:
        if created:
            for leftover in (address, address.with_name(address.name + ".wal")):
                leftover.unlink(missing_ok=True)
        raise


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sxs")
def main() -> None:
    """sxs: side-by-side search judging.

    Blind side-by-side preferences, grades for the results nobody labelled, and NDCG,
    NDCG-f, NDCG-m and rank-biased overlap recomputed with the gaps filled.

    Start with: sxs demo
    """
