"""Click logs: OpenSearch User Behavior Insights (UBI) files and plain tables, read into one
normalised :class:`ClickLog`; matching log queries to a dataset's queries; the logged ranking.

Formats (:func:`read_clicks`)
-----------------------------
* **UBI JSON** (``.ndjson``, ``.jsonl``, ``.json``; ``fmt="ubi"``), any of:

  - OpenSearch bulk format: an action line ``{"index": {"_index": "ubi_events", ...}}`` (or
    ``"create"``) before each document.  ``_index`` must be ``ubi_queries`` or ``ubi_events``
    (an unknown index is an error); without ``_index`` the document's kind is read from its
    fields, as below;
  - plain NDJSON, one document a line: a document with ``action_name`` is an event, one with
    ``user_query`` or ``query_response_id`` (and no ``action_name``) a query;
  - a JSON array of such documents, or of search hits ``{"_index": ..., "_source": {...}}``.

  Field paths (UBI 1.x schema, o19s/ubi ``event.schema.json``; OpenSearch's own readers):

  ======================  ======================================================================
  ubi_events              read from
  ======================  ======================================================================
  action                  ``action_name`` (required, kept exactly as given)
  timestamp               ``timestamp`` (required): ISO 8601 text, or a number of epoch ms
  query_id                ``query_id`` (the id of one search request; optional)
  session_id              ``session_id``, else ``event_attributes.session_id`` (older
                          generators put it there), else ``client_id``; one is required
  client_id               ``client_id`` (optional)
  query                   ``user_query``, else the text of the ``ubi_queries`` documents
                          with the same ``query_id`` if they agree on one (optional)
  doc_id                  ``event_attributes.object.object_id`` (text or integer; optional)
  position                ``event_attributes.position.ordinal`` (whole number; optional)
  ======================  ======================================================================

  ``ubi_queries`` documents give ``query_id`` (required), ``client_id``, ``user_query`` (as
  ``query``) and ``timestamp`` (optional there).

* **Tables** (CSV/TSV with a header row, Parquet): columns ``session_id``, ``action``,
  ``doc_id`` and ``query`` or ``query_id`` (or both) are required; ``position``,
  ``timestamp`` and ``client_id`` are optional.  Empty cells are missing values.

Positions and ranks: UBI's ``ordinal`` is 0-based in OpenSearch's generator and in the shipped
ESCI sample, while a table's ``position`` is read like a TREC rank (1 = top).  ``position``
keeps the logged value; ``rank`` is always 1-based: ``rank = position - first_position + 1``,
where ``first_position`` defaults to 0 for UBI and 1 for tables (pass it to override).  A
position below ``first_position`` is an error.

An **impression** (action :data:`metrics.engagement.IMPRESSION`) needs a ``query_id`` or
``query``, a ``doc_id`` and a ``position``; every other action is kept as an event with what
it has.  Any malformed line — bad JSON, a missing required field, a position that is not a
whole number, an unknown index, an id (query, doc, session, client) longer than
:data:`~judge_app.io.ids.MAX_ID_BYTES` bytes — raises :class:`~judge_app.errors.InputError`
naming the file and line: the whole file is checked before anything is returned, so nothing
is half-read.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import InputError
from judge_app.io.compression import open_decompressed, plain_name
from judge_app.io.files import check_text, read_bytes, read_table, require_columns
from judge_app.io.formats import CLICK_FORMATS
from judge_app.io.ids import check_id_lengths
from judge_app.io.nul import nul_error, nul_line, refuse_nul_bytes
from metrics.engagement import IMPRESSION

QUERIES_INDEX = "ubi_queries"
EVENTS_INDEX = "ubi_events"
_INDEXES = (QUERIES_INDEX, EVENTS_INDEX)
_BULK_ACTIONS = ("index", "create")
UBI_FIRST_POSITION = 0
"""UBI's first ``event_attributes.position.ordinal`` (0-based: OpenSearch's generator and the
shipped ESCI sample), the default ``first_position`` of a UBI file."""
FORMATS = CLICK_FORMATS

QUERY_COLUMNS = ("line", "query_id", "client_id", "query", "timestamp")
EVENT_COLUMNS = ("line", "action", "session_id", "client_id", "query_id", "query", "doc_id",
                 "position", "rank", "timestamp")


@dataclass(frozen=True)
class ClickLog:
    """A click log, normalised.  Every frame carries ``line``: the 1-based line of the file
    the row came from (the document's line in bulk files; the row number for Parquet).

    * ``queries`` (UBI ``ubi_queries`` documents; empty for tables):
      line, query_id, client_id, query, timestamp.
    * ``impressions`` (action ``impression``) and ``events`` (every other action):
      line, action, session_id, client_id, query_id, query, doc_id, position, rank,
      timestamp.  Ids and text are strings (missing: NA), position and rank ``Int64``
      (rank 1-based), timestamp UTC datetimes (NaT when a table has none).
    """

    source: str
    queries: pd.DataFrame
    impressions: pd.DataFrame
    events: pd.DataFrame

    def action_counts(self) -> pd.Series:
        """How many events of each action the log holds, impressions included (by name)."""
        actions = pd.concat([self.impressions["action"], self.events["action"]])
        return actions.value_counts().sort_index().astype("int64")

    def sessions(self) -> int:
        """The number of distinct sessions."""
        ids = pd.concat([self.impressions["session_id"], self.events["session_id"]])
        return int(ids.nunique())


# ---------------------------------------------------------------- reading


def format_of(path: Path, fmt: str | None) -> str:
    """``ubi`` for .ndjson/.jsonl/.json, else the table format of the suffix (or ``fmt``); a
    compressed file (``log.csv.gz``, ``events.ndjson.zst``) by the suffix inside."""
    if fmt is not None:
        if fmt not in FORMATS:
            raise InputError(str(path), f"unknown click-log format {fmt!r}; use one of "
                             f"{', '.join(FORMATS)}")
        return fmt
    suffix = plain_name(path).suffix.lower().lstrip(".")
    guessed = {"ndjson": "ubi", "jsonl": "ubi", "json": "ubi", "csv": "csv", "tsv": "tsv",
               "tab": "tsv", "parquet": "parquet", "pq": "parquet"}.get(suffix)
    if guessed is None:
        raise InputError(str(path), f"cannot tell the click-log format from "
                         f"{plain_name(path).suffix or path.name!r}; "
                         f"pass --format ({', '.join(FORMATS)})")
    return guessed


def read_clicks(path: str | Path, fmt: str | None = None, first_position: int | None = None
                ) -> ClickLog:
    """Read a UBI or table click log (see the module doc for formats, fields and errors)."""
    path = Path(path)
    kind = format_of(path, fmt)
    if kind == "ubi":
        return _read_ubi(path, UBI_FIRST_POSITION if first_position is None else first_position)
    return _read_table_log(path, kind, 1 if first_position is None else first_position)


def _row_of(document: object, index: str | None, source: str, line: int,
            first_position: int) -> tuple[bool, dict[str, object]]:
    """(whether it is a query, its row) of one UBI document; its index (``ubi_queries`` or
    ``ubi_events``) from a bulk action line, else from its fields."""
    if not isinstance(document, dict):
        raise InputError(source, f"expected a JSON object, found {type(document).__name__}",
                         line=line)
    if index is None:
        index = _kind_of(document, source, line)
    if index == QUERIES_INDEX:
        return True, _query_row(document, source, line)
    return False, _event_row(document, source, line, first_position)


def _read_ubi(path: Path, first_position: int) -> ClickLog:
    source = str(path)
    data = check_text(read_bytes(path), source)
    refuse_nul_bytes(data, source, json_text=True)
    text = data.decode("utf-8")
    queries: list[dict[str, object]] = []
    events: list[dict[str, object]] = []
    for line, index, document in _documents(text, source):
        is_query, row = _row_of(document, index, source, line, first_position)
        (queries if is_query else events).append(row)
    if not queries and not events:
        raise InputError(source, "the file holds no ubi_queries or ubi_events documents")
    query_frame = _frame(queries, QUERY_COLUMNS)
    query_frame["timestamp"] = _timestamps(query_frame, source)
    event_frame = _frame(events, EVENT_COLUMNS)
    event_frame["timestamp"] = _timestamps(event_frame, source)
    _fill_query_text(event_frame, query_frame)
    _check_impressions(event_frame, source)
    return _split(source, query_frame, event_frame, UBI_ID_FIELDS)


STREAM_CHUNK = 200_000
"""Documents per chunk of :func:`ubi_chunks`."""


@dataclass(frozen=True)
class UbiChunk:
    """One chunk of a UBI NDJSON file read as a stream: its ``queries`` (query_id, query,
    query_norm) and ``events`` (:data:`LAYOUT_COLUMNS`, impressions included, the query
    text only where the event carries it)."""

    queries: pd.DataFrame
    events: pd.DataFrame


def streams_as_ndjson(path: str | Path, fmt: str | None = None) -> bool:
    """Whether :func:`ubi_chunks` can read ``path``: a UBI file (by ``fmt`` or suffix)
    whose first non-blank byte does not open a JSON array."""
    path = Path(path)
    if format_of(path, fmt) != "ubi":
        return False
    try:
        with open_decompressed(path) as handle:
            head = handle.read(4096).lstrip(b"\xef\xbb\xbf \t\r\n")
    except (OSError, EOFError, ValueError) as error:  # e.g. a gzip stream cut short
        raise InputError(str(path), f"not a readable file ({error})") from None
    return not head.startswith(b"[")


def _numbered_lines(path: Path, source: str) -> Iterator[tuple[int, str]]:
    """The file's lines, decoded one at a time: a line that is not UTF-8 or holds a NUL is
    an InputError naming it; an empty file says so."""
    empty = True
    try:
        with open_decompressed(path) as handle:
            for number, raw in enumerate(handle, start=1):
                if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if nul_line(raw, json_text=True) is not None:
                    raise nul_error(source, number)
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise InputError(source, "not UTF-8 text", line=number) from None
                empty = empty and not text.strip()
                yield number, text
    except InputError:
        raise
    except (OSError, EOFError, ValueError) as error:
        raise InputError(source, f"not a readable file ({error})") from None
    if empty:
        raise InputError(source, "the file is empty")


def ubi_chunks(path: str | Path, first_position: int | None = None,
               chunk: int = STREAM_CHUNK) -> Iterator[UbiChunk]:
    """A UBI NDJSON file (bulk or plain, compressed or not) read line by line, ``chunk``
    documents at a time: never the whole file in memory.  Every document is checked as
    :func:`read_clicks` checks it (an InputError names the file and line; chunks before it
    were already yielded, so a caller writes nothing until the last one).  What needs the
    whole log — an event's text from its query_id's ``ubi_queries`` documents, a session's
    first day — is left to the caller (``sxs clicks convert`` does it in DuckDB)."""
    path = Path(path)
    source = str(path)
    start = UBI_FIRST_POSITION if first_position is None else first_position
    queries: list[dict[str, object]] = []
    events: list[dict[str, object]] = []
    seen = False
    for line, index, document in ubi_documents(path):
        is_query, row = _row_of(document, index, source, line, start)
        (queries if is_query else events).append(row)
        if len(queries) + len(events) >= chunk:
            seen = True
            yield _chunk_of(queries, events, source)
            queries, events = [], []
    if queries or events:
        yield _chunk_of(queries, events, source)
    elif not seen:
        raise InputError(source, "the file holds no ubi_queries or ubi_events documents")


def ubi_documents(path: str | Path) -> Iterator[tuple[int, str | None, object]]:
    """(line, index named by its bulk action line or None, document) of a UBI NDJSON file
    (bulk or plain, compressed or not), streamed line by line, with the InputErrors of
    :func:`read_clicks` (two bulk action lines in a row, one with no document after it, an
    unknown ``_index``, a line that is not JSON); documents themselves are not checked."""
    source = str(path)
    return _ndjson_documents(_numbered_lines(Path(path), source), source)


def _chunk_of(queries: list[dict[str, object]], events: list[dict[str, object]],
              source: str) -> UbiChunk:
    query_frame = _frame(queries, QUERY_COLUMNS)
    query_frame["timestamp"] = _timestamps(query_frame, source)
    event_frame = _frame(events, EVENT_COLUMNS)
    event_frame["timestamp"] = _timestamps(event_frame, source)
    _check_impressions(event_frame, source)
    _check_id_lengths(query_frame, source, {"query_id": "query_id", "client_id": "client_id"})
    _check_id_lengths(event_frame, source, UBI_ID_FIELDS)
    event_frame["query_norm"] = _norms(event_frame["query"])
    query_frame["query_norm"] = _norms(query_frame["query"])
    return UbiChunk(query_frame[["query_id", "query", "query_norm"]],
                    event_frame[list(LAYOUT_COLUMNS)])


def _norms(text: pd.Series) -> pd.Series:
    """:func:`normalise_query` of each text, NA for none or an empty result."""
    norm = text.astype("string").fillna("").map(normalise_query).astype("string")
    return norm.mask(norm == "")


def _documents(text: str, source: str) -> Iterator[tuple[int, str | None, object]]:
    """(line, index or None, document) for a JSON array or (bulk) NDJSON text."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        yield from _array_documents(text, source)
        return
    yield from _ndjson_documents(enumerate(text.splitlines(), start=1), source)


def _ndjson_documents(lines: Iterable[tuple[int, str]], source: str
                      ) -> Iterator[tuple[int, str | None, object]]:
    """(line, index or None, document) for numbered (bulk) NDJSON lines."""
    pending: tuple[int, str | None] | None = None
    for number, raw in lines:
        if not raw.strip():
            continue
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as error:
            raise InputError(source, f"not valid JSON ({error.msg} at column {error.colno})",
                             line=number) from None
        action = _bulk_action(value)
        if action is not None:
            if pending is not None:
                raise InputError(source, "two bulk action lines in a row (a document is "
                                 "missing)", line=number)
            pending = (number, _index_of(action, source, number))
            continue
        index = None
        if pending is not None:
            index = pending[1]
            pending = None
        yield number, index, value
    if pending is not None:
        raise InputError(source, "a bulk action line with no document after it",
                         line=pending[0])


def _array_documents(text: str, source: str) -> Iterator[tuple[int, str | None, object]]:
    decoder = json.JSONDecoder()
    position = text.index("[") + 1
    length = len(text)

    def skip(at: int) -> int:
        while at < length and text[at] in " \t\r\n":
            at += 1
        return at

    def line_at(at: int) -> int:
        return text.count("\n", 0, at) + 1

    position = skip(position)
    if position < length and text[position] == "]":
        return
    while True:
        try:
            value, end = decoder.raw_decode(text, position)
        except json.JSONDecodeError as error:
            raise InputError(source, f"not valid JSON ({error.msg} at column {error.colno})",
                             line=error.lineno) from None
        line = line_at(position)
        if isinstance(value, dict) and isinstance(value.get("_source"), dict):
            index = value.get("_index")
            if index is not None:
                index = _known_index(index, source, line)
            yield line, index, value["_source"]
        else:
            yield line, None, value
        position = skip(end)
        if position < length and text[position] == ",":
            position = skip(position + 1)
            continue
        if position < length and text[position] == "]":
            if skip(position + 1) != length:
                raise InputError(source, "text after the end of the JSON array",
                                 line=line_at(skip(position + 1)))
            return
        raise InputError(source, "expected ',' or ']' in the JSON array",
                         line=line_at(min(position, length - 1)))


def _bulk_action(value: object) -> dict[str, object] | None:
    """The body of a bulk action line (``{"index": {...}}``), or None for a document."""
    if isinstance(value, dict) and len(value) == 1:
        (key, body), = value.items()
        if key in _BULK_ACTIONS and isinstance(body, dict):
            return body
    return None


def _index_of(action: dict[str, object], source: str, line: int) -> str | None:
    index = action.get("_index")
    return None if index is None else _known_index(index, source, line)


def _known_index(index: object, source: str, line: int) -> str:
    if index not in _INDEXES:
        raise InputError(source, f"unknown index {index!r} (expected {' or '.join(_INDEXES)})",
                         line=line, field="_index")
    return str(index)


def _kind_of(document: dict[str, object], source: str, line: int) -> str:
    if "action_name" in document:
        return EVENTS_INDEX
    if "user_query" in document or "query_response_id" in document:
        return QUERIES_INDEX
    raise InputError(source, "cannot tell whether this is a ubi_queries or a ubi_events "
                     "document (no action_name, user_query or query_response_id)", line=line)


def _text(value: object, source: str, line: int, field: str) -> str | None:
    """An id or text field: a string or an integer, as text; empty or null is missing."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise InputError(source, f"expected text, found {json.dumps(value)[:60]}", line=line,
                         field=field)
    text = str(value)
    return text if text.strip() else None


def _required_text(document: dict[str, object], key: str, source: str, line: int) -> str:
    value = _text(document.get(key), source, line, key)
    if value is None:
        raise InputError(source, "missing required field", line=line, field=key)
    return value


def _query_row(document: dict[str, object], source: str, line: int) -> dict[str, object]:
    return {"line": line,
            "query_id": _required_text(document, "query_id", source, line),
            "client_id": _text(document.get("client_id"), source, line, "client_id"),
            "query": _text(document.get("user_query"), source, line, "user_query"),
            "timestamp": _raw_timestamp(document.get("timestamp"), source, line)}


def _raw_timestamp(value: object, source: str, line: int) -> object:
    if value is None or (isinstance(value, str | int | float) and not isinstance(value, bool)):
        return value
    raise InputError(source, f"timestamp {json.dumps(value)[:60]} is neither ISO 8601 text "
                     "nor a number of epoch milliseconds", line=line, field="timestamp")


def _mapping(value: object, source: str, line: int, field: str) -> dict[str, object]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InputError(source, f"expected an object, found {json.dumps(value)[:60]}",
                         line=line, field=field)
    return value


def _whole_number(value: object, source: str, line: int, field: str) -> int | None:
    if value is None:
        return None
    number: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        number = value
    elif (isinstance(value, float) and value.is_integer()) or (
            isinstance(value, str) and value.strip().lstrip("-").isdigit()):
        number = int(value)
    if number is None or abs(number) > 2**53:
        raise InputError(source, f"position {json.dumps(value)[:60]} is not a whole number "
                         "(within 2**53)", line=line, field=field)
    return number


def _event_row(document: dict[str, object], source: str, line: int, first_position: int
               ) -> dict[str, object]:
    action = _required_text(document, "action_name", source, line)
    if document.get("timestamp") is None:
        raise InputError(source, "missing required field", line=line, field="timestamp")
    attributes = _mapping(document.get("event_attributes"), source, line, "event_attributes")
    target = _mapping(attributes.get("object"), source, line, "event_attributes.object")
    where = _mapping(attributes.get("position"), source, line, "event_attributes.position")
    client = _text(document.get("client_id"), source, line, "client_id")
    session = (_text(document.get("session_id"), source, line, "session_id")
               or _text(attributes.get("session_id"), source, line,
                        "event_attributes.session_id")
               or client)
    if session is None:
        raise InputError(source, "missing required field (nor event_attributes.session_id, "
                         "nor client_id)", line=line, field="session_id")
    position = _whole_number(where.get("ordinal"), source, line,
                             "event_attributes.position.ordinal")
    return {"line": line, "action": action, "session_id": session, "client_id": client,
            "query_id": _text(document.get("query_id"), source, line, "query_id"),
            "query": _text(document.get("user_query"), source, line, "user_query"),
            "doc_id": _text(target.get("object_id"), source, line,
                            "event_attributes.object.object_id"),
            "position": position,
            "rank": _rank(position, first_position, source, line,
                          "event_attributes.position.ordinal"),
            "timestamp": _raw_timestamp(document.get("timestamp"), source, line)}


def _rank(position: int | None, first_position: int, source: str, line: int, field: str
          ) -> int | None:
    if position is None:
        return None
    if position < first_position:
        raise InputError(source, f"position {position} is before the first position "
                         f"({first_position})", line=line, field=field)
    return position - first_position + 1


def _frame(rows: list[dict[str, object]], columns: tuple[str, ...]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(columns))
    for column in columns:
        if column == "line":
            frame[column] = frame[column].astype(np.int64)
        elif column in ("position", "rank"):
            frame[column] = frame[column].astype("Int64")
        elif column != "timestamp":
            frame[column] = frame[column].astype("string")
    return frame


LATEST_MS = 9.2e12  # epoch milliseconds up to the year 2261 (nanosecond datetimes' range)


def _timestamps(frame: pd.DataFrame, source: str) -> pd.Series:
    """UTC datetimes from ISO 8601 text or epoch milliseconds; InputError naming the line."""
    raw = frame["timestamp"]
    result = pd.Series(pd.NaT, index=frame.index, dtype="datetime64[us, UTC]")
    if raw.empty:
        return result
    # a document without a timestamp is None, or NaN once pandas made the column numbers
    is_number = raw.map(lambda v: isinstance(v, int | float) and not isinstance(v, bool)
                        and v == v)
    is_text = raw.map(lambda v: isinstance(v, str))
    if is_number.any():
        numbers = pd.to_numeric(raw[is_number], errors="coerce").astype(float)
        numbers = numbers.where(numbers.abs() < LATEST_MS)
        result[is_number] = pd.to_datetime(numbers, unit="ms", utc=True,
                                           errors="coerce").dt.as_unit("us")
    if is_text.any():
        result[is_text] = pd.to_datetime(raw[is_text].astype(str), utc=True, format="ISO8601",
                                         errors="coerce").dt.as_unit("us")
    bad = (is_number | is_text) & result.isna()
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(source, f"timestamp {raw.iloc[row]!r} is neither ISO 8601 text nor "
                         "a number of epoch milliseconds", line=int(frame["line"].iloc[row]),
                         field="timestamp")
    return result


def _fill_query_text(events: pd.DataFrame, queries: pd.DataFrame) -> None:
    """Events without ``user_query`` take the text of their query_id's ubi_queries documents
    when those agree on one text; a query_id logged with several texts (type-ahead
    generators reuse ids) gives no text rather than a guess."""
    known = queries.dropna(subset=["query_id", "query"])
    if known.empty:
        return
    texts = known.groupby("query_id", sort=False)["query"].agg(["nunique", "first"])
    text_of = texts.loc[texts["nunique"] == 1, "first"]
    missing = events["query"].isna() & events["query_id"].notna()
    if missing.any():
        events.loc[missing, "query"] = events.loc[missing, "query_id"].map(text_of).astype(
            "string")


def _check_impressions(events: pd.DataFrame, source: str) -> None:
    shown = (events["action"] == IMPRESSION).to_numpy()
    checks = (("doc_id", events["doc_id"].isna(), "event_attributes.object.object_id"),
              ("position", events["position"].isna(), "event_attributes.position.ordinal"),
              ("query", events["query_id"].isna() & events["query"].isna(), "query_id"))
    for column, missing, field in checks:
        bad = shown & missing.to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            what = {"doc_id": "the document", "position": "the position",
                    "query": "the query (query_id or user_query)"}[column]
            raise InputError(source, f"an impression without {what}",
                             line=int(events["line"].iloc[row]), field=field)


UBI_ID_FIELDS = {"query_id": "query_id", "doc_id": "event_attributes.object.object_id",
                 "session_id": "session_id", "client_id": "client_id"}
"""The ids a click log stores, and the UBI field each is read from (a table's column has
the id's name)."""


def _check_id_lengths(frame: pd.DataFrame, source: str, fields: dict[str, str]) -> None:
    """InputError naming the first line whose id (of :data:`UBI_ID_FIELDS`) is longer than
    an id holds (:data:`~judge_app.io.ids.MAX_ID_BYTES`), as every other importer refuses."""
    for column, field_name in fields.items():
        if column in frame.columns:
            check_id_lengths(frame[column].fillna("").astype(str), frame["line"], source,
                             field_name)


def _split(source: str, queries: pd.DataFrame, events: pd.DataFrame,
           fields: dict[str, str] | None = None) -> ClickLog:
    fields = fields or {column: column for column in UBI_ID_FIELDS}
    _check_id_lengths(queries, source, {"query_id": "query_id", "client_id": "client_id"})
    _check_id_lengths(events, source, fields)
    shown = (events["action"] == IMPRESSION).to_numpy()
    return ClickLog(source, queries.reset_index(drop=True),
                    events[shown].reset_index(drop=True), events[~shown].reset_index(drop=True))


def _read_table_log(path: Path, kind: str, first_position: int) -> ClickLog:
    source = str(path)
    table = read_table(path, kind)
    require_columns(table, ["session_id", "action", "doc_id"], source, kind)
    if "query" not in table.columns and "query_id" not in table.columns:
        raise InputError(source, "missing column query or query_id (the file has "
                         f"{', '.join(c for c in table.columns if c != 'line')})", line=1)
    lines = table["line"].to_numpy(dtype=np.int64)

    def cells(column: str) -> pd.Series:
        if column not in table.columns:
            return pd.Series(pd.NA, index=table.index, dtype="string")
        values = table[column].astype("string").str.strip()
        return values.mask(values == "")

    for column in ("session_id", "action"):
        missing = cells(column).isna().to_numpy()
        if missing.any():
            row = int(missing.argmax())
            raise InputError(source, "missing required field", line=int(lines[row]),
                             field=column)
    positions = cells("position")
    numeric = pd.to_numeric(positions, errors="coerce")
    bad = positions.notna() & (numeric.isna() | (numeric != numeric.round())
                               | (numeric.abs() > 2**53))  # beyond 2**53 floats lose units
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(source, f"position {positions.iloc[row]!r} is not a whole number",
                         line=int(lines[row]), field="position")
    position = numeric.astype("Int64")
    early = (position < first_position).fillna(False).to_numpy(dtype=bool)
    if early.any():
        row = int(early.argmax())
        raise InputError(source, f"position {position.iloc[row]} is before the first position "
                         f"({first_position})", line=int(lines[row]), field="position")
    events = pd.DataFrame({
        "line": lines, "action": cells("action"), "session_id": cells("session_id"),
        "client_id": cells("client_id"), "query_id": cells("query_id"), "query": cells("query"),
        "doc_id": cells("doc_id"), "position": position,
        "rank": position - first_position + 1})
    stamps = cells("timestamp")
    as_number = pd.to_numeric(stamps, errors="coerce")
    raw = stamps.astype(object).where(as_number.isna(), as_number.astype(object))
    events["timestamp"] = _timestamps(pd.DataFrame({"timestamp": raw.where(stamps.notna(), None),
                                                    "line": lines}), source)
    _check_table_impressions(events, source)
    return _split(source, _frame([], QUERY_COLUMNS).assign(
        timestamp=pd.Series([], dtype="datetime64[us, UTC]")), events)


def _check_table_impressions(events: pd.DataFrame, source: str) -> None:
    shown = (events["action"] == IMPRESSION).to_numpy()
    checks = (("doc_id", events["doc_id"].isna()), ("position", events["position"].isna()),
              ("query", events["query_id"].isna() & events["query"].isna()))
    for field, missing in checks:
        bad = shown & missing.to_numpy()
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise InputError(source, "an impression needs a value here",
                             line=int(events["line"].iloc[row]), field=field)


# ---------------------------------------------------------------- matching queries


def normalise_query(text: str) -> str:
    """The matching form of a query text: Unicode NFKC, case-folded, blanks collapsed.

    ``NFKC(casefold(NFKC(text)))`` with every run of Unicode whitespace made one space and the
    ends trimmed: ``"  Red\u00a0SHOES "`` and ``"red shoes"`` match, as do full-width and
    ligature forms (full-width ``"\uff52\uff45\uff44"`` -> ``"red"``; ``"\ufb01"`` -> ``"fi"``).
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    return " ".join(folded.split())


@dataclass(frozen=True)
class MatchReport:
    """How a log's queries matched a dataset's.

    A *log query* is a distinct normalised query text (or, for a row without text whose
    ``query_id`` is a dataset query id, that id).  It is matched ``by_id`` when any of its
    rows has a ``query_id`` that is a dataset query id, else ``by_text`` when its text
    equals exactly one dataset query's normalised text; ``ambiguous`` when it equals
    several (left unmatched), else
    ``unmatched``.  Rows with neither text nor a dataset query id (UBI events such as
    ``page_exit`` often carry only a search's ``query_id``) are counted apart, as
    ``rows_without_query``.  A session is matched when at least one of its rows is.
    """

    log_queries: int
    matched_by_id: int
    matched_by_text: int
    ambiguous: int
    unmatched: int
    sessions: int
    sessions_matched: int
    rows: int
    rows_matched: int
    rows_without_query: int
    unmatched_queries: pd.DataFrame  # query, rows, sessions, reason — most rows first

    @property
    def sessions_unmatched(self) -> int:
        return self.sessions - self.sessions_matched

    def to_dict(self) -> dict[str, int]:
        return {"log_queries": self.log_queries, "matched_by_id": self.matched_by_id,
                "matched_by_text": self.matched_by_text, "ambiguous": self.ambiguous,
                "unmatched": self.unmatched, "sessions": self.sessions,
                "sessions_matched": self.sessions_matched,
                "sessions_unmatched": self.sessions_unmatched, "rows": self.rows,
                "rows_matched": self.rows_matched,
                "rows_without_query": self.rows_without_query}

    def __str__(self) -> str:
        return (f"{self.log_queries} log queries: {self.matched_by_id} matched by id, "
                f"{self.matched_by_text} by text, {self.ambiguous} ambiguous, "
                f"{self.unmatched} unmatched; sessions: {self.sessions_matched} of "
                f"{self.sessions} matched ({self.sessions_unmatched} unmatched); "
                f"{self.rows_without_query} of {self.rows} events name no query text and "
                "no dataset query id")


@dataclass(frozen=True)
class QueryMatch:
    """A click log restricted to the rows whose query matched the dataset.

    ``impressions`` and ``events`` have the :class:`ClickLog` columns, with ``query_id`` now
    the *dataset's* query id, the logged one kept as ``log_query_id``, and ``matched_by``
    (``"id"`` or ``"text"``).
    """

    impressions: pd.DataFrame
    events: pd.DataFrame
    report: MatchReport


@dataclass(frozen=True)
class QueryKeys:
    """What a log row can match in a dataset: its query ``ids`` (text), ``texts`` (norm,
    query_id) for each normalised text exactly one dataset query has, and the
    ``ambiguous`` texts several queries share (matching none)."""

    ids: pd.Series
    texts: pd.DataFrame
    ambiguous: set[str]


def dataset_query_keys(dataset_queries: pd.DataFrame) -> QueryKeys:
    """The :class:`QueryKeys` of a dataset's queries (``query_id``, ``text``)."""
    for column in ("query_id", "text"):
        if column not in dataset_queries.columns:
            raise ValueError(f"dataset queries need a {column} column")
    ids = dataset_queries["query_id"].astype("string")
    normalised = dataset_queries["text"].astype("string").fillna("").map(normalise_query)
    by_text = pd.DataFrame({"norm": normalised, "query_id": ids})
    by_text = by_text[by_text["norm"] != ""]
    counts = by_text["norm"].value_counts()
    unique = by_text[by_text["norm"].map(counts) == 1].reset_index(drop=True)
    return QueryKeys(ids.dropna().reset_index(drop=True), unique,
                     set(counts[counts > 1].index))


LAYOUT_COLUMNS = ("action", "session_id", "client_id", "query_id", "query", "query_norm",
                  "doc_id", "position", "rank", "timestamp")
"""The columns of a log converted for the engines (``sxs clicks convert``)."""


def layout_frame(log: ClickLog) -> pd.DataFrame:
    """Impressions and events of ``log`` as one frame of :data:`LAYOUT_COLUMNS`, in line
    order; ``query_norm`` is :func:`normalise_query` of the text (NA when there is none)."""
    rows = pd.concat([log.impressions, log.events], ignore_index=True).sort_values(
        "line", kind="stable", ignore_index=True)
    rows["query_norm"] = _norms(rows["query"])
    return rows[list(LAYOUT_COLUMNS)]


def match_queries(log: ClickLog, dataset_queries: pd.DataFrame) -> QueryMatch:
    """Match every impression and event to a dataset query: by id, else by normalised text.

    ``dataset_queries`` has ``query_id`` and ``text``; ids are compared as text.  See
    :class:`MatchReport` for what counts as matched; unmatched rows are dropped from the
    returned frames and listed in the report.
    """
    keys = dataset_query_keys(dataset_queries)
    known_ids = set(keys.ids)
    unique_texts = keys.texts.set_index("norm")["query_id"]
    ambiguous_texts = keys.ambiguous

    frames = {"impressions": log.impressions, "events": log.events}
    everything = pd.concat([f.assign(_part=name) for name, f in frames.items()],
                           ignore_index=True)
    log_ids = everything["query_id"]
    norm = everything["query"].fillna("").map(normalise_query).astype("string")
    key = norm.mask(norm == "", "id " + log_ids.fillna(""))
    id_hit = log_ids.isin(known_ids).fillna(False).to_numpy(dtype=bool)
    text_target = norm.map(unique_texts)
    text_hit = ~id_hit & text_target.notna().to_numpy()
    target = pd.Series(pd.NA, index=everything.index, dtype="string")
    target[id_hit] = log_ids[id_hit]
    target[text_hit] = text_target[text_hit].astype("string")
    how = np.where(id_hit, "id", np.where(text_hit, "text", ""))
    ambiguous_row = ~id_hit & ~text_hit & norm.isin(ambiguous_texts).to_numpy()

    textless = (norm == "").to_numpy() & ~id_hit
    status = pd.DataFrame({"key": key, "rank": np.where(id_hit, 0, np.where(
        text_hit, 1, np.where(ambiguous_row, 2, 3))), "session_id": everything["session_id"],
        "query": everything["query"]})[~textless]
    best = status.groupby("key", sort=False)["rank"].min()
    matched_rows = target.notna().to_numpy()
    sessions_all = everything["session_id"].nunique()
    sessions_matched = everything.loc[matched_rows, "session_id"].nunique()
    left = status[best.reindex(status["key"]).to_numpy() >= 2]
    unmatched = (left.groupby("key", sort=False)
                 .agg(query=("query", "first"), rows=("rank", "size"),
                      sessions=("session_id", "nunique"), status=("rank", "min"))
                 .reset_index(drop=True))
    unmatched["reason"] = np.where(unmatched.pop("status") == 2, "ambiguous", "unmatched")
    unmatched = unmatched.sort_values(["rows", "query"], ascending=[False, True],
                                      ignore_index=True)
    report = MatchReport(
        log_queries=len(best), matched_by_id=int((best == 0).sum()),
        matched_by_text=int((best == 1).sum()), ambiguous=int((best == 2).sum()),
        unmatched=int((best == 3).sum()), sessions=int(sessions_all),
        sessions_matched=int(sessions_matched), rows=len(everything),
        rows_matched=int(matched_rows.sum()), rows_without_query=int(textless.sum()),
        unmatched_queries=unmatched)

    matched = everything.assign(log_query_id=everything["query_id"], query_id=target,
                                matched_by=how)[matched_rows]
    parts = {name: matched[matched["_part"] == name].drop(columns="_part")
             .reset_index(drop=True) for name in frames}
    return QueryMatch(parts["impressions"], parts["events"], report)


# ---------------------------------------------------------------- the logged ranking


def logged_run(impressions: pd.DataFrame) -> pd.DataFrame:
    """The ranking users saw, per query, as a run frame: query_id, doc_id, rank.

    Impressions of every session and search are pooled per (query_id, doc_id).  Docs are
    ordered by their **mean logged rank** (1-based), ties broken by more impressions first,
    then by doc id (ascending, as text); ``rank`` is then 1, 2, 3, ... within the query.
    So a doc always shown at 1 comes before one shown at 1 and 3 (mean 2), which comes
    before one shown once at 2 (mean 2, fewer impressions).  The frame also carries
    ``impressions`` and ``mean_rank`` for inspection; a store needs only the first three.
    """
    for column in ("query_id", "doc_id", "rank"):
        if column not in impressions.columns:
            raise ValueError(f"impressions need a {column} column")
    if impressions["rank"].isna().any():
        raise ValueError("every impression needs a rank")
    pooled = (impressions.assign(rank=impressions["rank"].astype("float64"))
              .groupby(["query_id", "doc_id"], sort=False, observed=True)["rank"]
              .agg(mean_rank="mean", impressions="size").reset_index())
    pooled["_doc"] = pooled["doc_id"].astype(str)
    pooled = pooled.sort_values(["query_id", "mean_rank", "impressions", "_doc"],
                                ascending=[True, True, False, True], ignore_index=True)
    pooled["rank"] = pooled.groupby("query_id", sort=False).cumcount() + 1
    return pooled[["query_id", "doc_id", "rank", "impressions", "mean_rank"]]
