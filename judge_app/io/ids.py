"""Id normalisations an import may apply (``--normalize-ids``) — declared once, light to import
(the CLI's and the Import page's choices are built from :data:`ID_NORMALIZATIONS`).

Ids are kept exactly as the file writes them (leading and trailing spaces, case, zero padding)
unless one of these is asked for; it applies to the query and the doc ids of the file being
imported:

* ``strip-zeros``: leading zeros removed, ``0012`` -> ``12``; an id of zeros only becomes
  ``0``; ``d0012`` is unchanged (only a leading run of ``0`` goes);
* ``lower``: lower case, one character for one (``İ`` -> ``i``, where Python's full case
  mapping would give two characters), as DuckDB's ``lower``;
* ``strip``: leading and trailing ASCII whitespace (space, tab, newline, CR, VT, FF) removed.

The store applies the same rules in SQL to files it parses itself (TREC qrels and runs);
a property test holds the two equal.

An id holds at most :data:`MAX_ID_BYTES` bytes of UTF-8 (after normalisation), on either
backend, so a DuckDB store and a PostgreSQL store accept the same files: a longer id is a
one-line refusal naming the file, line and field (:func:`check_id_lengths`).
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING

from judge_app.errors import InputError

if TYPE_CHECKING:
    import pandas as pd


class IdNormalization(StrEnum):
    """How ``--normalize-ids`` rewrites the ids of an imported file."""

    STRIP_ZEROS = "strip-zeros"
    LOWER = "lower"
    STRIP = "strip"


ID_NORMALIZATIONS: tuple[str, ...] = tuple(how.value for how in IdNormalization)
ID_WHITESPACE = " \t\n\r\x0b\x0c"
"""The characters ``strip`` removes from both ends of an id."""
_DOTTED_CAPITAL_I = "\u0130"

MAX_ID_BYTES = 1000
"""The longest id (query or doc), in bytes of UTF-8: 1,000 ASCII characters, 250 of four
bytes.  PostgreSQL indexes a row's key in at most 2,704 bytes, and the store's lookup
indexes hold two ids and a judge name (at most 80 characters) in one key."""
_UTF8_MAX = 4  # bytes per character at most


def id_too_long(source: str, length: int, line: int | None, field: str) -> InputError:
    """The refusal of an id of ``length`` bytes."""
    return InputError(source, f"the id is {length:,} bytes long; an id holds at most "
                      f"{MAX_ID_BYTES:,} bytes (UTF-8)", line=line, field=field)


def check_id_lengths(ids: pd.Series, lines: pd.Series, source: str, field: str) -> None:
    """InputError naming the first line (``lines``, aligned with ``ids``) whose id is longer
    than :data:`MAX_ID_BYTES` bytes of UTF-8."""
    suspects = (ids.str.len() > MAX_ID_BYTES // _UTF8_MAX).to_numpy()  # only these can be
    if not suspects.any():
        return
    lengths = ids[suspects].map(lambda value: len(value.encode("utf-8")))
    over = (lengths > MAX_ID_BYTES).to_numpy()
    if over.any():
        row = int(over.argmax())
        raise id_too_long(source, int(lengths.iloc[row]),
                          int(lines[suspects].iloc[row]), field)


def id_normalization(how: str | None) -> IdNormalization | None:
    """``how`` checked against the vocabulary (None: keep ids as written)."""
    if how is None or how == "":
        return None
    try:
        return IdNormalization(how)
    except ValueError:
        raise InputError("--normalize-ids", f"{how!r} is not one of "
                         f"{', '.join(ID_NORMALIZATIONS)}") from None


def normalize_id(value: str, how: str | IdNormalization) -> str:
    """One id rewritten by ``how`` (see the module doc)."""
    how = IdNormalization(how)
    if how is IdNormalization.STRIP_ZEROS:
        stripped = value.lstrip("0")
        return stripped if stripped or not value else "0"
    if how is IdNormalization.LOWER:
        return value.replace(_DOTTED_CAPITAL_I, "i").lower()
    return value.strip(ID_WHITESPACE)


def normalize_ids(ids: pd.Series, how: str | IdNormalization | None) -> pd.Series:
    """A column of ids rewritten by ``how``; unchanged when ``how`` is None."""
    if how is None:
        return ids
    return ids.map(lambda value: normalize_id(value, how))


# -- the same normalisations in SQL, for files DuckDB parses (TREC qrels and runs) --------

_SQL_NORMALIZATIONS = {
    IdNormalization.STRIP_ZEROS: "CASE WHEN {c} <> '' AND ltrim({c}, '0') = '' THEN '0' "
                                 "ELSE ltrim({c}, '0') END",
    IdNormalization.LOWER: "lower({c})",
    IdNormalization.STRIP: "trim({c}, " + "'" + ID_WHITESPACE + "')",
}
_ID_COLUMNS = ("query_id", "doc_id")


def normalized(column: str, how: str | IdNormalization | None) -> str:
    """SQL: the id ``column`` (``query_id`` or ``doc_id``) rewritten by ``how`` (see the
    module); the column itself when ``how`` is None."""
    if column not in _ID_COLUMNS:
        raise ValueError(f"not an id column: {column!r}")
    if how is None:
        return column
    return _SQL_NORMALIZATIONS[IdNormalization(how)].format(c=column)


def normalized_ids(relation: str, how: str | IdNormalization | None,
                   columns: tuple[str, ...] = _ID_COLUMNS) -> str:
    """SQL: ``relation`` with its id ``columns`` (query and doc ids) rewritten by ``how``."""
    if how is None:
        return relation
    rewritten = ", ".join(f"{normalized(column, how)} AS {column}" for column in columns)
    return f"(SELECT * REPLACE ({rewritten}) FROM {relation})"
