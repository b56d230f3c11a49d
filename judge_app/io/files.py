"""Reading input files safely: encoding checks with line numbers, and table formats.

Every reader returns a DataFrame of strings plus a ``line`` column (the 1-based line of the
file each row came from, or the row number for Parquet), so later checks can name the line.
A UTF-8 byte order mark is skipped and CRLF line ends are accepted; an empty file, bytes that
are not UTF-8 and unreadable rows are :class:`~judge_app.errors.InputError` naming the line.
"""

from __future__ import annotations

import codecs
import csv
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import InputError
from judge_app.io.formats import TABLE_FORMATS

_CHUNK = 1 << 24
FORMATS = TABLE_FORMATS


def check_text_file(path: Path) -> bool:
    """Raise InputError for a missing or empty file, or bytes that are not UTF-8 (naming the
    line); return whether the file starts with a byte order mark."""
    source = str(path)
    if not path.is_file():
        raise InputError(source, "no such file")
    if path.stat().st_size == 0:
        raise InputError(source, "the file is empty")
    decoder = codecs.getincrementaldecoder("utf-8")()
    line = 1
    has_bom = False
    with path.open("rb") as handle:
        first = True
        while chunk := handle.read(_CHUNK):
            if first:
                has_bom = chunk.startswith(codecs.BOM_UTF8)
                first = False
            try:
                decoder.decode(chunk)
            except UnicodeDecodeError as error:
                bad_line = line + chunk.count(b"\n", 0, error.start)
                raise InputError(source, f"byte 0x{chunk[error.start]:02x} is not UTF-8 text "
                                 "(save the file as UTF-8)", line=bad_line) from None
            line += chunk.count(b"\n")
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            raise InputError(source, "the file ends inside a UTF-8 character",
                             line=line) from None
    if has_bom and path.stat().st_size == len(codecs.BOM_UTF8):
        raise InputError(source, "the file is empty")
    return has_bom


def format_of(path: Path, fmt: str | None) -> str:
    """The table format, from ``fmt`` or the file's suffix."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(str(path), f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    suffix = path.suffix.lower().lstrip(".")
    guessed = {"csv": "csv", "tsv": "tsv", "tab": "tsv", "txt": "tsv", "parquet": "parquet",
               "pq": "parquet", "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl"}.get(suffix)
    if guessed is None:
        raise InputError(str(path), f"cannot tell the format from {path.suffix!r}; "
                         f"pass --format ({', '.join(FORMATS)})")
    return guessed


_FIELDS = re.compile(r"Expected (\d+) fields in line (\d+), saw (\d+)")


def _parser_error(source: str, error: Exception) -> InputError:
    text = str(error)
    match = _FIELDS.search(text)
    if match:
        want, line, saw = match.groups()
        return InputError(source, f"expected {want} fields, found {saw}", line=int(line))
    return InputError(source, f"cannot read the file: {text.splitlines()[-1] if text else text}")


def read_whitespace_columns(path: Path, names: list[str], min_fields: int | None = None
                            ) -> pd.DataFrame:
    """A whitespace-separated file without header (TREC formats), every cell a string."""
    source = str(path)
    bom = check_text_file(path)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(path, sep=r"\s+", header=None, names=names, dtype=str,
                                encoding="utf-8-sig" if bom else "utf-8", engine="c",
                                skip_blank_lines=True, keep_default_na=False, na_values=[],
                                index_col=False)
    except pd.errors.ParserWarning:
        raise _too_many_fields(path, len(names)) from None
    except (pd.errors.ParserError, ValueError) as error:
        raise _parser_error(source, error) from None
    if frame.empty:
        raise InputError(source, "the file has no rows")
    frame = frame.fillna("")
    needed = names[: min_fields or len(names)]
    missing = (frame[needed] == "").any(axis=1).to_numpy()
    if missing.any():
        row = int(missing.argmax())
        have = int((frame.iloc[row] != "").sum())
        raise InputError(source, f"expected {len(needed)} fields, found {have}",
                         line=_line_of(path, row))
    frame["line"] = _lines(path, len(frame)).to_numpy()
    return frame


_BLANK = re.compile(rb"(?m)^[ \t\r]*\n|\n[ \t\r]+\Z")


def _too_many_fields(path: Path, fields: int) -> InputError:
    """The first line of a whitespace-separated file with more than ``fields`` fields."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            found = len(raw.split())
            if found > fields:
                return InputError(str(path), f"expected {fields} fields, found {found}",
                                  line=number)
    return InputError(str(path), f"a line has more than {fields} fields")


def _lines(path: Path, rows: int) -> pd.Series:
    """File line of each parsed row (the parsers skip blank lines)."""
    data = path.read_bytes()
    total = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if total == rows or (total > rows and not _BLANK.search(data)):
        return pd.Series(range(1, rows + 1))
    numbers = [number for number, raw in enumerate(data.split(b"\n"), start=1)
               if raw.strip()][:rows]
    # a quoted CSV field can span lines: past what we can map, count on from the last line
    last = numbers[-1] if numbers else 0
    numbers += range(last + 1, last + 1 + rows - len(numbers))
    return pd.Series(numbers)


def _line_of(path: Path, row: int) -> int:
    return int(_lines(path, row + 1).iloc[row])


def read_table(path: Path, fmt: str | None = None) -> pd.DataFrame:
    """A CSV/TSV (with a header row), Parquet or JSONL file as strings, plus ``line``."""
    source = str(path)
    kind = format_of(path, fmt)
    if kind == "parquet":
        if not path.is_file():
            raise InputError(source, "no such file")
        try:
            frame = pd.read_parquet(path)
        except Exception as error:  # pyarrow raises several types for a bad file
            raise InputError(source, f"not a readable Parquet file ({error})") from None
        if frame.empty:
            raise InputError(source, "the file has no rows")
        frame = frame.astype(object).where(frame.notna(), "").astype(str)
        frame["line"] = np.arange(1, len(frame) + 1)
        return frame
    bom = check_text_file(path)
    encoding = "utf-8-sig" if bom else "utf-8"
    if kind == "jsonl":
        try:
            frame = pd.read_json(path, lines=True, dtype=False, encoding=encoding)
        except ValueError as error:
            raise InputError(source, f"not valid JSON lines ({error})") from None
        if frame.empty:
            raise InputError(source, "the file has no rows")
        frame = frame.astype(object).where(frame.notna(), "").astype(str)
        frame["line"] = _lines(path, len(frame)).to_numpy()
        return frame
    sep = "," if kind == "csv" else "\t"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            frame = pd.read_csv(path, sep=sep, dtype=str, encoding=encoding,
                                keep_default_na=False, na_values=[], skip_blank_lines=True,
                                index_col=False)
    except pd.errors.ParserWarning:
        raise _field_count_error(path, sep, encoding) from None
    except pd.errors.EmptyDataError:
        raise InputError(source, "the file is empty") from None
    except (pd.errors.ParserError, ValueError) as error:
        raise _parser_error(source, error) from None
    if frame.empty:
        raise InputError(source, "the file has a header but no rows")
    frame.columns = [str(c).strip() for c in frame.columns]
    for column in frame.columns:
        frame[column] = unguard_formulas(frame[column])
    frame["line"] = _lines(path, len(frame) + 1).iloc[1:].to_numpy()
    return frame


def _field_count_error(path: Path, sep: str, encoding: str) -> InputError:
    """The first row whose field count differs from the header's (csv module, error path)."""
    with path.open(encoding=encoding, newline="") as handle:
        reader = csv.reader(handle, delimiter=sep)
        header = next(reader, [])
        for row in reader:
            if row and len(row) != len(header):
                return InputError(str(path), f"expected {len(header)} fields, found "
                                  f"{len(row)}", line=reader.line_num)
    return InputError(str(path), "rows do not match the header's fields")


def unguard_formulas(column: pd.Series) -> pd.Series:
    """Undo the spreadsheet formula guard sxs writes: a leading apostrophe before = + - @."""
    return column.str.replace(r"^'(?=[=+\-@\t\r])", "", regex=True)


def require_columns(frame: pd.DataFrame, columns: list[str], source: str, fmt: str) -> None:
    """InputError naming the missing columns, with a hint when the delimiter looks wrong."""
    missing = [c for c in columns if c not in frame.columns]
    if not missing:
        return
    header = [c for c in frame.columns if c != "line"]
    hint = ""
    if len(header) == 1 and fmt in ("csv", "tsv"):
        other = "tab" if fmt == "csv" else "comma"
        hint = f"; the header is one column {header[0]!r}: is the file {other}-separated?"
    raise InputError(source, f"missing column(s) {', '.join(missing)} "
                     f"(the file has {', '.join(header)}){hint}", line=1)
