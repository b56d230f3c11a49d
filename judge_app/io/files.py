"""Reading input files safely: encoding checks with line numbers, and table formats.

Every reader returns a DataFrame of strings plus a ``line`` column (the 1-based line of the
file each row came from, or the row number for Parquet), so later checks can name the line.
A UTF-8 byte order mark is skipped and CRLF line ends are accepted; an empty file, bytes that
are not UTF-8 and unreadable rows are :class:`~judge_app.errors.InputError` naming the line.
A ``.gz``, ``.bz2`` or ``.zst`` suffix after the format's own (``judgments.csv.gz``) is
decompressed first; line numbers count in the decompressed text.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import InputError
from judge_app.io import srw
from judge_app.io.compression import compression_of, open_decompressed
from judge_app.io.csv_safe import unguard, unguard_text
from judge_app.io.formats import TABLE_FORMATS
from judge_app.io.nul import refuse_nul_bytes, refuse_nul_cells

_CHUNK = 1 << 24
FORMATS = TABLE_FORMATS
_SUFFIX_FORMATS = {"csv": "csv", "tsv": "tsv", "tab": "tsv", "txt": "tsv",
                   "parquet": "parquet", "pq": "parquet", "jsonl": "jsonl",
                   "ndjson": "jsonl", "json": "json"}


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when its suffix names a compression (see
    :mod:`judge_app.io.compression`)."""
    source = str(path)
    kind = compression_of(path)
    try:
        with open_decompressed(path) as handle:
            return handle.read()
    except InputError:
        raise
    except (OSError, EOFError, ValueError) as error:
        raise InputError(source, f"not a valid {kind} file ({error})") from None
    except Exception as error:  # zstandard.ZstdError does not derive from OSError
        if type(error).__module__.startswith("zstd"):
            raise InputError(source, f"not a valid zstd file ({error})") from None
        raise


def check_text(data: bytes, source: str) -> bytes:
    """The UTF-8 text of a file without its byte order mark; InputError (naming the line)
    for an empty file or bytes that are not UTF-8.  Checked in chunks: no decoded copy."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    if not data:
        raise InputError(source, "the file is empty")
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    for offset in range(0, len(data), _CHUNK):
        try:
            decoder.decode(view[offset:offset + _CHUNK])
        except UnicodeDecodeError as error:
            bad = offset + error.start
            raise InputError(source, f"byte 0x{data[bad]:02x} is not UTF-8 text "
                             "(save the file as UTF-8)",
                             line=data.count(b"\n", 0, bad) + 1) from None
    try:
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        raise InputError(source, "the file ends inside a UTF-8 character",
                         line=data.count(b"\n") + 1) from None
    return data


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
    """The table format, from ``fmt`` or the file's suffix (under any compression suffix)."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(str(path), f"unknown format {fmt!r}; use one of {', '.join(FORMATS)}")
        return fmt
    suffix = Path(path.stem).suffix if compression_of(path) else path.suffix
    guessed = _SUFFIX_FORMATS.get(suffix.lower().lstrip("."))
    if guessed is None:
        raise InputError(str(path), f"cannot tell the format from {path.name!r}; "
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


_BLANK = re.compile(rb"(?m)^[ \t\r]*\n|\n[ \t\r]+\Z")


def _lines_in(data: bytes, rows: int) -> pd.Series:
    """Line of each parsed row of ``data`` (the parsers skip blank lines)."""
    total = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
    if total == rows or (total > rows and not _BLANK.search(data)):
        return pd.Series(range(1, rows + 1))
    numbers = [number for number, raw in enumerate(data.split(b"\n"), start=1)
               if raw.strip()][:rows]
    # a quoted CSV field can span lines: past what we can map, count on from the last line
    last = numbers[-1] if numbers else 0
    numbers += range(last + 1, last + 1 + rows - len(numbers))
    return pd.Series(numbers)


def read_table(path: Path, fmt: str | None = None, header: bool | None = True,
               expected: Sequence[str] = ()) -> pd.DataFrame:
    """A CSV/TSV, Parquet, JSON or JSON Lines file (optionally .gz/.bz2/.zst) as strings,
    plus ``line``.

    ``header``: True (the first row names the columns), False (no header: the columns are
    named by position, ``"1"``, ``"2"``, ...) or None (detect: the first row is a header when
    one of its cells is one of ``expected``; when every expected name is a position, ``"1"``,
    ``"2"``..., the file has no header row).  TSV is read without quoting (a quote is text).
    JSON is an array of objects, JSON Lines (one object a line), or an OpenSearch Search
    Relevance Workbench judgment list or query set (see :mod:`judge_app.io.srw`).
    A NUL anywhere is an InputError naming the line and, but in raw JSON bytes, the column
    (:mod:`judge_app.io.nul`).
    """
    source = str(path)
    kind = format_of(path, fmt)
    if header is False and kind not in ("csv", "tsv"):
        raise InputError(source, f"--no-header applies to CSV and TSV files, not {kind}")
    data = read_bytes(path)
    if kind == "parquet":
        try:
            frame = pd.read_parquet(io.BytesIO(data))
        except Exception as error:  # pyarrow raises several types for a bad file
            raise InputError(source, f"not a readable Parquet file ({error})") from None
        if frame.empty:
            raise InputError(source, "the file has no rows")
        frame = frame.astype(object).where(frame.notna(), "").astype(str)
        frame["line"] = np.arange(1, len(frame) + 1)
        refuse_nul_cells(frame, source)
        return frame
    text = check_text(data, source)
    if kind in ("json", "jsonl"):
        refuse_nul_bytes(text, source)  # raw, it is not even JSON; escaped, see below
        frame = read_json_records(text, source)
        if b"\\u0000" in text:
            refuse_nul_cells(frame, source, header_line=None)
            refuse_nul_bytes(text, source, json_text=True)  # in a key
        return frame
    frame = _read_delimited(text, source, "," if kind == "csv" else "\t", header, expected)
    if b"\0" in text:
        refuse_nul_cells(frame, source)
        refuse_nul_bytes(text, source)  # in what the parser did not keep as a cell
    return frame


def is_position(name: str) -> bool:
    """Whether a column name is a position (``1``, ``2``, ...), the names of a file read
    without a header row."""
    return name.isascii() and name.isdigit() and not name.startswith("0")


def _read_delimited(data: bytes, source: str, sep: str, header: bool | None,
                    expected: Sequence[str]) -> pd.DataFrame:
    quoting = csv.QUOTE_MINIMAL if sep == "," else csv.QUOTE_NONE
    try:
        frame = pd.read_csv(io.BytesIO(data), sep=sep, header=None, dtype=str,
                            encoding="utf-8", keep_default_na=False, na_values=[],
                            skip_blank_lines=True, index_col=False, quoting=quoting)
    except pd.errors.EmptyDataError:
        raise InputError(source, "the file is empty") from None
    except (pd.errors.ParserError, ValueError) as error:
        raise _parser_error(source, error) from None
    frame = frame.fillna("")
    first = [unguard_text(str(cell)).strip() for cell in frame.iloc[0]] if len(frame) else []
    if header is None:
        # a column named by position (1, 2, ...) says the file has no header row: only the
        # other expected names can show that the first row is one
        named = [name for name in expected if not is_position(name)]
        header = not expected or any(cell in named for cell in first)
    lines = _lines_in(data, len(frame)).to_numpy()
    if header:
        names = [cell or str(number) for number, cell in enumerate(first, start=1)]
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise InputError(source, f"column {name!r} appears twice in the header",
                                 line=1)
            seen.add(name)
        frame = frame.iloc[1:].reset_index(drop=True)
        lines = lines[1:]
        if frame.empty:
            raise InputError(source, "the file has a header but no rows")
    else:
        names = [str(number) for number in range(1, frame.shape[1] + 1)]
    frame.columns = names
    for column in names:
        frame[column] = unguard(frame[column])
    frame["line"] = lines
    frame.attrs.update(header=bool(header), first_row=first)
    return frame


def read_json_records(data: bytes, source: str) -> pd.DataFrame:
    """Records from JSON text: an array of objects, JSON Lines (one object a line), or an
    OpenSearch SRW judgment list / query set object.  Each row's ``line`` is where its object
    starts; anything but an object where a record belongs is an InputError naming the line."""
    text = data.decode("utf-8")
    start = len(text) - len(text.lstrip())
    if text[start:start + 1] == "[":
        records, lines = _json_array(text, start, source)
    else:
        document = _whole_json(text)
        if isinstance(document, dict) and srw.is_srw(document):
            return srw.flatten(document, text, source)
        records, lines = _json_lines(text, source)
    if not records:
        raise InputError(source, "the file has no rows")
    keys = dict.fromkeys(key for record in records for key in record)
    columns = {}
    for key in keys:
        values = [record.get(key) for record in records]
        if not set(map(type, values)) <= {str}:
            values = [_json_cell(v) for v in values]
        columns[str(key)] = values
    frame = pd.DataFrame(columns)
    frame["line"] = np.asarray(lines, dtype=np.int64)
    return frame


def _whole_json(text: str) -> object:
    try:
        return json.loads(text)
    except ValueError:
        return None


def _json_cell(value: object) -> str:
    """A JSON value as the text of a cell: null and missing are empty."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _kind_of(value: object) -> str:
    return {list: "an array", str: "a string", bool: "true/false", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _json_lines(text: str, source: str) -> tuple[list[dict], list[int]]:
    """One object a line (blank lines skipped); anything else names its line."""
    decode = json.JSONDecoder().raw_decode
    records: list[dict] = []
    lines: list[int] = []
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        try:
            value, end = decode(line)
        except ValueError as error:
            raise InputError(source, f"not valid JSON ({error.args[0].split(':')[0]})",
                             line=number) from None
        if end != len(line):
            raise InputError(source, "not valid JSON (extra data after the value)",
                             line=number)
        if type(value) is not dict:
            raise InputError(source, f"expected a JSON object, found {_kind_of(value)}",
                             line=number)
        records.append(value)
        lines.append(number)
    return records, lines


def _json_array(text: str, start: int, source: str) -> tuple[list[dict], list[int]]:
    """The objects of a top-level JSON array, each with the line where it starts."""
    decoder = json.JSONDecoder()
    records: list[dict] = []
    lines: list[int] = []
    position = start + 1
    line = text.count("\n", 0, position) + 1
    counted = position

    def skip(pos: int) -> int:
        while pos < len(text) and text[pos] in " \t\r\n":
            pos += 1
        return pos

    position = skip(position)
    if text[position:position + 1] == "]":
        if text[skip(position + 1):].strip():
            raise InputError(source, "text after the JSON array",
                             line=text.count("\n", 0, position) + 1)
        return records, lines
    while True:
        line += text.count("\n", counted, position)
        counted = position
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError as error:
            where = getattr(error, "lineno", line)
            raise InputError(source, f"not valid JSON ({error.args[0].split(':')[0]})",
                             line=where) from None
        if not isinstance(value, dict):
            raise InputError(source, f"expected a JSON object, found {_kind_of(value)}",
                             line=line)
        records.append(value)
        lines.append(line)
        position = skip(end)
        mark = text[position:position + 1]
        if mark == "]":
            if text[position + 1:].strip():
                raise InputError(source, "text after the JSON array",
                                 line=text.count("\n", 0, position) + 1)
            return records, lines
        if mark != ",":
            raise InputError(source, "expected , or ] between array elements",
                             line=text.count("\n", 0, position) + 1)
        position = skip(position + 1)


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
