"""Writing tables for analysts: one CSV/TSV writer with the spreadsheet formula guard.

A spreadsheet runs a cell that starts with ``= + - @`` (and, in some, a tab, CR or LF) as a
formula.  Every text cell and every header written here that starts with one of
:data:`GUARDED_STARTS` gets a leading apostrophe; a cell that already starts with an apostrophe
gets one too, so the guard is a bijection and :func:`unguard` undoes it exactly:

    guard(v)   = "'" + v   if v[:1] in GUARDED_STARTS else v
    unguard(w) = w[1:]     if w[:1] == "'" and w[1:2] in GUARDED_STARTS else w

Numbers are never guarded (a negative number stays a number).  CSV quoting follows RFC 4180:
a field holding the delimiter, a quote, CR or LF is quoted, so ids with newlines or
leading/trailing spaces read back equal (see :func:`judge_app.io.files.read_table`).  TSV has
no quoting (IANA text/tab-separated-values): a TSV cell holding a tab, CR or LF is refused.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TextIO

import pandas as pd

from judge_app.errors import SxsError

APOSTROPHE = "'"
GUARDED_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", APOSTROPHE)
_UNGUARD = "^'(?=[=+\\-@\\t\\r\\n'])"
PARQUET_SUFFIXES = (".parquet", ".pq")
TSV_SUFFIXES = (".tsv", ".tab")


def guard(value: object) -> object:
    """The cell as written: text a spreadsheet would run gets a leading apostrophe."""
    if isinstance(value, str) and value.startswith(GUARDED_STARTS):
        return APOSTROPHE + value
    return value


def unguard(column: pd.Series) -> pd.Series:
    """Undo :func:`guard` on a column of text read back."""
    return column.str.replace(_UNGUARD, "", regex=True)


def unguard_text(value: str) -> str:
    """Undo :func:`guard` on one text (a header cell)."""
    if value[:1] == APOSTROPHE and value[1:2] and value[1:2] in GUARDED_STARTS:
        return value[1:]
    return value


def guarded(frame: pd.DataFrame, index: bool = False) -> pd.DataFrame:
    """A copy with text cells, headers (and index values/names if ``index``) guarded."""
    out = frame.reset_index() if index else frame.copy()
    for column in out.columns:
        values = out[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values):
            out[column] = values.map(guard)
    out.columns = [guard(str(c)) for c in out.columns]
    return out


def _text_cells(frame: pd.DataFrame) -> list[str]:
    cells = [str(c) for c in frame.columns]
    for column in frame.columns:
        values = frame[column]
        if values.dtype == object or pd.api.types.is_string_dtype(values):
            cells += [v for v in values if isinstance(v, str)]
    return cells


def write_csv(frame: pd.DataFrame, out: str | Path | TextIO, sep: str = ",",
              index: bool = False) -> None:
    """Write ``frame`` (and its index if ``index``) as guarded CSV or TSV, UTF-8, LF lines.

    A CSV with a cell holding CR is written with CRLF line ends instead: Python's csv writer
    quotes a CR only when CR is part of the line terminator.
    """
    table = guarded(frame, index)
    cells = _text_cells(table)
    terminator = "\n"
    if sep == "\t":
        bad = next((c for c in cells if any(ch in c for ch in "\t\r\n")), None)
        if bad is not None:
            raise SxsError(f"cannot write {bad!r} to TSV: it holds a tab or line break "
                           "(write CSV or Parquet instead)")
        quoting = csv.QUOTE_NONE
    else:
        quoting = csv.QUOTE_MINIMAL
        if any("\r" in c for c in cells):
            terminator = "\r\n"
    if isinstance(out, (str, Path)):
        with Path(out).open("w", encoding="utf-8", newline="") as handle:
            table.to_csv(handle, sep=sep, index=False, quoting=quoting, lineterminator=terminator)
    else:
        table.to_csv(out, sep=sep, index=False, quoting=quoting, lineterminator=terminator)


def csv_text(frame: pd.DataFrame, index: bool = True) -> str:
    """Guarded CSV as a string (for standard output), with the index as leading columns."""
    buffer = io.StringIO()
    write_csv(frame, buffer, index=index and _has_index(frame))
    return buffer.getvalue()


def _has_index(frame: pd.DataFrame) -> bool:
    return not (isinstance(frame.index, pd.RangeIndex) and frame.index.name is None)


def write_table(frame: pd.DataFrame, path: str | Path) -> int:
    """Write an analyst's table by suffix: Parquet (``.parquet``/``.pq``), TSV
    (``.tsv``/``.tab``), else CSV; the text formats are guarded.  Returns the row count."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in PARQUET_SUFFIXES:
        frame.to_parquet(path, index=False)
    else:
        write_csv(frame, path, sep="\t" if suffix in TSV_SUFFIXES else ",")
    return len(frame)
