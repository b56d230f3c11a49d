"""Judgment, document, query and Quepid files: column mapping and grade names.

Grades are read through the dataset's scale: a number on the scale, a grade name (any case),
or an unambiguous first letters of one (``E``/``S``/``C``/``I`` for ESCI).  A value map such as
Cranfield's ``1=4,2=3,3=2,4=1,-1=`` rewrites raw values first; an empty target drops the row.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import ConflictError, InputError
from judge_app.io import smart, srw
from judge_app.io.files import format_of, read_table, require_columns
from judge_app.io.formats import SMART
from judge_app.io.ids import check_id_lengths, id_normalization, normalize_ids
from judge_app.policies import ConflictPolicy
from metrics.scale import GradeScale


def parse_value_map(text: str | None) -> dict[str, str]:
    """``"1=4,2=3,-1="`` -> {"1": "4", "2": "3", "-1": ""}.

    Two keys that are the same number (``2`` and ``2.0``) must map to the same grade."""
    if not text:
        return {}
    mapping: dict[str, str] = {}
    numbers: dict[float, str] = {}
    for part in text.split(","):
        if "=" not in part:
            raise InputError("--value-map", f"{part!r} must be written raw=grade")
        raw, grade = (x.strip() for x in part.split("=", 1))
        number = _number(raw)
        if number is not None and numbers.setdefault(number, raw) != raw and \
                mapping[numbers[number]] != grade:
            raise InputError("--value-map", f"{numbers[number]!r} and {raw!r} are the same "
                             "number mapped to different grades")
        mapping[raw] = grade
    return mapping


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if np.isfinite(value) else None


def apply_value_map(text: pd.Series, value_map: dict[str, str]) -> tuple[pd.Series, np.ndarray]:
    """Raw cells rewritten by the map, and which cells it matched.

    A cell matches a key written the same (``E``) or, both being numbers, equal to it as a
    number (``2.0`` and ``2``; ``1e0`` and ``1``).  Cells the map does not match pass through."""
    mapped = text.map(value_map)
    numeric = {}
    for raw, grade in value_map.items():
        number = _number(raw)
        if number is not None:
            numeric.setdefault(number, grade)
    if numeric:
        numbers = pd.to_numeric(text, errors="coerce")
        mapped = mapped.where(mapped.notna(), numbers.map(numeric))
    hit = mapped.notna().to_numpy()
    return mapped.where(hit, text).astype(str), hit


def unmapped_note(text: pd.Series, hit: np.ndarray, shown: int = 10) -> str | None:
    """``value map: 2 values not in the map (kept as they are): '5' x12, 'x' x1``."""
    if hit.all():
        return None
    counts = text[~hit].value_counts(sort=True)
    listed = ", ".join(f"{value!r} x{count:,}" for value, count in counts.head(shown).items())
    more = f", and {len(counts) - shown:,} more" if len(counts) > shown else ""
    return (f"value map: {len(counts):,} value(s) not in the map, kept as they are: "
            f"{listed}{more}")


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
    """Grade values for raw cells, and a mask of rows to keep (value-map drops).  An empty
    (or null) cell is refused naming its line, with or without a value map, unless the map
    names the empty value itself (``=0`` keeps such rows as grade 0, ``=`` drops them)."""
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
    blank = (raw.isna() | (text == "")).to_numpy()
    if blank.any() and "" not in (value_map or {}):  # the same answer with a value map or not
        raise InputError(source, "the grade is empty (map it with --value-map, e.g. '=0', "
                         "to keep or drop such rows)", line=int(lines.iloc[int(blank.argmax())]),
                         field=column)
    if value_map:
        text, _ = apply_value_map(text.where(~blank, ""), value_map)
        keep = (text != "").to_numpy()
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


def check_distinct(source: str, **columns: str) -> None:
    """InputError when two options name the same column (``--id-column`` = ``--title-column``)."""
    seen: dict[str, str] = {}
    for option, column in columns.items():
        flag = "--" + option.replace("_", "-")
        if column in seen:
            raise InputError(source, f"{seen[column]} and {flag} both name column {column!r}; "
                             "give each its own column")
        seen[column] = flag


def require_named(frame: pd.DataFrame, columns: list[str], source: str, fmt: str) -> None:
    """:func:`require_columns`, saying so when the file was read as having no header row."""
    missing = [c for c in columns if c not in frame.columns]
    first_row = frame.attrs.get("first_row", [])
    if missing and frame.attrs.get("header") is False and len(first_row) == 1:
        require_columns(pd.DataFrame(columns=first_row), columns, source, fmt)
    if missing and frame.attrs.get("header") is False:
        first = ", ".join(first_row)
        raise InputError(source, f"missing column(s) {', '.join(missing)}: the first row "
                         f"({first}) holds none of them, so it is read as data; name the "
                         "columns by position (1, 2, ...) or fix the header", line=1)
    require_columns(frame, columns, source, fmt)


def read_judgments(path: str | Path, scale: GradeScale, columns: ColumnMap = DEFAULT_COLUMNS,
                   value_map: dict[str, str] | None = None, fmt: str | None = None,
                   on_conflict: str = "error", header: bool | None = None,
                   query_ids_by_text: dict[str, str] | None = None,
                   normalize: str | None = None) -> JudgmentFile:
    """Judgments from CSV / TSV / Parquet / JSON / JSON Lines (optionally compressed) with
    mapped columns and scale-checked grades.  Ids are kept exactly as written unless
    ``normalize`` names a rewrite (:mod:`judge_app.io.ids`).

    An OpenSearch SRW judgment list names queries by text: a text matching a dataset query
    (``query_ids_by_text``; case and surrounding blanks ignored) takes its id, any other
    text is its own id; the import notes how many of each."""
    path = Path(path)
    source = str(path)
    check_distinct(source, query_column=columns.query, doc_column=columns.doc,
                   grade_column=columns.grade)
    kind = format_of(path, fmt)
    frame = read_table(path, kind, header=header,
                       expected=[columns.query, columns.doc, columns.grade])
    notes: list[str] = []
    if columns == DEFAULT_COLUMNS and set(srw.JUDGMENT_COLUMNS) <= set(frame.columns) and \
            columns.query not in frame.columns:
        columns = ColumnMap(*srw.JUDGMENT_COLUMNS)
        frame[columns.query], note = _ids_from_texts(frame[columns.query],
                                                     query_ids_by_text or {})
        notes.append(note)
    require_named(frame, [columns.query, columns.doc, columns.grade], source, kind)
    read = _judgments_from(frame, columns, scale, value_map, source, on_conflict, normalize)
    read.notes[:0] = notes
    return read


def _ids_from_texts(texts: pd.Series, ids_by_text: dict[str, str]) -> tuple[pd.Series, str]:
    folded = {text.strip().casefold(): qid for text, qid in ids_by_text.items()}
    found = texts.str.strip().str.casefold().map(folded)
    matched = texts[found.notna()].nunique()
    own = texts[found.isna()].nunique()
    note = (f"SRW judgment list: {matched:,} queries matched the dataset's by text, "
            f"{own:,} use their text as id")
    return found.where(found.notna(), texts), note


def _judgments_from(frame: pd.DataFrame, columns: ColumnMap, scale: GradeScale,
                    value_map: dict[str, str] | None, source: str, on_conflict: str,
                    normalize: str | None = None) -> JudgmentFile:
    how = id_normalization(normalize)
    ids = pd.DataFrame({"query_id": normalize_ids(frame[columns.query].astype(str), how),
                        "doc_id": normalize_ids(frame[columns.doc].astype(str), how),
                        "line": frame["line"].to_numpy()})
    for column, name in (("query_id", columns.query), ("doc_id", columns.doc)):
        _no_blank_ids(ids, column, name, source, name)
    notes = []
    if value_map:
        text = frame[columns.grade].astype(str).str.strip()
        note = unmapped_note(text, apply_value_map(text, value_map)[1])
        if note:
            notes.append(note)
    grades, keep = map_grades(frame[columns.grade], frame["line"], scale, source,
                              columns.grade, value_map)
    ids["grade"] = grades
    kept = ids[keep].reset_index(drop=True)
    resolved, merged = resolve_duplicates(kept, source, on_conflict)
    return JudgmentFile(resolved[["query_id", "doc_id", "grade", "line"]].reset_index(drop=True),
                        dropped=int((~keep).sum()), merged_duplicates=merged, notes=notes)


def read_trec_judgments(frame: pd.DataFrame, scale: GradeScale, source: str,
                        value_map: dict[str, str] | None = None,
                        on_conflict: str = "error") -> JudgmentFile:
    """Scale-check and de-duplicate judgments already read from TREC qrels."""
    return _judgments_from(frame, DEFAULT_COLUMNS, scale, value_map, source, on_conflict)


def read_quepid(path: str | Path, scale: GradeScale, query_ids_by_text: dict[str, str],
                on_conflict: str = "error", normalize: str | None = None) -> JudgmentFile:
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
    return _judgments_from(renamed, ColumnMap(), scale, None, source, on_conflict, normalize)


def _positional(frame: pd.DataFrame, names: dict[str, str], defaults: dict[str, str]
                ) -> dict[str, str]:
    """Without a header row, options left at their defaults take columns 1, 2, ... in turn."""
    if frame.attrs.get("header") is not False:
        return names
    return {role: (str(position) if names[role] == defaults[role] else names[role])
            for position, role in enumerate(names, start=1)}


def _no_clash(frame: pd.DataFrame, column: str, target: str, flag: str, source: str) -> None:
    if column != target and target in frame.columns:
        raise InputError(source, f"the file has a column {target!r} besides {flag} {column!r}: "
                         f"pass {flag} {target} or rename one of them", line=1)


def _no_blank_ids(frame: pd.DataFrame, column: str, what: str, source: str, field: str
                  ) -> None:
    """InputError naming the first row whose id is empty or only blanks (ids are otherwise
    kept exactly as written, surrounding spaces included), or longer than an id holds."""
    blank = (frame[column].str.strip() == "").to_numpy()
    if blank.any():
        row = int(blank.argmax())
        said = "empty" if frame[column].iloc[row] == "" else "only blanks"
        raise InputError(source, f"{what} is {said}", line=int(frame["line"].iloc[row]),
                         field=field)
    check_id_lengths(frame[column], frame["line"], source, field)


def _unique_ids(frame: pd.DataFrame, column: str, what: str, source: str, field: str) -> None:
    _no_blank_ids(frame, column, f"{what} id", source, field)
    repeated = frame.duplicated(column, keep="first").to_numpy()
    if repeated.any():
        row = int(repeated.argmax())
        raise InputError(source, f"{what} {frame[column].iloc[row]!r} appears twice",
                         line=int(frame["line"].iloc[row]), field=field)


def _read_smart(path: Path, reader: Callable[[Path], pd.DataFrame],
                given_and_default: tuple[tuple[str, str], tuple[str, str]], second: str
                ) -> tuple[pd.DataFrame, str, str]:
    """A SMART file read by ``reader`` (:mod:`judge_app.io.smart`), with its id column and
    its ``second`` column (title, text).  Its fields are named by their markers: a column option
    other than its default does not apply (refused rather than ignored)."""
    for given, default in given_and_default:
        if given != default:
            raise InputError(str(path), f"a SMART file's fields are named by their markers "
                             f"(.I, .T, .W, ...): column {given!r} does not apply to "
                             "--format smart")
    frame = reader(path)
    return frame, smart.ID_FIELD, second


def read_documents(path: str | Path, id_column: str = "doc_id", title_column: str = "title",
                   fmt: str | None = None, header: bool | None = None,
                   normalize: str | None = None) -> pd.DataFrame:
    """A document catalog: doc_id, title and every other column kept as a field.

    Without a header row (``header=False``, or detected: the first row holds neither
    column name) the id is column 1 and the title column 2 unless named by position.
    ``fmt`` ``smart``: a SMART document file (:func:`judge_app.io.smart.read_documents`)."""
    path = Path(path)
    source = str(path)
    check_distinct(source, id_column=id_column, title_column=title_column)
    if fmt == SMART:  # .I the id, .T the title, the other fields columns
        frame, id_column, title_column = _read_smart(
            path, smart.read_documents, ((id_column, "doc_id"), (title_column, "title")),
            smart.TITLE)
    else:
        kind = format_of(path, fmt)
        frame = read_table(path, kind, header=header, expected=[id_column, title_column])
        roles = _positional(frame, {"id": id_column, "title": title_column},
                            {"id": "doc_id", "title": "title"})
        id_column, title_column = roles["id"], roles["title"]
        require_named(frame, [id_column], source, kind)
        _no_clash(frame, id_column, "doc_id", "--id-column", source)
        if title_column in frame.columns:
            _no_clash(frame, title_column, "title", "--title-column", source)
    frame = frame.rename(columns={id_column: "doc_id", title_column: "title"})
    frame["doc_id"] = normalize_ids(frame["doc_id"].astype(str), id_normalization(normalize))
    _unique_ids(frame, "doc_id", "doc", source, id_column)
    return frame.drop(columns="line")


def read_queries(path: str | Path, fmt: str | None = None, id_column: str = "query_id",
                 text_column: str = "text", header: bool | None = None,
                 normalize: str | None = None) -> pd.DataFrame:
    """Queries as (query_id, text), texts kept exactly as written.

    A table with those columns (or the ones named); a headerless file (``header=False``, or
    detected: the first row holds neither name), such as a TREC topics TSV
    ``query_id<TAB>text``, whose id is column 1 and text column 2; or an OpenSearch SRW
    query set (``queryText``), whose queries are named by their text; or (``fmt`` ``smart``)
    a SMART query file (:func:`judge_app.io.smart.read_queries`).  A query whose text is
    empty, blanks or missing (a line holding only an id) is refused naming its line."""
    path = Path(path)
    source = str(path)
    check_distinct(source, id_column=id_column, text_column=text_column)
    if fmt == SMART:  # .I the id, .W the text
        frame, id_column, text_column = _read_smart(
            path, smart.read_queries, ((id_column, "query_id"), (text_column, "text")),
            smart.QUERY_TEXT)
    else:
        kind = format_of(path, fmt)
        frame = read_table(path, kind, header=header, expected=[id_column, text_column])
        if (id_column, text_column) == ("query_id", "text") and \
                srw.QUERY_TEXT in frame.columns and "query_id" not in frame.columns:
            id_column = text_column = srw.QUERY_TEXT
        else:
            roles = _positional(frame, {"id": id_column, "text": text_column},
                                {"id": "query_id", "text": "text"})
            id_column, text_column = roles["id"], roles["text"]
        require_named(frame, [id_column, text_column], source, kind)
    ids = frame[id_column].astype(str)
    if id_column == srw.QUERY_TEXT:  # an id made from a query text, which is matched blank-blind
        ids = ids.str.strip()
    texts = frame[text_column]
    blank = (texts.isna() | (texts.astype(str).str.strip() == "")).to_numpy()
    if blank.any():  # a line of an id alone (a cut last line), an empty or null cell
        raise InputError(source, "the query text is empty",
                         line=int(frame["line"].iloc[int(blank.argmax())]), field=text_column)
    out = pd.DataFrame({"query_id": normalize_ids(ids, id_normalization(normalize)),
                        "text": texts.astype(str), "line": frame["line"]})
    _unique_ids(out, "query_id", "query", source, id_column)
    return out[["query_id", "text"]]


LONG_LABEL_COLUMNS = ("query_id", "doc_id", "grade", "judge")
WIDE_ID_COLUMNS = ("query_id", "doc_id")
QUEPID_WIDE_ID_COLUMNS = ("query", "docid")
PROVENANCE_SOURCES = ("dataset", "expert", "replaced")  # a provenance row's ``source``


@dataclass
class ExpertLabelFile:
    """Expert labels read from a file, per judge, in file order.

    ``labels``: query_id, doc_id, grade, judge, created_at (NaT: now), note (None), line.
    ``judgments``: the dataset rows of a provenance CSV (query_id, doc_id, grade, origin,
    imported_at, line), else empty; ``replaced``: its ``replaced`` rows, dataset grades an
    import replaced (same columns), else empty.  ``form``: long, provenance, wide or
    quepid-wide."""

    labels: pd.DataFrame
    judgments: pd.DataFrame
    form: str
    notes: list[str] = field(default_factory=list)
    replaced: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["query_id", "doc_id", "grade", "origin", "imported_at", "line"]))


def read_expert_labels(path: str | Path, scale: GradeScale,
                       query_ids_by_text: dict[str, str] | None = None,
                       fmt: str | None = None, normalize: str | None = None
                       ) -> ExpertLabelFile:
    """Expert labels from a table in one of three forms, told apart by the header:

    * long: ``query_id, doc_id, grade, judge`` and optionally ``time`` and ``note`` (one
      label a row; a judge's later rows for the same pair are later labels);
    * provenance: the long form with ``source`` (``dataset``, ``expert`` or ``replaced``)
      and ``origin``, as ``sxs export csv`` writes it: dataset rows come back as dataset
      judgments, replaced rows as the history of replaced dataset grades;
    * wide: ``query_id, doc_id`` then one column a judge, as ``sxs export wide`` writes it,
      or Quepid's book export ``query, docid, <rater>...`` (queries matched by text, case
      and surrounding blanks ignored).  An empty cell is no label.

    ``normalize`` rewrites the query and doc ids of every row (:mod:`judge_app.io.ids`).
    """
    path = Path(path)
    source = str(path)
    kind = format_of(path, fmt)
    frame = read_table(path, kind)
    columns = [c for c in frame.columns if c != "line"]
    if set(LONG_LABEL_COLUMNS) <= set(columns):
        return _normalized(_long_labels(frame, scale, source), normalize)
    if tuple(columns[:2]) in (WIDE_ID_COLUMNS, QUEPID_WIDE_ID_COLUMNS) and len(columns) > 2:
        return _normalized(_wide_labels(frame, columns, scale, source,
                                        query_ids_by_text or {}), normalize)
    raise InputError(source, "expected columns query_id, doc_id, grade, judge (and optionally "
                     "time, note), or a wide file: query_id, doc_id (or Quepid's query, "
                     f"docid) then one column a judge; the file has {', '.join(columns)}",
                     line=1)


def _normalized(read: ExpertLabelFile, normalize: str | None) -> ExpertLabelFile:
    how = id_normalization(normalize)
    if how is None:
        return read
    for frame in (read.labels, read.judgments, read.replaced):
        for column in ("query_id", "doc_id"):
            frame[column] = normalize_ids(frame[column].astype(str), how)
    return read


LABEL_IDENTITY = ("judge", "query_id", "doc_id", "created_at")
"""A label row repeating an earlier one's judge, pair and time adds nothing (a judge's rows
for one pair at different times are a labelling history)."""


def label_figures_rows(read: ExpertLabelFile) -> tuple[pd.DataFrame, int]:
    """The (query_id, doc_id, grade) rows an import of ``read`` adds — its labels without
    repeats (see :data:`LABEL_IDENTITY`) and its dataset rows — and how many label rows were
    such repeats: what the degenerate-import guard measures."""
    repeated = read.labels.duplicated(list(LABEL_IDENTITY), keep="first").to_numpy()
    columns = ["query_id", "doc_id", "grade"]
    rows = pd.concat([read.labels.loc[~repeated, columns], read.judgments[columns]],
                     ignore_index=True)
    return rows.astype({"query_id": str, "doc_id": str, "grade": "int64"}), int(repeated.sum())


def _nonempty(frame: pd.DataFrame, column: str, what: str, source: str) -> None:
    empty = (frame[column] == "").to_numpy()
    if empty.any():
        row = int(empty.argmax())
        raise InputError(source, f"{what} is empty", line=int(frame["line"].iloc[row]),
                         field=column)


def _times(frame: pd.DataFrame, source: str) -> pd.Series:
    if "time" not in frame.columns:
        return pd.Series(pd.NaT, index=frame.index, dtype="datetime64[us, UTC]")
    text = frame["time"].str.strip()
    parsed = pd.to_datetime(text.where(text != ""), utc=True, errors="coerce", format="mixed")
    bad = (parsed.isna() & (text != "")).to_numpy()
    if bad.any():
        row = int(bad.argmax())
        raise InputError(source, f"time {text.iloc[row]!r} is not a date and time",
                         line=int(frame["line"].iloc[row]), field="time")
    return parsed


def _long_labels(frame: pd.DataFrame, scale: GradeScale, source: str) -> ExpertLabelFile:
    for column, what in (("query_id", "query_id"), ("doc_id", "doc_id")):
        _nonempty(frame, column, what, source)
        check_id_lengths(frame[column], frame["line"], source, column)
    kinds = frame["source"].str.strip() if "source" in frame.columns else pd.Series(
        "expert", index=frame.index)
    unknown = ~kinds.isin(PROVENANCE_SOURCES).to_numpy()
    if unknown.any():
        row = int(unknown.argmax())
        raise InputError(source, f"source {kinds.iloc[row]!r} must be one of "
                         f"{', '.join(PROVENANCE_SOURCES)}",
                         line=int(frame["line"].iloc[row]), field="source")
    grades, _ = map_grades(frame["grade"], frame["line"], scale, source, "grade")
    times = _times(frame, source)
    expert = (kinds == "expert").to_numpy()
    experts = frame[expert]
    _nonempty(experts, "judge", "judge", source)
    notes = experts["note"] if "note" in experts.columns else pd.Series("", index=experts.index)
    labels = pd.DataFrame({"query_id": experts["query_id"], "doc_id": experts["doc_id"],
                           "grade": grades[expert], "judge": experts["judge"],
                           "created_at": times[expert],
                           "note": notes.where(notes != "", None), "line": experts["line"]})

    def dataset_rows(kind: str) -> pd.DataFrame:
        keep = (kinds == kind).to_numpy()
        rows = frame[keep]
        origin = (rows["origin"] if "origin" in rows.columns
                  else pd.Series("", index=rows.index))
        return pd.DataFrame({"query_id": rows["query_id"], "doc_id": rows["doc_id"],
                             "grade": grades[keep], "origin": origin,
                             "imported_at": times[keep], "line": rows["line"]}
                            ).reset_index(drop=True)

    return ExpertLabelFile(labels.reset_index(drop=True), dataset_rows("dataset"),
                           "provenance" if "source" in frame.columns else "long",
                           replaced=dataset_rows("replaced"))


def _wide_labels(frame: pd.DataFrame, columns: list[str], scale: GradeScale, source: str,
                 ids_by_text: dict[str, str]) -> ExpertLabelFile:
    query, doc = columns[:2]
    judges = columns[2:]
    for column in (query, doc):
        _nonempty(frame, column, column, source)
        check_id_lengths(frame[column], frame["line"], source, column)
    ids = frame[query]
    form = "wide"
    if query == "query":
        form = "quepid-wide"
        folded = {text.strip().casefold(): qid for text, qid in ids_by_text.items()}
        ids = frame[query].str.strip().str.casefold().map(folded)
        unknown = ids.isna().to_numpy()
        if unknown.any():
            row = int(unknown.argmax())
            raise InputError(source, f"query {frame[query].iloc[row]!r} matches no query of "
                             "the dataset (import the queries first)",
                             line=int(frame["line"].iloc[row]), field=query)
    parts = []
    for judge in judges:
        cells = frame[judge].str.strip()
        rated = (cells != "").to_numpy()
        grades, _ = map_grades(cells[rated], frame["line"][rated], scale, source, judge)
        parts.append(pd.DataFrame({"query_id": ids[rated], "doc_id": frame[doc][rated],
                                   "grade": grades, "judge": judge,
                                   "line": frame["line"][rated]}))
    labels = pd.concat(parts).sort_values(["line"], kind="stable").reset_index(drop=True)
    labels["created_at"] = pd.Series(pd.NaT, index=labels.index, dtype="datetime64[us, UTC]")
    labels["note"] = None
    empty = pd.DataFrame(columns=["query_id", "doc_id", "grade", "origin", "imported_at",
                                  "line"])
    return ExpertLabelFile(labels[["query_id", "doc_id", "grade", "judge", "created_at", "note",
                                   "line"]], empty, form)
