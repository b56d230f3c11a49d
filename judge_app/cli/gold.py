"""Known-answer (gold) items: ``sxs gold import``, ``sxs gold from-dataset``, ``sxs gold
list``."""

from __future__ import annotations

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
from judge_app.io.formats import GOLD_FORMATS


@main.group("gold")
def gold_group() -> None:
    """Known-answer (gold) items: graded (query, doc, grade) and pairs (query, the run
    preferred), against which each judge's answers are scored (sxs judges report)."""


@gold_group.command("import")
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(GOLD_FORMATS), default=None,
              help="trec/smart qrels, or a table of graded items (query_id, doc_id, grade) "
                   "or of pairs (query_id, run_a, run_b, preferred_run); default: a table "
                   "by the file's suffix, else qrels.")
@db_option
@friendly
def gold_import(dataset: str, file: Path, fmt: str | None, db: Path | None) -> None:
    """Mark the items of a file as gold; marking an item again with another answer
    replaces its answer.

    Example: sxs gold import -d products gold.qrels
    """
    from judge_app.services import gold

    with open_store(db) as store:
        click.echo(str(gold.import_gold(store, store.dataset(dataset), file, fmt)))


@gold_group.command("from-dataset")
@dataset_option
@click.option("--sample", type=int, default=None,
              help="Mark this many of the dataset's judgments, drawn at random (default: "
                   "every judgment with a grade on the scale).")
@click.option("--seed", type=int, default=0, show_default=True, help="The sample's seed.")
@db_option
@friendly
def gold_from_dataset(dataset: str, sample: int | None, seed: int, db: Path | None) -> None:
    """Mark the dataset's own judgments as gold, all or a seeded sample.

    Example: sxs gold from-dataset -d products --sample 50 --seed 7
    """
    from judge_app.services import gold

    with open_store(db) as store:
        click.echo(str(gold.gold_from_dataset(store, store.dataset(dataset), sample, seed)))


@gold_group.command("list")
@dataset_option
@table_format_option
@db_option
@friendly
def gold_list(dataset: str, fmt: str, db: Path | None) -> None:
    """List the dataset's gold items with who marked them, when and where from.

    Example: sxs gold list -d products --format csv
    """
    from judge_app.services import gold

    with open_store(db) as store:
        items = gold.gold_items(store, store.dataset(dataset))
    if items.empty and fmt == "table":
        click.echo(f"dataset {dataset!r} has no gold items")
        return
    emit_table(items, fmt)
