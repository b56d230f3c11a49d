"""Importing: files into a dataset (qrels, runs, judgments, Quepid ratings, documents,
queries), and creating datasets.

The CLI and the app's Import and Settings pages call these same functions; each import reads
and checks the whole file first (``judge_app.io``), then writes in one transaction, so a bad
file stores nothing.  Every import (judgments, runs, expert labels, documents, queries) is
refused when it would leave the dataset degenerate (:mod:`judge_app.store.import_guard`)
unless ``force``, and warned of (a line in the report's notes) when a normalisation would
make its overlap with the dataset much larger, or when judged queries are left without text
because their ids and the queries' differ only by zero padding; ids are kept as written unless
``normalize_ids`` names a rewrite (:mod:`judge_app.io.ids`).
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

from judge_app.errors import InputError
from judge_app.io import labels, trec
from judge_app.io.origin import file_origin
from judge_app.io.votes import read_votes
from judge_app.policies import ConflictPolicy
from judge_app.services.phases import Progress
from judge_app.services.phases import say as _say
from judge_app.store import Dataset, Store
from judge_app.store.import_guard import Guard, ImportFigures, guard, warnings_of
from metrics.scale import parse_scale


def create_dataset(store: Store, name: str, scale: str) -> Dataset:
    """Create a dataset with a scale by name or written out (see
    :func:`metrics.scale.parse_scale`); the same name and scale again is a no-op."""
    return store.create_dataset(name.strip(), parse_scale(scale))


@dataclass(frozen=True)
class ImportReport:
    """What an import stored."""

    what: str
    rows: int
    seconds: float
    dropped: int = 0
    merged: int = 0
    notes: tuple[str, ...] = ()
    assumed: str = ""

    def __str__(self) -> str:
        extra = f"; {self.assumed}" if self.assumed else ""
        if self.dropped:
            extra += f", {self.dropped} dropped by the value map"
        if self.merged:
            extra += f", {self.merged} duplicate lines merged"
        said = "".join(f"\n{note}" for note in self.notes)
        return f"imported {self.rows:,} {self.what} in {self.seconds:.2f} s{extra}{said}"


def import_qrels(store: Store, dataset: Dataset, path: str | Path,
                 on_conflict: str = ConflictPolicy.ERROR,
                 value_map: str | None = None, progress: Progress | None = None,
                 fmt: str = "auto", normalize_ids: str | None = None, force: bool = False
                 ) -> ImportReport:
    """Import TREC qrels (``fmt`` trec), a SMART relevance file (smart), or either (auto:
    SMART when columns 3 and 4 are zero on every line); parsed by DuckDB in the store."""
    start = time.perf_counter()
    source = trec.TrecFile(Path(path), fmt, normalize_ids)
    check = guard(str(path), force, merging=on_conflict != ConflictPolicy.ERROR,
                  scale_values=dataset.scale.values)
    _say(progress, "reading and storing")
    with trec.expanded_trec(source, run=False) as source:  # before the store's transaction
        if not value_map:
            load = store.import_trec_qrels(dataset, source, on_conflict, check)
            _padding(store, dataset, check)
            return ImportReport("judgments", load.rows, time.perf_counter() - start,
                                merged=load.merged, notes=warnings_of(check),
                                assumed=trec.SMART_ASSUMPTION if load.smart else "")
        raw, smart = store.trec_qrels_rows(dataset, source)
    read = labels.read_trec_judgments(raw, dataset.scale, str(path),
                                      labels.parse_value_map(value_map), on_conflict)
    measured = partial(_as_listed_relevant, check) if smart and check is not None else check
    # (every listed pair of a SMART file is relevant by definition)
    rows = store.put_judgments(dataset, read.frame, str(path), on_conflict, measured,
                               read.merged_duplicates, file_origin(path))
    _padding(store, dataset, check)
    return ImportReport("judgments", rows, time.perf_counter() - start, read.dropped,
                        read.merged_duplicates, (*read.notes, *warnings_of(check)),
                        trec.SMART_ASSUMPTION if smart else "")


def _as_listed_relevant(check: Guard, figures: ImportFigures) -> None:
    check(replace(figures, listed_relevant=True))


def _padding(store: Store, dataset: Dataset, check: Guard | None) -> None:
    """Add the warning of judged queries left without text by zero padding to ``check``'s
    (see :func:`~judge_app.store.import_guard.zero_padding_warning`); none when forced."""
    if check is not None:
        said = store.zero_padding_warning(dataset)
        if said is not None:
            check.warnings.append(f"warning: {check.source}: {said}")


def import_judgments(store: Store, dataset: Dataset, path: str | Path,
                     columns: labels.ColumnMap = labels.DEFAULT_COLUMNS,
                     value_map: str | None = None, fmt: str | None = None,
                     on_conflict: str = ConflictPolicy.ERROR, progress: Progress | None = None,
                     header: bool | None = None, normalize_ids: str | None = None,
                     force: bool = False) -> ImportReport:
    start = time.perf_counter()
    _say(progress, "reading")
    queries = store.queries(dataset)
    by_text = dict(zip(queries["text"], queries["query_id"], strict=True))
    read = labels.read_judgments(path, dataset.scale, columns,
                                 labels.parse_value_map(value_map), fmt, on_conflict, header,
                                 by_text, normalize_ids)
    _say(progress, "storing")
    check = guard(str(path), force, merging=on_conflict != ConflictPolicy.ERROR,
                  scale_values=dataset.scale.values)
    rows = store.put_judgments(dataset, read.frame, str(path), on_conflict, check,
                               read.merged_duplicates, file_origin(path))
    _padding(store, dataset, check)
    return ImportReport("judgments", rows, time.perf_counter() - start, read.dropped,
                        read.merged_duplicates, (*read.notes, *warnings_of(check)))


def import_quepid(store: Store, dataset: Dataset, path: str | Path,
                  on_conflict: str = ConflictPolicy.ERROR, progress: Progress | None = None,
                  normalize_ids: str | None = None, force: bool = False) -> ImportReport:
    start = time.perf_counter()
    _say(progress, "reading")
    queries = store.queries(dataset)
    by_text = dict(zip(queries["text"], queries["query_id"], strict=True))
    read = labels.read_quepid(path, dataset.scale, by_text, on_conflict, normalize_ids)
    _say(progress, "storing")
    check = guard(str(path), force, merging=on_conflict != ConflictPolicy.ERROR,
                  scale_values=dataset.scale.values)
    rows = store.put_judgments(dataset, read.frame, str(path), on_conflict, check,
                               read.merged_duplicates, file_origin(path))
    return ImportReport("judgments", rows, time.perf_counter() - start, 0,
                        read.merged_duplicates, warnings_of(check))


def import_run(store: Store, dataset: Dataset, path: str | Path, name: str | None = None,
               trust_rank: bool = False, dedupe: bool = False, replace: bool = False,
               progress: Progress | None = None, normalize_ids: str | None = None,
               force: bool = False) -> ImportReport:
    """Import a TREC run; its name defaults to the file's tag column (or the file name)."""
    start = time.perf_counter()
    _say(progress, "reading and storing")
    source = trec.TrecFile(Path(path), normalize_ids=normalize_ids)
    check = guard(str(path), force, merging=dedupe)
    with trec.expanded_trec(source, run=True) as source:  # before the store's transaction
        name, rows = store.import_trec_run(dataset, source, name, trust_rank=trust_rank,
                                           dedupe=dedupe, replace=replace, check=check)
    return ImportReport(f"results of run {name!r}", rows, time.perf_counter() - start,
                        notes=warnings_of(check))


def import_documents(store: Store, dataset: Dataset, path: str | Path, id_column: str = "doc_id",
                     title_column: str = "title", fmt: str | None = None,
                     progress: Progress | None = None, header: bool | None = None,
                     normalize_ids: str | None = None, force: bool = False) -> ImportReport:
    """Import a document catalog; refused when its doc ids meet none of the dataset's runs
    and judgments while a normalisation would make them meet (unless ``force``)."""
    start = time.perf_counter()
    _say(progress, "reading")
    frame = labels.read_documents(path, id_column, title_column, fmt, header, normalize_ids)
    check = _checked(store, dataset, "documents", frame, guard(str(path), force))
    _say(progress, "storing")
    rows = store.put_documents(dataset, frame)
    return ImportReport("documents", rows, time.perf_counter() - start,
                        notes=warnings_of(check))


def _checked(store: Store, dataset: Dataset, what: str, frame, check: Guard | None,
             merged: int = 0) -> Guard | None:
    """Run ``check`` on the figures of ``frame`` (an import that writes in several steps is
    measured before the first); returns it, holding any warnings."""
    if check is not None:
        check(store.measure_import(dataset, what, frame, merged))
    return check


def import_queries(store: Store, dataset: Dataset, path: str | Path, fmt: str | None = None,
                   progress: Progress | None = None, id_column: str = "query_id",
                   text_column: str = "text", header: bool | None = None,
                   normalize_ids: str | None = None, force: bool = False) -> ImportReport:
    """Import queries; refused when their ids meet none of the dataset's runs and judgments
    while a normalisation would make them meet (unless ``force``)."""
    start = time.perf_counter()
    _say(progress, "reading")
    frame = labels.read_queries(path, fmt, id_column, text_column, header, normalize_ids)
    check = _checked(store, dataset, "queries", frame, guard(str(path), force))
    _say(progress, "storing")
    rows = store.put_queries(dataset, frame)
    _padding(store, dataset, check)
    return ImportReport("queries", rows, time.perf_counter() - start,
                        notes=warnings_of(check))


def import_labels(store: Store, dataset: Dataset, path: str | Path, fmt: str | None = None,
                  on_conflict: str = ConflictPolicy.ERROR, progress: Progress | None = None,
                  normalize_ids: str | None = None, force: bool = False) -> ImportReport:
    """Import expert labels per judge (long, provenance or wide form; see
    :func:`~judge_app.io.labels.read_expert_labels`).  Labels are appended with their judge,
    time and note; a provenance file's dataset rows become dataset judgments with their
    origin and time, its replaced rows the history of replaced dataset grades.  Importing
    the same file again adds nothing (tokens derive from its content), and so does a store's
    own export imported back (labels the store holds are skipped, see
    :meth:`~judge_app.store.Store.append_expert_labels`).  Refused before anything is
    written when degenerate (:mod:`~judge_app.store.import_guard`: no (query, doc) pair
    in common with the dataset's runs and judgments, every grade equal, more than a tenth of
    the lines a judge's label of a pair repeated at the same time) unless ``force``."""
    start = time.perf_counter()
    _say(progress, "reading")
    path = Path(path)
    queries = store.queries(dataset)
    by_text = dict(zip(queries["text"], queries["query_id"], strict=True))
    read = labels.read_expert_labels(path, dataset.scale, by_text, fmt, normalize_ids)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
    measured, repeats = labels.label_figures_rows(read)
    check = _checked(store, dataset, "labels", measured,
                     guard(str(path), force, merging=on_conflict != ConflictPolicy.ERROR,
                           scale_values=dataset.scale.values),
                     repeats)
    _say(progress, "storing")
    if not read.judgments.empty:
        resolved, _ = labels.resolve_duplicates(read.judgments, str(path), on_conflict)
        store.put_judgments(dataset, resolved, str(path), on_conflict,
                            origin=file_origin(path))
    added = store.append_expert_labels(dataset, read.labels, f"labels:{digest}")
    replaced = (store.append_judgment_history(dataset, read.replaced, file_origin(path))
                if not read.replaced.empty else 0)
    judges = read.labels["judge"].nunique()
    notes = [f"{read.form} file: {len(read.labels):,} labels of {judges:,} judge(s)"
             + (f", {len(read.judgments):,} dataset judgments" if len(read.judgments) else "")
             + (f", {replaced:,} replaced grades into the history" if replaced else "")]
    if added < len(read.labels):
        nothing = "nothing new: " if added == 0 else ""
        notes.append(f"{nothing}{len(read.labels) - added:,} labels were already imported "
                     "(from this file, or the same labels from another, such as this store's "
                     "export)")
    return ImportReport("expert labels", added, time.perf_counter() - start,
                        notes=(*notes, *warnings_of(check)))


def import_votes(store: Store, dataset: Dataset, path: str | Path, fmt: str | None = None,
                 progress: Progress | None = None) -> ImportReport:
    """Import side-by-side votes as ``sxs export votes`` writes them (another store's round,
    or this store's own), appended as history (see
    :meth:`~judge_app.store.Store.append_votes`): a vote already held (same view id) is
    skipped, so importing a file twice adds nothing; retracted votes come back retracted,
    stale ones stale (their ranking hash kept).  The whole file is checked first — every
    query and run must be the dataset's — and a bad row is refused naming file, line and
    field, with nothing written."""
    start = time.perf_counter()
    _say(progress, "reading")
    read = read_votes(path, fmt)
    known_queries = set(store.queries(dataset)["query_id"])
    known_runs = set(store.run_names(dataset))
    for field, known, what in (("query_id", known_queries, "query"),
                               ("run_1", known_runs, "run"), ("run_2", known_runs, "run")):
        unknown = ~read[field].isin(known)
        if unknown.any():
            row = read[unknown].iloc[0]
            raise InputError(str(path), f"{what} {row[field]!r} is not in dataset "
                             f"{dataset.name!r} (import it first)", line=int(row["line"]),
                             field=field)
    _say(progress, "storing")
    added, retracted = store.append_votes(dataset, read)
    notes = []
    if added < len(read):
        notes.append(f"{len(read) - added:,} votes were already in the store (same view id)")
    if retracted:
        notes.append(f"{retracted:,} retractions added, as in the file")
    return ImportReport("votes", added, time.perf_counter() - start, notes=tuple(notes))
