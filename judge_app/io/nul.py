"""NUL bytes (``\\x00``): no id or text may hold one.

PostgreSQL's ``text`` cannot store it, and C tools reading an export (trec_eval) end a value at
it, so a NUL is refused wherever text enters — with one line naming the file, line and field
(:func:`nul_error`), or the typed value (:func:`plain_text`) — on both backends alike.

Where each reader checks (one check per way of reading, each cheap when there is no NUL):

* tables and JSON (:func:`judge_app.io.files.read_table`): the parsed cells, naming line and
  column (:func:`refuse_nul_cells`), asked only when the bytes hold a NUL or, in JSON, the
  escape ``\\u0000`` (Parquet: always); raw NUL bytes in JSON text are refused before parsing
  (:func:`refuse_nul_bytes`), as they are in a UBI click log, escapes included;
* TREC files, parsed by DuckDB (:mod:`judge_app.store.trec_readers`): the precise reader names the
  line and field (:func:`judge_app.io.trec.nul_field_error`); the fast reader never sees a NUL
  (:func:`judge_app.io.trec.plain_layout` sends such a file to the precise one).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from judge_app.errors import InputError, SxsError

if TYPE_CHECKING:
    import pandas as pd

NUL = "\x00"
REASON = "holds a NUL byte (\\x00), which no id or text may contain; remove it"
_JSON_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u0000")
"""A JSON string escape for NUL: ``\\u0000`` after an even run of backslashes."""


def nul_error(source: str, line: int | None = None, field: str | None = None) -> InputError:
    """The one line refusing a NUL in ``source`` (a file), at ``line`` and ``field`` if known."""
    return InputError(source, REASON, line=line, field=field)


def nul_line(data: bytes, json_text: bool = False) -> int | None:
    """The 1-based line of the first NUL byte of ``data`` (with ``json_text``, also of the
    first ``\\u0000`` escape), else None.  A C-speed scan; the regular expression runs only
    when the escape's bytes occur at all."""
    at = data.find(b"\0")
    if json_text and b"\\u0000" in data:
        escape = _JSON_ESCAPE.search(data)
        if escape is not None and (at < 0 or escape.end() - 6 < at):
            at = escape.end() - 6
    return None if at < 0 else data.count(b"\n", 0, at) + 1


def refuse_nul_bytes(data: bytes, source: str, json_text: bool = False) -> None:
    """InputError naming the line of the first NUL in ``data`` (see :func:`nul_line`)."""
    line = nul_line(data, json_text)
    if line is not None:
        raise nul_error(source, line)


def refuse_nul_cells(frame: pd.DataFrame, source: str, line_column: str = "line",
                     header_line: int | None = 1) -> None:
    """InputError naming the line (``line_column``) and column of the first cell of ``frame``
    holding a NUL; then, unless ``header_line`` is None, one naming ``header_line`` for a
    column name holding one."""
    from pandas.api.types import is_string_dtype

    first: tuple[int, str] | None = None
    for name in frame.columns:
        if name == line_column or not is_string_dtype(frame[name].dtype):
            continue
        hit = frame[name].astype(str).str.contains(NUL, regex=False).to_numpy()
        if hit.any():
            line = int(frame[line_column].iloc[int(hit.argmax())])
            if first is None or line < first[0]:
                first = (line, str(name))
    if first is not None:
        raise nul_error(source, first[0], first[1])
    if header_line is not None and any(NUL in str(name) for name in frame.columns):
        raise nul_error(source, header_line)


def plain_text(value: str | None, what: str) -> str | None:
    """``value`` (a name, a reason, a note typed in the app or given on the command line)
    unchanged; SxsError naming ``what`` when it holds a NUL."""
    if value is not None and NUL in value:
        raise SxsError(f"the {what} {REASON}")
    return value
