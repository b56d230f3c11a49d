"""``sxs import``: files into a dataset, through :mod:`judge_app.services.importing`."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judge_app.cli.base import dataset_option, db_option, friendly, importing_store, main
from judge_app.io.formats import (
    CATALOG_FORMATS,
    QRELS_FORMATS,
    SMART,
    TABLE_FORMATS,
    VOTE_FORMATS,
    ImportKind,
)
from judge_app.io.ids import ID_NORMALIZATIONS
from judge_app.policies import ConflictPolicy, choices

if TYPE_CHECKING:
    from judge_app.services import importing


@main.group("import")
def import_group() -> None:
    """Import qrels, runs, documents, queries, judgments, Quepid ratings, labels or votes."""


def _report(report: importing.ImportReport) -> None:
    click.echo(str(report))


BIG_FILE = 5 * 2**20


@contextlib.contextmanager
def phases(file: Path) -> Iterator[importing.Progress | None]:
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
    "--on-conflict", type=click.Choice(choices(ConflictPolicy)),
    default=ConflictPolicy.ERROR.value,
    show_default=True, help="A (query, doc) judged twice with different grades.")
table_format_option = click.option(
    "--format", "fmt", type=click.Choice(list(TABLE_FORMATS)), default=None,
    help="Table format (default: from the suffix; .gz/.bz2/.zst are decompressed).")
catalog_format_option = click.option(
    "--format", "fmt", type=click.Choice(list(CATALOG_FORMATS)), default=None,
    help=f"Table format (default: from the suffix; .gz/.bz2/.zst are decompressed), or {SMART}: "
         "a SMART/Glasgow file of .I/.T/.A/.W records (CISI.ALL, cran.qry).")
header_option = click.option(
    "--header/--no-header", "header", default=None,
    help="Whether the first row of a CSV/TSV names the columns (default: detected; without "
         "one, name columns by position 1, 2, ...).")
normalize_option = click.option(
    "--normalize-ids", "normalize_ids", type=click.Choice(ID_NORMALIZATIONS), default=None,
    help="Rewrite the file's query and doc ids: strip-zeros (0012 -> 12), lower (case), strip "
         "(surrounding spaces). Default: ids are kept exactly as written.")
force_option = click.option(
    "--force", is_flag=True,
    help="Import even when the result would be degenerate (no (query, doc) pair in common "
         "with the dataset's runs/judgments, every grade equal, >10% duplicate lines, one "
         "doc per query).")
id_force_option = click.option(
    "--force", is_flag=True,
    help="Import even when no id is in the dataset's runs or judgments while one would be "
         "after --normalize-ids.")
value_map_option = click.option(
    "--value-map", default=None,
    help="Rewrite raw grades first, e.g. Cranfield codes 1=4,2=3,3=2,4=1,-1= (empty drops).")


@import_group.command(ImportKind.QRELS.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@conflict_option
@value_map_option
@click.option("--format", "fmt", type=click.Choice(QRELS_FORMATS), default="auto",
              show_default=True,
              help="trec: qid 0 docid grade; smart: qid docid 0 0, every listed pair relevant "
                   "(grade 1, binary scale); auto: smart when columns 3-4 are all zero.")
@normalize_option
@force_option
@db_option
@friendly
def import_qrels(dataset: str, file: Path, on_conflict: str, value_map: str | None, fmt: str,
                 normalize_ids: str | None, force: bool, db: Path | None) -> None:
    """Import TREC qrels (qid 0 docid grade) or a SMART relevance file as the dataset's
    judgments; .gz, .bz2 and .zst files are read as they are.

    Example: sxs import qrels -d cranfield data/cranfield/qrels.txt
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_qrels(store, store.dataset(dataset), file, on_conflict,
                                       value_map, progress, fmt, normalize_ids, force))


@import_group.command(ImportKind.RUN.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--name", default=None, help="Run name (default: the file's tag column).")
@click.option("--trust-rank", is_flag=True,
              help="Keep the file's ranks instead of re-ranking by score (trec_eval's rule).")
@click.option("--dedupe", is_flag=True, help="Keep the first line of a doc repeated in a query.")
@click.option("--replace", is_flag=True, help="Overwrite a run of the same name.")
@normalize_option
@force_option
@db_option
@friendly
def import_run(dataset: str, file: Path, name: str | None, trust_rank: bool, dedupe: bool,
               replace: bool, normalize_ids: str | None, force: bool, db: Path | None
               ) -> None:
    """Import a TREC run (qid Q0 docid rank score tag).

    Example: sxs import run -d cranfield data/cranfield/run_bm25.txt --name bm25
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_run(store, store.dataset(dataset), file, name, trust_rank,
                                     dedupe, replace, progress, normalize_ids, force))


@import_group.command(ImportKind.DOCS.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--id-column", default="doc_id", show_default=True)
@click.option("--title-column", default="title", show_default=True)
@catalog_format_option
@header_option
@normalize_option
@id_force_option
@db_option
@friendly
def import_docs(dataset: str, file: Path, id_column: str, title_column: str, fmt: str | None,
                header: bool | None, normalize_ids: str | None, force: bool,
                db: Path | None) -> None:
    """Import a document catalog (id, title, any other columns kept as fields), or a SMART
    document file (--format smart: .I id, .T title, .A, .W, .B, .X... kept as fields).

    Example: sxs import docs -d cranfield data/cranfield/docs.jsonl
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_documents(store, store.dataset(dataset), file, id_column,
                                           title_column, fmt, progress, header,
                                           normalize_ids, force))


@import_group.command(ImportKind.QUERIES.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--id-column", default="query_id", show_default=True)
@click.option("--text-column", default="text", show_default=True)
@catalog_format_option
@header_option
@normalize_option
@id_force_option
@db_option
@friendly
def import_queries(dataset: str, file: Path, id_column: str, text_column: str,
                   fmt: str | None, header: bool | None, normalize_ids: str | None,
                   force: bool, db: Path | None) -> None:
    """Import queries (query_id, text), e.g. a headerless query_id<TAB>text file, an
    OpenSearch SRW query set or a SMART query file (--format smart: .I id, .W text).

    Example: sxs import queries -d cranfield data/cranfield/queries.tsv
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_queries(store, store.dataset(dataset), file, fmt, progress,
                                         id_column, text_column, header, normalize_ids,
                                         force))


@import_group.command(ImportKind.JUDGMENTS.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--query-column", default="query_id", show_default=True)
@click.option("--doc-column", default="doc_id", show_default=True)
@click.option("--grade-column", default="grade", show_default=True)
@table_format_option
@header_option
@conflict_option
@value_map_option
@normalize_option
@force_option
@db_option
@friendly
def import_judgments(dataset: str, file: Path, query_column: str, doc_column: str,
                     grade_column: str, fmt: str | None, header: bool | None,
                     on_conflict: str, value_map: str | None, normalize_ids: str | None,
                     force: bool, db: Path | None) -> None:
    """Import judgments from CSV, TSV, Parquet, JSON or JSON Lines (or an OpenSearch SRW
    judgment list); grades by value or by name.

    Example: sxs import judgments -d products esci.csv --grade-column esci_label
    """
    from judge_app.io.labels import ColumnMap
    from judge_app.services import importing

    with importing_store(db) as store:
        columns = ColumnMap(query_column, doc_column, grade_column)
        with phases(file) as progress:
            _report(importing.import_judgments(store, store.dataset(dataset), file, columns,
                                               value_map, fmt, on_conflict, progress,
                                               header, normalize_ids, force))


@import_group.command(ImportKind.QUEPID.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@conflict_option
@normalize_option
@force_option
@db_option
@friendly
def import_quepid(dataset: str, file: Path, on_conflict: str, normalize_ids: str | None,
                  force: bool, db: Path | None) -> None:
    """Import Quepid ratings (query,docid,rating), matching queries by their text.

    Example: sxs import quepid -d products ratings.csv
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_quepid(store, store.dataset(dataset), file, on_conflict,
                                        progress, normalize_ids, force))


@import_group.command(ImportKind.LABELS.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@table_format_option
@conflict_option
@normalize_option
@force_option
@db_option
@friendly
def import_labels(dataset: str, file: Path, fmt: str | None, on_conflict: str,
                  normalize_ids: str | None, force: bool, db: Path | None) -> None:
    """Import expert labels per judge: query_id, doc_id, grade, judge (time, note), the
    provenance CSV of sxs export csv, a wide CSV (one column a judge) or Quepid's book export.

    Example: sxs import labels -d products round1.csv
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_labels(store, store.dataset(dataset), file, fmt, on_conflict,
                                        progress, normalize_ids, force))


@import_group.command(ImportKind.VOTES.value)
@dataset_option
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(list(VOTE_FORMATS)), default=None,
              help="csv, parquet or jsonl (default: from the suffix, else csv).")
@db_option
@friendly
def import_votes(dataset: str, file: Path, fmt: str | None, db: Path | None) -> None:
    """Import side-by-side votes as sxs export votes writes them (a round from another store):
    appended as history; a vote already in the store is skipped, retracted and stale votes
    stay so.

    Example: sxs import votes -d cranfield votes.csv
    """
    from judge_app.services import importing

    with importing_store(db) as store, phases(file) as progress:
        _report(importing.import_votes(store, store.dataset(dataset), file, fmt, progress))
