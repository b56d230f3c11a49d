"""SMART/Glasgow document and query files — the classic collections' ``.ALL`` and ``.QRY``
(CISI, CACM, ADI, MEDLINE, Cranfield's ``cran.all.1400`` and ``cran.qry``); their relevance
files (``qid docid 0 0``) are read with the TREC formats (:mod:`judge_app.io.trec`).

A file is a sequence of records, each a run of fields opened by a *marker line*::

    .I 1
    .T
    18 Editions of the Dewey Decimal Classifications
    .A
    Comaromi, J.P.
    .W
        The present study is a history of the DEWEY Decimal
    Classification.
    .X
    1	5	1

* ``.I <id>`` starts a record: the id is the one word after it (the doc or query id, kept as
  written: ``001`` stays ``001``);
* a marker is a dot and one capital letter at the start of a line, alone or followed by
  blanks (then the rest of the line starts the field); every line up to the next marker
  belongs to the field.  The markers read (:data:`FIELDS`) and the column each becomes:
  ``.T`` title, ``.A`` author, ``.W`` text, ``.B`` source, ``.X`` references, ``.K``
  keywords, ``.N`` entered, ``.C`` categories.  A field's lines are kept as written, joined
  by newlines, blank lines at its ends removed; a marker repeated in a record (CISI lists
  some authors each under its own ``.A``) adds its lines to the field after a newline;
* documents (:func:`read_documents`): ``doc_id`` from ``.I``, ``title`` from ``.T``, every
  other field a column (a record without it: missing, not stored);
* queries (:func:`read_queries`): ``query_id`` from ``.I``, ``text`` from ``.W`` with its
  blanks and line breaks made single spaces (a query is one line of text); a query's other
  fields (``.T``, ``.A``, ``.B`` in CISI's) are not kept.

Refused, in one line naming the file, line and field (the marker): text before the first
``.I``; a ``.I`` without an id or with more than one word; text between ``.I`` and its first
field marker; a marker sxs does not know (``.Z``: decided so, since a line of text that
merely looks like a marker would otherwise be taken as one silently, and every classic
collection uses only the markers above); a file holding no record.  A repeated id is refused
by the importers (naming both lines), as in any table.  Lines are numbered from 1 in the
(decompressed) file; CRLF endings and a UTF-8 byte order mark are accepted.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from judge_app.errors import InputError
from judge_app.io.files import check_text, read_bytes
from judge_app.io.nul import refuse_nul_bytes

ID_MARKER = "I"
FIELDS: dict[str, str] = {"T": "title", "A": "author", "W": "text", "B": "source",
                          "X": "references", "K": "keywords", "N": "entered",
                          "C": "categories"}
"""The field markers read, and the column each becomes (``.I`` is the record's id)."""
ID_FIELD = ".I"
"""The field an id error names (and the id column of the frames read here)."""
TITLE = FIELDS["T"]
"""A document frame's title column."""
QUERY_TEXT = ".W"
"""A query frame's text column (named by its marker, as errors name it)."""

_MARKER = re.compile(r"\.([A-Z])(?:[ \t]+(.*))?")


def _records(path: Path) -> list[tuple[str, int, dict[str, list[str]]]]:
    """(id, line of its ``.I``, marker -> lines) per record, in file order."""
    source = str(path)
    data = check_text(read_bytes(path), source)
    refuse_nul_bytes(data, source)
    records: list[tuple[str, int, dict[str, list[str]]]] = []
    current: list[str] | None = None
    for number, raw in enumerate(data.decode("utf-8").split("\n"), start=1):
        line = raw.rstrip("\r")
        found = _MARKER.fullmatch(line.rstrip())
        if found is None:
            if current is not None:
                current.append(line)
            elif line.strip():
                where = "the first .I" if not records else "the record's first field marker"
                raise InputError(source, f"text before {where} (.T, .W, ...)", line=number,
                                 field=ID_FIELD if not records else f".I {records[-1][0]}")
            continue
        marker, rest = found.group(1), (found.group(2) or "").strip()
        if marker == ID_MARKER:
            words = rest.split()
            if len(words) != 1:
                said = "without an id" if not words else f"with more than one word: {rest!r}"
                raise InputError(source, f"a .I line {said}", line=number, field=ID_FIELD)
            records.append((words[0], number, {}))
            current = None
            continue
        if marker not in FIELDS:
            raise InputError(source, f"unknown field marker .{marker} (SMART fields: .I "
                             + " ".join(f".{m}" for m in FIELDS) + ")", line=number,
                             field=f".{marker}")
        if not records:
            raise InputError(source, "text before the first .I", line=number, field=ID_FIELD)
        fields = records[-1][2]
        current = fields.setdefault(marker, [])
        if current:
            current.append("")  # a repeated marker: its lines after a newline
        if rest:
            current.append(rest)
    if not records:
        raise InputError(source, "no .I record: not a SMART document or query file")
    return records


def _text(lines: list[str]) -> str:
    return "\n".join(lines).strip("\n").strip()


def read_documents(path: str | Path) -> pd.DataFrame:
    """A SMART document file as a frame of strings: ``.I`` (the doc id), the columns of
    :data:`FIELDS` met in the file (``title`` first; None where a record lacks one), and
    ``line`` (of each record's ``.I``)."""
    records = _records(Path(path))
    seen = {marker for _, _, fields in records for marker in fields}
    columns = [FIELDS[m] for m in FIELDS if m in seen]
    rows = [{ID_FIELD: doc_id, "line": line,
             **{FIELDS[m]: _text(lines) for m, lines in fields.items()}}
            for doc_id, line, fields in records]
    return pd.DataFrame(rows, columns=[ID_FIELD, *columns, "line"]).astype(
        {"line": "int64"})


def read_queries(path: str | Path) -> pd.DataFrame:
    """A SMART query file as a frame of strings: ``.I`` (the query id), ``.W`` (its text on
    one line: blanks and line breaks made single spaces; empty when the record has no
    ``.W``) and ``line`` (of each record's ``.I``)."""
    records = _records(Path(path))
    rows = [(query_id, " ".join(_text(fields.get("W", [])).split()), line)
            for query_id, line, fields in records]
    return pd.DataFrame(rows, columns=[ID_FIELD, QUERY_TEXT, "line"])
