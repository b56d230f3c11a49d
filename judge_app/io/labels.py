"""Judgment, document, query and Quepid files: column mapping and grade names.

Grades are read through the dataset's scale: a number on the scale, a grade name (any case),
or an unambiguous first letters of one (``E``/``S``/``C``/``I`` for ESCI).  A value map such as
Cranfield's ``1=4,2=3,3=2,4=1,-1=`` rewrites raw values first; an empty target drops the row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import ConflictError, InputError
from judge_app.io.files import format_of, read_table, require_columns
from judge_app.policies import ConflictPolicy
from metrics.scale import GradeScale


def parse_value_map(text: str | None) -> dict[str, str]:
    """``"1=4,2=3,-1="`` -> {"1": "4", "2": "3", "-1": ""}."""
    if not text:
        return {}
    mapping = {}
    for part in text.split(","):
        if "=" not in part:
            raise InputError("--value-map", f"{part!r} must be written raw=grade")
        raw, grade = (x.strip() for x in part.split("=", 1))
        mapping[raw] = grade
    return mapping


def grade_lookup(scale: GradeScale) -> dict[str, int]:
    """Every spelling of a grade the scale accepts -> its value."""
    lookup: dict[str, int] = {}
    for value, name in scale.grades:
        lookup[str(value)] = value
        lookup[name.casefold()] = value
    for length in range(1, max(len(n) for _, n in scale.grades) + 1):
        prefixes: dict[str, list[int]] = {}
        for value, name in scale.grades:
            prefixes.setdefault(name.casefold()[:length], []).append(value)
        for prefix, values in prefixes.items():
            if len(values) == 1 and prefix not in lookup:
                lookup[prefix] = values[0]
    return lookup


def map_grades(raw: pd.Series, lines: pd.Series, scale: GradeScale, source: str,
               column: str, value_map: dict[str, str] | None = None) -> tuple[np.ndarray,
                                                                              np.ndarray]:
    """Grade values for raw cells, and a mask of rows to keep (value-map drops)."""
    keep = np.ones(len(raw), dtype=bool)
    if not value_map and pd.api.types.is_integer_dtype(raw.dtype):
        values = raw.to_numpy(dtype=np.int64)
        outside = ~np.isin(values, scale.values)
        if outside.any():
            row = int(outside.argmax())
            raise InputError(source, f"grade {str(values[row])!r} is outside the scale "
                             f"({scale.describe()})", line=int(lines.iloc[row]), field=column)
        return values, keep
    text = raw.astype(str).str.strip()
    if value_map:
        mapped = text.map(lambda v: value_map.get(v, v))
        keep = (mapped != "").to_numpy()
        text = mapped
    lookup = grade_lookup(scale)
    folded = text.str.casefold()
    numeric = pd.to_numeric(text, errors="coerce")
    whole = numeric.notna() & (numeric == numeric.round()) & (numeric.abs() <= 2**53)
    folded = folded.where(~whole, numeric.where(whole).astype("Int64").astype(str))
    values = folded.map(lookup)
    bad = (values.isna().to_numpy() & keep)
    if bad.any():
        row = int(bad.argmax())
        cell = raw.iloc[row]
        reason = (f"grade {cell!r} is outside the scale" if whole.iloc[row]
                  else f"unknown grade name {cell!r}")
        raise InputError(source, f"{reason} ({scale.describe()})", line=int(lines.iloc[row]),
                         field=column)
    return values.fillna(-1).to_numpy(dtype=np.int64), keep


@dataclass(frozen=True)
class ColumnMap:
    """Which file columns hold the query, the doc and the grade."""

    query: str = "query_id"
    doc: str = "doc_id"
    grade: str = "grade"


DEFAULT_COLUMNS = ColumnMap()


@dataclass
class JudgmentFile:
    """Judgments read from a file: rows to store and what happened on the way."""

    frame: pd.DataFrame
    dropped: int = 0
    merged_duplicates: int = 0
    notes: list[str] = field(default_factory=list)


def resolve_duplicates(frame: pd.DataFrame, source: str, on_conflict: str) -> tuple[
        pd.DataFrame, int]:
    """One row per (query, doc): identical repeats merge; different grades follow
    ``on_conflict`` (error names both lines; max, min or last keep one)."""
    if on_conflict not in tuple(ConflictPolicy):
        raise InputError(source, f"on_conflict must be one of {', '.join(ConflictPolicy)}; "
                         f"got {on_conflict!r}")
    repeated = frame.duplicated(["query_id", "doc_id"], keep=False)
    if not repeated.any():
        return frame, 0
    groups = frame[repeated].groupby(["query_id", "doc_id"], sort=False)["grade"]
    differing = groups.transform("nunique") > 1
    if differing.any() and on_conflict == "error":
        first = frame[repeated][differing].iloc[0]
        rows = frame[(frame["query_id"] == first["query_id"])
                     & (frame["doc_id"] == first["doc_id"])]
        lines = ", ".join(str(x) for x in rows["line"].head(3))
        raise ConflictError(source, f"query {first['query_id']!r}, doc {first['doc_id']!r} is "
                            f"judged {' and '.join(map(str, rows['grade'].head(3)))} on lines "
                            f"{lines} (use --on-conflict max|min|last)",
                            line=int(rows["line"].iloc[-1]))
    ordered = frame.sort_values("line", kind="stable")
    if on_conflict in ("max", "min"):
        ordered = ordered.sort_values(["grade", "line"], ascending=[on_conflict == "min", True],
                                      kind="stable")
        kept = ordered.drop_duplicates(["query_id", "doc_id"], keep="first")
    else:
        kept = ordered.drop_duplicates(["query_id", "doc_id"], keep="last")
    return kept.sort_values("line", kind="stable"), len(frame) - len(kept)


def read_judgments(path: str | Path, scale: GradeScale, columns: ColumnMap = DEFAULT_COLUMNS,
                   value_map: dict[str, str] | None = None, fmt: str | None = None,
                   on_conflict: str = "error") -> JudgmentFile:
    """Judgments from CSV / TSV / Parquet / JSONL with mapped columns and scale-checked grades."""
    path = Path(path)
    source = str(path)
    kind = format_of(path, fmt)
    frame = read_table(path, kind)
    require_columns(frame, [columns.query, columns.doc, columns.grade], source, kind)
    return _judgments_from(frame, columns, scale, value_map, source, on_conflict)


def _judgments_from(frame: pd.DataFrame, columns: ColumnMap, scale: GradeScale,
                    value_map: dict[str, str] | None, source: str, on_conflict: str
                    ) -> JudgmentFile:
    ids = pd.DataFrame({"query_id": frame[columns.query].astype(str).str.strip(),
                        "doc_id": frame[columns.doc].astype(str).str.strip(),
                        "line": frame["line"].to_numpy()})
    for column, name in (("query_id", columns.query), ("doc_id", columns.doc)):
        empty = (ids[column] == "").to_numpy()
        if empty.any():
            row = int(empty.argmax())
            raise InputError(source, f"{name} is empty", line=int(ids["line"].iloc[row]),
                             field=name)
    grades, keep = map_grades(frame[columns.grade], frame["line"], scale, source,
                              columns.grade, value_map)
    ids["grade"] = grades
    kept = ids[keep].reset_index(drop=True)
    resolved, merged = resolve_duplicates(kept, source, on_conflict)
    return JudgmentFile(resolved[["query_id", "doc_id", "grade", "line"]].reset_index(drop=True),
                        dropped=int((~keep).sum()), merged_duplicates=merged)


def read_trec_judgments(frame: pd.DataFrame, scale: GradeScale, source: str,
                        value_map: dict[str, str] | None = None,
                        on_conflict: str = "error") -> JudgmentFile:
    """Scale-check and de-duplicate judgments already read from TREC qrels."""
    return _judgments_from(frame, DEFAULT_COLUMNS, scale, value_map, source, on_conflict)


def read_quepid(path: str | Path, scale: GradeScale, query_ids_by_text: dict[str, str],
                on_conflict: str = "error") -> JudgmentFile:
    """Quepid ratings (``query,docid,rating``); queries are matched to the dataset by text
    (case and surrounding blanks ignored)."""
    path = Path(path)
    source = str(path)
    frame = read_table(path, "csv")
    require_columns(frame, ["query", "docid", "rating"], source, "csv")
    folded = {text.strip().casefold(): qid for text, qid in query_ids_by_text.items()}
    ids = frame["query"].astype(str).str.strip().str.casefold().map(folded)
    unknown = ids.isna().to_numpy()
    if unknown.any():
        row = int(unknown.argmax())
        raise InputError(source, f"query {frame['query'].iloc[row]!r} matches no query of the "
                         "dataset (import the queries first)", line=int(frame["line"].iloc[row]),
                         field="query")
    renamed = pd.DataFrame({"query_id": ids, "doc_id": frame["docid"],
                            "grade": frame["rating"], "line": frame["line"]})
    return _judgments_from(renamed, ColumnMap(), scale, None, source, on_conflict)


def read_documents(path: str | Path, id_column: str = "doc_id", title_column: str = "title",
                   fmt: str | None = None) -> pd.DataFrame:
    """A document catalog: doc_id, title and every other column kept as a field."""
    path = Path(path)
    source = str(path)
    kind = format_of(path, fmt)
    frame = read_table(path, kind)
    require_columns(frame, [id_column], source, kind)
    frame = frame.rename(columns={id_column: "doc_id", title_column: "title"})
    frame["doc_id"] = frame["doc_id"].astype(str).str.strip()
    empty = (frame["doc_id"] == "").to_numpy()
    if empty.any():
        row = int(empty.argmax())
        raise InputError(source, "doc id is empty", line=int(frame["line"].iloc[row]),
                         field=id_column)
    repeated = frame.duplicated("doc_id", keep="first").to_numpy()
    if repeated.any():
        row = int(repeated.argmax())
        raise InputError(source, f"doc {frame['doc_id'].iloc[row]!r} appears twice",
                         line=int(frame["line"].iloc[row]), field=id_column)
    return frame.drop(columns="line")


def read_queries(path: str | Path, fmt: str | None = None) -> pd.DataFrame:
    """Queries as (query_id, text): a table with those columns, or a headerless two-column
    TSV (``query_id<TAB>text``, as TREC topics are often shipped)."""
    path = Path(path)
    source = str(path)
    kind = format_of(path, fmt)
    frame = read_table(path, kind)
    if kind == "tsv" and "query_id" not in frame.columns:
        header = [c for c in frame.columns if c != "line"]
        if len(header) != 2:
            raise InputError(source, "expected two tab-separated fields: query_id, text",
                             line=1)
        first = pd.DataFrame([header], columns=["query_id", "text"])
        body = frame[header].set_axis(["query_id", "text"], axis=1)
        frame = pd.concat([first.assign(line=1), body.assign(line=frame["line"])],
                          ignore_index=True)
    require_columns(frame, ["query_id", "text"], source, kind)
    frame["query_id"] = frame["query_id"].astype(str).str.strip()
    repeated = frame.duplicated("query_id").to_numpy()
    if repeated.any():
        row = int(repeated.argmax())
        raise InputError(source, f"query {frame['query_id'].iloc[row]!r} appears twice",
                         line=int(frame["line"].iloc[row]), field="query_id")
    return frame[["query_id", "text"]]
