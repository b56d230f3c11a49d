"""UBI NDJSON click logs read in place: which files a ``--from`` names, and the check every
document passes before an engine reads them (:data:`judge_app.store.click_plan.DUCKDB_NDJSON`,
:data:`~judge_app.store.click_plan.SPARK_NDJSON`).

**Files** (:func:`ndjson_files`): ``--from`` is a UBI NDJSON file (``.ndjson``, ``.jsonl``,
``.json``, compressed ``.gz`` or ``.zst`` too), a glob of them
(``'logs/dt=2026-11-*/*.ndjson.gz'``) or a folder holding them at any depth (hive partitions
such as ``logs/dt=2026-11-01/part-0.ndjson.gz``; :func:`visible_files`: nothing under a
``.``- or ``_``-named folder) and no Parquet file; a folder or glob of
Parquet files is a converted log (:mod:`judge_app.store.click_files`).

**The check** (:func:`check_ndjson`): one DuckDB pass over every file, within the engine's
memory limit, spilling to its temporary directory, tests each line as
:func:`judge_app.io.clicks.read_clicks` does — a JSON object; a bulk action line
(``{"index": {"_index": …}}`` or ``"create"``) names ``ubi_queries`` or ``ubi_events`` or no
index; a document is an event (``action_name``) or a query (``user_query`` or
``query_response_id``); required fields (an event's ``action_name``, ``timestamp`` and
session — ``session_id``, ``event_attributes.session_id`` or ``client_id``; a query's
``query_id``); ids and texts are text or integers; ``event_attributes``, its ``object`` and
``position`` are objects; the ordinal a whole number (within 2**53, not below UBI's first
position 0); the timestamp ISO 8601 text (:data:`ISO_8601`, then DuckDB's cast) or epoch
milliseconds; an impression has a doc, an ordinal and a query; no id longer than
:data:`~judge_app.io.ids.MAX_ID_BYTES` bytes — and, each line paired with the line before it
in its file, that a bulk action line is followed by a document (not another action line, not
the end of the file) of the kind its ``_index`` names: the importer reads a document by its
``_index``, the in-place plan by its fields, so an event filed under ``ubi_queries`` is
refused (file, line, field ``_index``), never read differently. It returns per file the
events and documents, and leaves in DuckDB the table ``plan_query_norms`` of the log's
distinct query texts normalised by :func:`~judge_app.io.clicks.normalise_query` run as a
vectorised DuckDB function (:data:`NORMALISE`): no text goes through pandas. A file that
fails, or holds no document, is then read by :func:`judge_app.io.clicks.ubi_chunks`, whose
:class:`~judge_app.errors.InputError` names the file, line and field; when that reader
accepts what the check refused (a form only it reads, e.g. a timestamp DuckDB cannot parse),
one line names the file and the field and says to convert the log first (``sxs clicks
convert``). A file DuckDB cannot read at all (not JSON, not UTF-8) is reported the same way.
"""

from __future__ import annotations

import glob
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow as pa

from judge_app.errors import InputError, SxsError
from judge_app.io.clicks import (
    EVENTS_INDEX,
    LATEST_MS,
    QUERIES_INDEX,
    UBI_FIRST_POSITION,
    format_of,
    streams_as_ndjson,
    ubi_documents,
)
from judge_app.io.compression import compression_of
from judge_app.io.ids import MAX_ID_BYTES
from judge_app.store.click_plan import blank_pattern, ubi_json

_READABLE = (None, "gzip", "zstd")  # what DuckDB's read_json decompresses itself
ISO_8601 = (r"^[0-9]{4}-[0-9]{2}-[0-9]{2}"
            r"([T ]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\.[0-9]+)?)?"
            r"(Z|[+-][0-9]{2}(:?[0-9]{2})?)?)?$")
"""ISO 8601 text as the check accepts it: a date, optionally a time (hours and minutes,
seconds and a fraction optional) and a ``Z`` or ``±hh[[:]mm]`` offset — forms pandas'
``format="ISO8601"`` (the importer) reads alike; DuckDB's cast alone would also take
``infinity``, ``epoch``, zone names or hour 24, which the importer refuses.  A form outside
it that the importer reads (``20261101``, a leading space) stops with the pointer to
``sxs clicks convert``."""


def _is_ndjson_name(path: str | Path) -> bool:
    try:
        return format_of(Path(path), None) == "ubi"
    except InputError:
        return False


def visible_files(folder: str | Path) -> list[Path]:
    """The files at any depth below ``folder``, sorted, but none with a path component below
    it starting with ``.`` or ``_`` — hidden folders (``.ipynb_checkpoints/``) and the
    scratch of Spark/Hadoop writers (``_temporary/``, ``_SUCCESS``), which Hadoop and Spark
    skip too: read, they would count events twice."""
    root = Path(folder)
    return sorted(p for p in root.rglob("*") if p.is_file() and not any(
        part.startswith((".", "_")) for part in p.relative_to(root).parts))


def ndjson_files(source: str | Path) -> list[str] | None:
    """The UBI NDJSON files ``source`` names (see the module doc), sorted; None when it
    names Parquet (or nothing: the Parquet reader says so)."""
    text = str(source)
    if Path(text).is_dir():
        below = visible_files(text)
        if any(p.suffix == ".parquet" for p in below):
            return None
        found = sorted(str(p) for p in below if _is_ndjson_name(p))
    elif Path(text).is_file():
        found = [text] if _is_ndjson_name(text) else []
    else:
        found = sorted(name for name in glob.glob(text, recursive=True)
                       if Path(name).is_file() and _is_ndjson_name(name))
    if not found:
        return None
    for name in found:
        if compression_of(name) not in _READABLE:
            raise SxsError(f"{name}: {compression_of(name)} is not read in place (gzip or "
                           "zstd are); sxs clicks convert reads it")
        if not streams_as_ndjson(name):
            raise SxsError(f"{name}: a JSON array, not NDJSON: sxs clicks convert reads it")
    return found


@dataclass(frozen=True)
class NdjsonLog:
    """A checked UBI NDJSON log: its ``files`` and per file the ``events`` and ``documents``
    (bulk action lines left out).  The check left on its connection the table
    ``plan_query_norms`` (query, norm) of the plan: every distinct query text of the log
    with its :func:`~judge_app.io.clicks.normalise_query` (texts that normalise to nothing
    left out), computed in DuckDB — never in pandas (:func:`dataset_matches` hands an
    engine without that connection only the rows a dataset can match)."""

    files: list[str]
    events: dict[str, int]
    documents: dict[str, int]

    @property
    def rows(self) -> int:
        return sum(self.events.values())


_PATHS = {"action_name": "$.action_name", "timestamp": "$.timestamp", "query_id": "$.query_id",
          "user_query": "$.user_query", "query_response_id": "$.query_response_id",
          "session_id": "$.session_id", "client_id": "$.client_id",
          "event_attributes": "$.event_attributes",
          "event_attributes.session_id": "$.event_attributes.session_id",
          "event_attributes.object": "$.event_attributes.object",
          "event_attributes.object.object_id": "$.event_attributes.object.object_id",
          "event_attributes.position": "$.event_attributes.position",
          "event_attributes.position.ordinal": "$.event_attributes.position.ordinal"}


def _v(field: str) -> str:
    return f"v[{list(_PATHS).index(field) + 1}]"


def _absent(field: str) -> str:
    return f"({_v(field)} IS NULL OR json_type({_v(field)}) = 'NULL')"


def _texty(field: str) -> str:
    return f"({_absent(field)} OR json_type({_v(field)}) IN ('VARCHAR', 'BIGINT', 'UBIGINT'))"


def _object(field: str) -> str:
    return f"({_absent(field)} OR json_type({_v(field)}) = 'OBJECT')"


def _text(field: str) -> str:
    """The field's text, NULL when absent, null or blank (as io.clicks._text)."""
    value = f"json_extract_string({_v(field)}, '$')"
    return f"CASE WHEN regexp_matches({value}, $blank) THEN NULL ELSE {value} END"


def _too_long(expression: str) -> str:
    return f"COALESCE(strlen({expression}) > {MAX_ID_BYTES}, false)"


_SESSION = (f"COALESCE({_text('session_id')}, {_text('event_attributes.session_id')}, "
            f"{_text('client_id')})")
_ORDINAL = "event_attributes.position.ordinal"


def _timestamp_ok(field: str = "timestamp") -> str:
    value, kind = _v(field), f"json_type({_v(field)})"
    return f"""(CASE WHEN {kind} = 'VARCHAR'
                    THEN regexp_matches(json_extract_string({value}, '$'), $iso_8601)
                         AND TRY_CAST(json_extract_string({value}, '$') AS TIMESTAMPTZ)
                             IS NOT NULL
                WHEN {kind} IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                    THEN abs(CAST({value} AS DOUBLE)) < {LATEST_MS}
                ELSE false END)"""


def _ordinal_ok() -> str:
    value, kind = _v(_ORDINAL), f"json_type({_v(_ORDINAL)})"
    number = f"TRY_CAST(trim(json_extract_string({value}, '$')) AS DOUBLE)"
    return f"""({_absent(_ORDINAL)} OR (
        CASE WHEN {kind} IN ('BIGINT', 'UBIGINT') THEN true
             WHEN {kind} = 'DOUBLE' THEN {number} = floor({number})
             WHEN {kind} = 'VARCHAR'
                 THEN regexp_matches(json_extract_string({value}, '$'), '^ *-?[0-9]+ *$')
             ELSE false END
        AND abs({number}) <= 9007199254740992 AND {number} >= $first_position))"""


def _event_problem() -> str:
    """The first field of an event document that :func:`io.clicks._event_row` (or the
    impression and id checks) refuses, else NULL."""
    checks = [
        (f"NOT {_texty('action_name')} OR {_text('action_name')} IS NULL", "action_name"),
        (_absent("timestamp"), "timestamp"),
        (f"NOT {_object('event_attributes')}", "event_attributes"),
        (f"NOT {_object('event_attributes.object')}", "event_attributes.object"),
        (f"NOT {_object('event_attributes.position')}", "event_attributes.position"),
        *((f"NOT {_texty(f)}", f) for f in ("client_id", "session_id",
                                            "event_attributes.session_id")),
        (f"{_SESSION} IS NULL", "session_id"),
        (f"NOT {_ordinal_ok()}", _ORDINAL),
        *((f"NOT {_texty(f)}", f) for f in ("query_id", "user_query",
                                            "event_attributes.object.object_id")),
        (f"NOT {_timestamp_ok()}", "timestamp"),
        (f"{_text('action_name')} = $impression AND ({_text('event_attributes.object.object_id')}"
         f" IS NULL OR {_absent(_ORDINAL)} OR ({_text('query_id')} IS NULL AND "
         f"{_text('user_query')} IS NULL))", "impression"),
        (" OR ".join(_too_long(e) for e in (
            _text("query_id"), _text("event_attributes.object.object_id"), _SESSION,
            _text("client_id"))), "id length")]
    return "CASE " + " ".join(f"WHEN {test} THEN '{name}'" for test, name in checks) + " END"


def _query_problem() -> str:
    checks = [
        (f"NOT {_texty('query_id')} OR {_text('query_id')} IS NULL", "query_id"),
        *((f"NOT {_texty(f)}", f) for f in ("client_id", "user_query")),
        (f"NOT ({_absent('timestamp')} OR {_timestamp_ok()})", "timestamp"),
        (f"{_too_long(_text('query_id'))} OR {_too_long(_text('client_id'))}", "id length")]
    return "CASE " + " ".join(f"WHEN {test} THEN '{name}'" for test, name in checks) + " END"


TWO_ACTIONS = "two bulk action lines in a row"
MISFILED = "_index of the bulk action line before it"


def check_sql() -> str:
    """The check's one pass (see the module doc): per (file, query text) the documents,
    events, queries, bulk action lines, documents right after one (``filed``) and the
    first problem found.  Each line is paired with the line before it in its file by
    ``lag(…) OVER ()``: DuckDB runs that window as a streaming operator, on one thread,
    over ``read_json``'s rows in file order."""
    paths = ", ".join(f"'{p}'" for p in _PATHS.values())
    bulk = "COALESCE(json_extract(j, '$.index._index'), json_extract(j, '$.create._index'))"
    return f"""WITH lines AS (
        SELECT filename AS file, j, json_type(j) = 'OBJECT' AS is_object
        FROM {ubi_json(filename=True)}),
    shaped AS (
        SELECT file, j, is_object,
               is_object AND (json_type(j, '$.index') = 'OBJECT'
                              OR json_type(j, '$.create') = 'OBJECT')
                   AND len(json_keys(j)) = 1 AS is_bulk
        FROM lines),
    tagged AS (
        SELECT *, CASE WHEN is_bulk THEN COALESCE(json_extract_string({bulk}, '$'), '')
                  END AS tag
        FROM shaped),
    paired AS (
        SELECT *, CASE WHEN lag(file) OVER () = file THEN lag(tag) OVER () END AS after
        FROM tagged),
    documents AS (
        SELECT file, is_object, is_bulk, after,
               CASE WHEN is_bulk THEN {bulk} END AS bulk_index,
               CASE WHEN is_object AND NOT is_bulk THEN json_extract(j, [{paths}]) END AS v
        FROM paired),
    kinds AS (
        SELECT *, CASE WHEN NOT is_object OR is_bulk THEN NULL
                       WHEN {_v('action_name')} IS NOT NULL THEN 'e'
                       WHEN {_v('user_query')} IS NOT NULL
                            OR {_v('query_response_id')} IS NOT NULL THEN 'q' END AS kind
        FROM documents),
    judged AS (
        SELECT file, kind, is_bulk, after,
               CASE WHEN NOT is_object THEN 'document'
                    WHEN is_bulk AND after IS NOT NULL THEN '{TWO_ACTIONS}'
                    WHEN after IS NOT NULL AND after <> '' AND after <> CASE kind
                        WHEN 'e' THEN '{EVENTS_INDEX}' WHEN 'q' THEN '{QUERIES_INDEX}' END
                        THEN '{MISFILED}'
                    WHEN is_bulk THEN CASE WHEN bulk_index IS NULL
                                                OR json_type(bulk_index) = 'NULL'
                                                OR json_extract_string(bulk_index, '$') IN
                                                   ('{QUERIES_INDEX}', '{EVENTS_INDEX}')
                                             THEN NULL ELSE '_index' END
                    WHEN kind IS NULL THEN 'kind'
                    WHEN kind = 'e' THEN {_event_problem()}
                    ELSE {_query_problem()} END AS problem,
               CASE WHEN NOT is_bulk AND is_object THEN {_text('user_query')} END AS query
        FROM kinds)
    SELECT file, query, COUNT(*) FILTER (WHERE kind IS NOT NULL) AS documents,
           COUNT(*) FILTER (WHERE kind = 'e') AS events,
           COUNT(*) FILTER (WHERE kind = 'q') AS queries,
           COUNT(*) FILTER (WHERE is_bulk) AS bulk,
           COUNT(*) FILTER (WHERE NOT is_bulk AND after IS NOT NULL) AS filed,
           COUNT(problem) AS problems, MIN(problem) AS problem
    FROM judged GROUP BY file, query"""


def _exact_error(name: str) -> None:
    """Raise the InputError of the streamed reader on ``name``, if it finds one."""
    from judge_app.io.clicks import ubi_chunks

    for _ in ubi_chunks(name, UBI_FIRST_POSITION):
        pass


def _refuse(name: str, why: str) -> SxsError:
    _exact_error(name)
    return SxsError(f"{name}: {why}; sxs clicks convert {name} OUT/ reads it, then --from OUT/")


def _misfiled(name: str) -> SxsError:
    """The one line for a document whose fields say one kind filed under a bulk action
    line naming the other (the importer reads it as the ``_index`` says; the in-place
    plan by its fields, so it refuses): the file and the first such line."""
    line = next((number for number, index, document in ubi_documents(name)
                 if index is not None and isinstance(document, dict)
                 and index != (EVENTS_INDEX if "action_name" in document else QUERIES_INDEX)),
                None)
    where = f"{name}, line {line}" if line is not None else name
    return SxsError(f"{where}, field _index: the bulk action line's _index disagrees with "
                    "its document's fields (the importer reads the _index; in place the fields "
                    f"are read); sxs clicks convert {name} OUT/ reads it, then --from OUT/")


NORMALISE = "sxs_normalise_query"
"""The DuckDB function :func:`judge_app.io.clicks.normalise_query` (vectorised, over Arrow)."""


def _normalised(texts: pa.Array) -> pa.Array:
    from judge_app.io.clicks import normalise_query

    return pa.array([normalise_query(text) for text in texts.to_pylist()], type=pa.string())


def _with_normaliser(con: duckdb.DuckDBPyConnection) -> None:
    try:
        con.execute("SELECT function_name FROM duckdb_functions() WHERE function_name = $f",
                    {"f": NORMALISE})
        if con.fetchone() is None:
            con.create_function(NORMALISE, _normalised, ["VARCHAR"], "VARCHAR", type="arrow",
                                side_effects=False)
    except duckdb.NotImplementedException:  # created meanwhile
        pass


def dataset_matches(con: duckdb.DuckDBPyConnection, texts: pd.DataFrame) -> pd.DataFrame:
    """The rows (query, norm) of the check's ``plan_query_norms`` on ``con`` whose norm is
    one of ``texts["norm"]`` (a dataset's normalised query texts): all the plan needs of it
    (a text matching no dataset query joins nothing), bounded by the dataset, not the log."""
    con.register("ubi_dataset_norms", texts[["norm"]].astype(str))
    try:
        return con.execute("""SELECT query, norm FROM plan_query_norms
                              WHERE norm IN (SELECT norm FROM ubi_dataset_norms)
                              ORDER BY query""").df().astype({"query": str, "norm": str})
    finally:
        con.unregister("ubi_dataset_norms")


def check_ndjson(files: list[str], con: duckdb.DuckDBPyConnection,
                 progress: Callable[[str], None] | None = None) -> NdjsonLog:
    """The :class:`NdjsonLog` of ``files`` after the check of the module doc, run on
    ``con`` (its memory limit and temporary directory), which then holds the table
    ``plan_query_norms``."""
    from metrics.engagement import IMPRESSION

    if progress is not None:
        progress(f"checking {len(files):,} UBI NDJSON file(s) in place")
    try:
        con.execute(f"CREATE OR REPLACE TEMP TABLE ubi_check AS {check_sql()}",
                    {"log": files, "blank": blank_pattern(),
                     "first_position": UBI_FIRST_POSITION, "impression": IMPRESSION,
                     "iso_8601": ISO_8601})
        found = con.execute("""SELECT file, SUM(documents) AS documents, SUM(events) AS events,
                                      SUM(bulk) AS bulk, SUM(filed) AS filed,
                                      SUM(problems) AS problems, MIN(problem) AS problem
                               FROM ubi_check GROUP BY file""").df()
    except duckdb.Error as error:
        said = str(error).splitlines()[0]
        named = next((name for name in sorted(files, key=len, reverse=True) if name in said),
                     None)
        for name in [named] if named else files:
            _exact_error(name)
        raise SxsError(f"{named or files[0]}: not readable as UBI NDJSON ({said})") from None
    per_file = found.set_index("file")
    for name in files:
        if name not in per_file.index or int(per_file.loc[name, "documents"]) == 0:
            _exact_error(name)
            raise SxsError(f"{name}: the file holds no ubi_queries or ubi_events documents")
        row = per_file.loc[name]
        if int(row["problems"]) and row["problem"] == MISFILED:
            _exact_error(name)
            raise _misfiled(name)
        if int(row["problems"]):
            raise _refuse(name, f"a document the in-place reader refuses (field "
                                f"{row['problem']})")
        if row["bulk"] > row["filed"]:
            raise _refuse(name, "a bulk action line with no document after it")
    _with_normaliser(con)
    con.execute(f"""CREATE OR REPLACE TEMP TABLE plan_query_norms AS
                    SELECT query, norm FROM (
                        SELECT query, {NORMALISE}(query) AS norm
                        FROM (SELECT DISTINCT query FROM ubi_check WHERE query IS NOT NULL))
                    WHERE norm <> ''""")
    con.execute("DROP TABLE ubi_check")
    log = NdjsonLog(files, {n: int(per_file.loc[n, "events"]) for n in files},
                    {n: int(per_file.loc[n, "documents"]) for n in files})
    if progress is not None:
        progress(f"reading {len(files):,} file(s), {log.rows:,} events")
    return log
