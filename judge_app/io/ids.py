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
