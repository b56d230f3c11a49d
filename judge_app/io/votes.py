"""The side-by-side votes file (``sxs export votes`` / ``sxs import votes``): CSV, Parquet or
JSONL, one row a vote, every field the store holds of it.

Columns (:data:`VOTE_COLUMNS`), in order:

* ``query_id``; ``run_1`` < ``run_2``: the unordered pair as stored; ``left_run``: the run
  shown on the left; ``choice`` (left, right, tie, both_bad: :mod:`metrics.votes`);
  ``preferred_run``: the run the choice favours (empty for tie and both_bad);
* ``reason``; ``blind``; ``k``: the depth the vote was cast on; ``overlap``: the round's
  judges per query when the view was drawn (empty when the view held no lease);
  ``queue_rule``: the queue rule that drew the query (empty: named, not drawn);
  ``judging_policy``: the vote queue's policy in force when it was cast (empty: not known;
  a file written before the column existed may lack it);
* ``judge``: as outputs show it (an unverified judge's name ends in `` (unverified)``);
  ``verified``: as the exporting store knew the judge (empty: a name with no judge record);
* ``created_at`` (cast), ``ms_spent`` (time spent on the view), ``issued_at`` (drawn; empty
  for votes from before views were recorded); ``view_id``: the vote's key (a vote imported
  twice is stored once); ``ranking_hash``: MD5 of the query text and both top-k lists when
  the view was drawn (empty for old votes);
* ``stale``: derived, the ranking hash no longer matches the store's runs (read for
  information only: the importing store derives it again from ``ranking_hash``);
  ``retracted_at``: when the judge undid the vote (empty: not retracted).

Times are ISO-8601 text in UTC with microseconds in CSV and JSONL, timestamps in Parquet.
CSV text cells are formula-guarded (:mod:`judge_app.io.csv_safe`) and unguarded on reading.
A bad row is refused in one line naming file, line (CSV, JSONL; Parquet: row) and field.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd

from judge_app.errors import InputError
from judge_app.io.csv_safe import unguard_text, write_csv
from judge_app.io.formats import VOTE_FORMATS
from judge_app.io.nul import NUL, nul_error
from metrics.votes import CHOICES, preferred_run

UNVERIFIED = " (unverified)"
"""What outputs append to an unverified judge's name (the ``judge_names`` view's text)."""

VOTE_COLUMNS: tuple[str, ...] = (
    "query_id", "run_1", "run_2", "left_run", "choice", "preferred_run", "reason", "blind",
    "k", "overlap", "queue_rule", "judging_policy", "judge", "verified", "created_at",
    "ms_spent", "issued_at", "view_id", "ranking_hash", "stale", "retracted_at")
TIME_COLUMNS = ("created_at", "issued_at", "retracted_at")
BOOL_COLUMNS = ("blind", "verified", "stale")
INT_COLUMNS = ("k", "overlap", "ms_spent")
OPTIONAL = ("stale", "judging_policy")
"""Columns a votes file may lack: ``stale`` is derived again, ``judging_policy`` is younger
than the format (a file without it: not known)."""
REQUIRED = ("query_id", "run_1", "run_2", "left_run", "choice", "judge", "created_at",
            "view_id")
_TIME_TEXT = "%Y-%m-%dT%H:%M:%S.%fZ"


def vote_format(path: str | Path, fmt: str | None) -> str:
    """``fmt``, or the format the file's suffix names (``.parquet``/``.pq``, ``.jsonl``,
    else csv)."""
    if fmt is not None:
        if fmt not in VOTE_FORMATS:
            raise InputError(str(path), f"the votes format must be one of "
                             f"{', '.join(VOTE_FORMATS)}; got {fmt!r}")
        return fmt
    suffix = Path(path).suffix.lower()
    return {".parquet": "parquet", ".pq": "parquet", ".jsonl": "jsonl"}.get(suffix, "csv")


def write_votes(frame: pd.DataFrame, path: str | Path, fmt: str) -> int:
    """Write the votes (columns :data:`VOTE_COLUMNS`) as ``fmt``; returns rows written."""
    out = _typed(frame.loc[:, list(VOTE_COLUMNS)].copy())
    if fmt == "parquet":
        out.to_parquet(path, index=False)
        return len(out)
    for column in TIME_COLUMNS:
        out[column] = out[column].dt.strftime(_TIME_TEXT).astype(object).where(
            out[column].notna(), None)
    if fmt == "jsonl":
        with Path(path).open("w", encoding="utf-8", newline="\n") as handle:
            for record in out.astype(object).where(out.notna(), None).to_dict("records"):
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        return len(out)
    write_csv(out, path)
    return len(out)


def read_votes(path: str | Path, fmt: str | None = None) -> pd.DataFrame:
    """The votes of a file written by :func:`write_votes`, checked row by row: the columns
    of :data:`VOTE_COLUMNS` typed (text None when empty), ``judge`` the stored name (the
    unverified mark removed) and ``line`` where each row stands.  Raises
    :class:`InputError` naming file, line and field."""
    source = str(path)
    fmt = vote_format(path, fmt)
    if fmt == "parquet":
        raw = pd.read_parquet(path)
        lines = list(range(1, len(raw) + 1))
        rows = raw.astype(object).where(raw.notna(), None).to_dict("records")
    elif fmt == "jsonl":
        rows, lines = [], []
        with Path(path).open(encoding="utf-8") as handle:
            for number, text in enumerate(handle, start=1):
                if not text.strip():
                    continue
                try:
                    record = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise InputError(source, f"not JSON ({exc.msg})", line=number) from None
                if not isinstance(record, dict):
                    raise InputError(source, "a line must be a JSON object", line=number)
                rows.append(record)
                lines.append(number)
    else:
        rows, lines = _csv_rows(path)
    missing = ([c for c in VOTE_COLUMNS if c not in OPTIONAL and c not in rows[0]]
               if rows else [])
    if missing:
        raise InputError(source, f"no column {missing[0]!r} (a votes file has "
                         f"{', '.join(VOTE_COLUMNS)})", line=1 if fmt == "csv" else lines[0])
    checked = [_checked_row(source, line, row, fmt) for line, row in zip(lines, rows,
                                                                         strict=True)]
    return _typed(pd.DataFrame(checked, columns=[*VOTE_COLUMNS, "line"]))


def _typed(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its times UTC to the microsecond, counts ``Int64``, flags ``boolean``
    (missing values kept missing)."""
    for column in TIME_COLUMNS:
        frame[column] = pd.to_datetime(frame[column], utc=True).astype("datetime64[us, UTC]")
    for column in INT_COLUMNS:
        frame[column] = frame[column].astype("Int64")
    for column in BOOL_COLUMNS:
        frame[column] = frame[column].astype("boolean")
    return frame


def _csv_rows(path: str | Path) -> tuple[list[dict], list[int]]:
    """The CSV's rows as dicts of unguarded text (empty cells None) and their first lines."""
    rows, lines = [], []
    with Path(path).open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle)
        header = [unguard_text(h) for h in next(reader, [])]
        start = reader.line_num + 1
        for cells in reader:
            if cells:
                if len(cells) != len(header):
                    raise InputError(str(path), f"{len(cells)} fields where the header has "
                                     f"{len(header)}", line=start)
                rows.append({h: (unguard_text(c) if c != "" else None)
                             for h, c in zip(header, cells, strict=True)})
                lines.append(start)
            start = reader.line_num + 1
    return rows, lines


def _checked_row(source: str, line: int, row: dict, fmt: str) -> list:
    """One row typed and checked; the judge's stored name; raises :class:`InputError`."""
    def fail(field: str, reason: str) -> InputError:
        return InputError(source, reason, line=line, field=field)

    values = {c: row.get(c) for c in VOTE_COLUMNS}
    for column in values:
        if isinstance(values[column], str) and values[column] == "":
            values[column] = None
    for column in REQUIRED:
        if values[column] is None:
            raise fail(column, "is empty")
    for column in BOOL_COLUMNS:
        values[column] = _boolean(values[column], fail, column)
    for column in INT_COLUMNS:
        values[column] = _integer(values[column], fail, column)
    for column in TIME_COLUMNS:
        if values[column] is not None:
            try:
                stamp = pd.Timestamp(values[column])
            except ValueError:
                raise fail(column, f"{values[column]!r} is not a time") from None
            values[column] = stamp.tz_localize("UTC") if stamp.tzinfo is None else stamp
    for column in ("query_id", "run_1", "run_2", "left_run", "choice", "preferred_run",
                   "reason", "queue_rule", "judging_policy", "judge", "view_id",
                   "ranking_hash"):
        if values[column] is not None and not isinstance(values[column], str):
            values[column] = str(values[column])
        if values[column] is not None and NUL in values[column]:
            raise nul_error(source, line, column)
    run_1, run_2, left = values["run_1"], values["run_2"], values["left_run"]
    if not run_1 < run_2:
        raise fail("run_2", f"the pair must be written run_1 < run_2; got {run_1!r}, {run_2!r}")
    if left not in (run_1, run_2):
        raise fail("left_run", f"{left!r} is neither {run_1!r} nor {run_2!r}")
    if values["choice"] not in CHOICES:
        raise fail("choice", f"must be one of {', '.join(CHOICES)}; got {values['choice']!r}")
    favoured = preferred_run(values["choice"], left, run_2 if left == run_1 else run_1)
    if values["preferred_run"] != favoured:
        raise fail("preferred_run", f"a {values['choice']!r} vote with {left!r} on the left "
                   f"favours {favoured or 'neither run'}, not {values['preferred_run']!r}")
    if values["k"] is not None and values["k"] < 1:
        raise fail("k", "must be at least 1")
    if values["issued_at"] is not None and (values["ranking_hash"] is None
                                            or values["k"] is None or values["blind"] is None):
        raise fail("ranking_hash", "a vote with a view (issued_at) needs its ranking_hash, "
                   "k and blind")
    judge = values["judge"]
    if values["verified"] is False:
        if not judge.endswith(UNVERIFIED) or judge == UNVERIFIED:
            raise fail("judge", f"an unverified judge is written name{UNVERIFIED}; "
                       f"got {judge!r}")
        values["judge"] = judge[:-len(UNVERIFIED)]
    return [*values.values(), line]


def _boolean(value: object, fail, column: str) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "1"):
        return True
    if text in ("false", "0"):
        return False
    raise fail(column, f"{value!r} is not true or false")


def _integer(value: object, fail, column: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise fail(column, f"{value!r} is not a whole number")
    try:
        number = float(value) if not isinstance(value, int) else value
    except (TypeError, ValueError):
        raise fail(column, f"{value!r} is not a whole number") from None
    if number != int(number) or number < 0:
        raise fail(column, f"{value!r} is not a whole number")
    return int(number)
