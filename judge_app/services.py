"""Use cases over the store: import files, evaluate and compare stored runs, export labels.

The CLI and the app call these; each import reads and checks the whole file first, then writes
in one transaction, so a bad file stores nothing.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from judge_app.errors import SxsError
from judge_app.io import labels, trec
from judge_app.io.files import unguard_formulas
from judge_app.store import Dataset, LabelPolicy, Store
from metrics import Comparison, Evaluation, GradeScale, compare, evaluate

SCALES = {
    "esci": {0: "Irrelevant", 1: "Complement", 2: "Substitute", 3: "Exact"},
    "wands": {0: "Irrelevant", 1: "Partial", 2: "Exact"},
    "binary": {0: "Not relevant", 1: "Relevant"},
    "cranfield": {0: "No interest", 1: "Minimum interest", 2: "Useful", 3: "High relevance",
                  4: "Complete answer"},
}


def parse_scale(text: str) -> GradeScale:
    """A scale by name (``esci``, ``wands``, ``binary``, ``cranfield``) or written out as
    ``0=Bad,1=Fair,2=Good``."""
    if text.strip().lower() in SCALES:
        return GradeScale.from_mapping(SCALES[text.strip().lower()])
    try:
        pairs = [part.split("=", 1) for part in text.split(",")]
        return GradeScale.from_mapping({int(v): n.strip() for v, n in pairs})
    except (ValueError, TypeError):
        raise SxsError(f"cannot read scale {text!r}: name one of {', '.join(SCALES)} "
                       "or write 0=Bad,1=Good,...") from None


Progress = Callable[[str], None]


def _say(progress: Progress | None, phase: str) -> None:
    """Tell a progress display which phase a long import is in (reading, storing)."""
    if progress is not None:
        progress(phase)


@dataclass(frozen=True)
class ImportReport:
    """What an import stored."""

    what: str
    rows: int
    seconds: float
    dropped: int = 0
    merged: int = 0
    assumed: str = ""

    def __str__(self) -> str:
        extra = f"; {self.assumed}" if self.assumed else ""
        if self.dropped:
            extra += f", {self.dropped} dropped by the value map"
        if self.merged:
            extra += f", {self.merged} duplicate lines merged"
        return f"imported {self.rows:,} {self.what} in {self.seconds:.2f} s{extra}"


def import_qrels(store: Store, dataset: Dataset, path: str | Path, on_conflict: str = "error",
                 value_map: str | None = None, progress: Progress | None = None,
                 fmt: str = "auto") -> ImportReport:
    """Import TREC qrels (``fmt`` trec), a SMART relevance file (smart), or either (auto:
    SMART when columns 3 and 4 are zero on every line); parsed by DuckDB in the store."""
    start = time.perf_counter()
    source = trec.TrecFile(Path(path), fmt)
    _say(progress, "reading and storing")
    if not value_map:
        load = store.import_trec_qrels(dataset, source, on_conflict)
        return ImportReport("judgments", load.rows, time.perf_counter() - start,
                            merged=load.merged,
                            assumed=trec.SMART_ASSUMPTION if load.smart else "")
    raw, smart = store.trec_qrels_rows(dataset, source)
    read = labels.read_trec_judgments(raw, dataset.scale, str(path),
                                      labels.parse_value_map(value_map), on_conflict)
    rows = store.put_judgments(dataset, read.frame, str(path), on_conflict)
    return ImportReport("judgments", rows, time.perf_counter() - start, read.dropped,
                        read.merged_duplicates, trec.SMART_ASSUMPTION if smart else "")


def import_judgments(store: Store, dataset: Dataset, path: str | Path,
                     columns: labels.ColumnMap = labels.DEFAULT_COLUMNS,
                     value_map: str | None = None, fmt: str | None = None,
                     on_conflict: str = "error", progress: Progress | None = None
                     ) -> ImportReport:
    start = time.perf_counter()
    _say(progress, "reading")
    read = labels.read_judgments(path, dataset.scale, columns,
                                 labels.parse_value_map(value_map), fmt, on_conflict)
    _say(progress, "storing")
    rows = store.put_judgments(dataset, read.frame, str(path), on_conflict)
    return ImportReport("judgments", rows, time.perf_counter() - start, read.dropped,
                        read.merged_duplicates)


def import_quepid(store: Store, dataset: Dataset, path: str | Path,
                  on_conflict: str = "error", progress: Progress | None = None
                  ) -> ImportReport:
    start = time.perf_counter()
    _say(progress, "reading")
    queries = store.queries(dataset)
    by_text = dict(zip(queries["text"], queries["query_id"], strict=True))
    read = labels.read_quepid(path, dataset.scale, by_text, on_conflict)
    _say(progress, "storing")
    rows = store.put_judgments(dataset, read.frame, str(path), on_conflict)
    return ImportReport("judgments", rows, time.perf_counter() - start, 0,
                        read.merged_duplicates)


def import_run(store: Store, dataset: Dataset, path: str | Path, name: str | None = None,
               trust_rank: bool = False, dedupe: bool = False, replace: bool = False,
               progress: Progress | None = None) -> ImportReport:
    """Import a TREC run; its name defaults to the file's tag column (or the file name)."""
    start = time.perf_counter()
    _say(progress, "reading and storing")
    name, rows = store.import_trec_run(dataset, trec.TrecFile(Path(path)), name,
                                       trust_rank=trust_rank, dedupe=dedupe, replace=replace)
    return ImportReport(f"results of run {name!r}", rows, time.perf_counter() - start)


def import_documents(store: Store, dataset: Dataset, path: str | Path, id_column: str = "doc_id",
                     title_column: str = "title", fmt: str | None = None,
                     progress: Progress | None = None) -> ImportReport:
    start = time.perf_counter()
    _say(progress, "reading")
    frame = labels.read_documents(path, id_column, title_column, fmt)
    _say(progress, "storing")
    rows = store.put_documents(dataset, frame)
    return ImportReport("documents", rows, time.perf_counter() - start)


def import_queries(store: Store, dataset: Dataset, path: str | Path, fmt: str | None = None,
                   progress: Progress | None = None) -> ImportReport:
    start = time.perf_counter()
    _say(progress, "reading")
    frame = labels.read_queries(path, fmt)
    _say(progress, "storing")
    rows = store.put_queries(dataset, frame)
    return ImportReport("queries", rows, time.perf_counter() - start)


# -- evaluation over the store ---------------------------------------------------------------

def labels_for(store: Store, dataset: Dataset, filled: bool,
               policy: LabelPolicy | str = LabelPolicy.MEDIAN) -> pd.DataFrame:
    """The dataset's judgments, or the filled label set (expert labels under ``policy``)."""
    if filled:
        return store.filled_judgments(dataset, policy)[["query_id", "doc_id", "grade"]]
    return store.judgments(dataset)[["query_id", "doc_id", "grade"]]


def evaluate_run(store: Store, dataset: Dataset, run: str, measures: list[str],
                 filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN
                 ) -> Evaluation:
    qrels = labels_for(store, dataset, filled, policy)
    if qrels.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    return evaluate(store.run(dataset, run), qrels, measures, max_grade=dataset.scale)


def compare_runs(store: Store, dataset: Dataset, run_a: str, run_b: str, measures: list[str],
                 filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                 permutations: int = 10_000, seed: int = 0) -> Comparison:
    qrels = labels_for(store, dataset, filled, policy)
    if qrels.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments to evaluate against")
    return compare(store.run(dataset, run_a), store.run(dataset, run_b), qrels, measures,
                   max_grade=dataset.scale, permutations=permutations, seed=seed)


# -- exports ---------------------------------------------------------------------------------

EXPORT_FORMATS = ("trec", "quepid", "csv", "parquet", "wide")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def guard_formula(value: object) -> object:
    """Prefix a text cell that a spreadsheet would run as a formula with an apostrophe."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    guarded = frame.copy()
    for column in guarded.columns:
        if guarded[column].dtype == object or pd.api.types.is_string_dtype(guarded[column]):
            guarded[column] = guarded[column].map(guard_formula)
    guarded.to_csv(path, index=False, quoting=csv.QUOTE_MINIMAL, lineterminator="\n")


def write_table(frame: pd.DataFrame, path: str | Path) -> int:
    """Write an analyst's table: Parquet for ``.parquet``, else CSV (formula-guarded)."""
    path = Path(path)
    if path.suffix.lower() in (".parquet", ".pq"):
        frame.to_parquet(path, index=False)
    else:
        _write_csv(frame, path)
    return len(frame)


def labels_with_provenance(store: Store, dataset: Dataset) -> pd.DataFrame:
    """Every current label with where it came from: source (dataset|expert), judge, time."""
    judged = store.judgments(dataset)
    dataset_rows = pd.DataFrame({
        "query_id": judged["query_id"], "doc_id": judged["doc_id"], "grade": judged["grade"],
        "source": "dataset", "judge": "", "time": judged["imported_at"], "note": "",
        "origin": judged["source"]})
    experts = store.current_expert_labels(dataset)
    expert_rows = pd.DataFrame({
        "query_id": experts["query_id"], "doc_id": experts["doc_id"], "grade": experts["grade"],
        "source": "expert", "judge": experts["judge"], "time": experts["created_at"],
        "note": experts["note"].fillna(""), "origin": ""})
    frames = [f for f in (dataset_rows, expert_rows) if not f.empty]
    if not frames:
        return dataset_rows
    return pd.concat(frames, ignore_index=True).sort_values(
        ["query_id", "doc_id", "source", "judge"], kind="stable").reset_index(drop=True)


def export_labels(store: Store, dataset: Dataset, path: str | Path, fmt: str,
                  filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                  replace_whitespace: str | None = None) -> int:
    """Write labels to ``path``; returns rows written.

    * ``trec``: qrels of the dataset's judgments, or the filled set with ``filled``; ids
      holding whitespace are refused unless ``replace_whitespace`` gives a character;
    * ``quepid``: ``query,docid,rating`` with the query's text (dataset or filled);
    * ``csv`` / ``parquet``: every current label with provenance (source, judge, time);
    * ``wide``: one row per (query, doc), one column per judge (latest grade).
    """
    path = Path(path)
    if fmt not in EXPORT_FORMATS:
        raise SxsError(f"export format must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    if fmt == "trec":
        frame = labels_for(store, dataset, filled, policy)
        return trec.write_qrels(frame, path, replace_whitespace)
    if fmt == "quepid":
        frame = labels_for(store, dataset, filled, policy)
        texts = store.queries(dataset).set_index("query_id")["text"]
        missing = sorted(set(frame["query_id"]) - set(texts.index))
        if missing:
            raise SxsError(f"query {missing[0]!r} has no text in the store: Quepid matches "
                           "queries by text (import the queries first)")
        out = pd.DataFrame({"query": frame["query_id"].map(texts), "docid": frame["doc_id"],
                            "rating": frame["grade"]})
        _write_csv(out, path)
        return len(out)
    if fmt == "wide":
        experts = store.current_expert_labels(dataset)
        wide = experts.pivot_table(index=["query_id", "doc_id"], columns="judge",
                                   values="grade", aggfunc="first")
        wide = wide.reset_index()
        wide.columns.name = None
        wide = wide.astype({c: "Int64" for c in wide.columns if c not in ("query_id", "doc_id")})
        _write_csv(wide, path)
        return len(wide)
    frame = labels_with_provenance(store, dataset)
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        _write_csv(frame, path)
    return len(frame)


def read_back_provenance(path: str | Path) -> pd.DataFrame:
    """A provenance CSV written by :func:`export_labels`, formula guards removed."""
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    return frame.apply(unguard_formulas)
