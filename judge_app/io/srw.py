"""OpenSearch Search Relevance Workbench (SRW) files: judgment lists and query sets.

A judgment list (the body of ``PUT _plugins/_search_relevance/judgments``)::

    {"name": "...", "type": "IMPORT_JUDGMENT",
     "judgmentRatings": [{"query": "red dress",
                          "ratings": [{"docId": "B077ZJXCTS", "rating": "3.000"}, ...]}, ...]}

(older releases wrote ``judgmentRatings`` as an object ``{"red dress": [{docId, rating}]}``).
A query set (the body of ``PUT _plugins/_search_relevance/query_sets``)::

    {"name": "...", "querySetQueries": [{"queryText": "tv", "referenceAnswer": "..."}, ...]}

or the same ``{"queryText": ...}`` objects one a line (JSON Lines, read as any JSON Lines).
SRW names queries by their text: rows come out as ``query``/``docId``/``rating`` and
``queryText`` (plus ``referenceAnswer`` when present), each with the line its object starts on.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from judge_app.errors import InputError

JUDGMENTS_KEY = "judgmentRatings"
QUERY_SET_KEY = "querySetQueries"
JUDGMENT_COLUMNS = ("query", "docId", "rating")
QUERY_TEXT = "queryText"


def is_srw(document: dict) -> bool:
    """Whether a JSON object is an SRW judgment list or query set."""
    return JUDGMENTS_KEY in document or QUERY_SET_KEY in document


def _lines_of_key(text: str, key: str, count: int, fallback_key: str) -> np.ndarray:
    """The line of each ``"key":`` in the text, when there is one per row; else the line of
    ``fallback_key`` for every row."""
    starts = [m.start() for m in re.finditer(rf'(?<!\\)"{re.escape(key)}"\s*:', text)]
    if len(starts) == count:
        return np.array([text.count("\n", 0, s) + 1 for s in starts], dtype=np.int64)
    found = re.search(rf'"{re.escape(fallback_key)}"\s*:', text)
    line = text.count("\n", 0, found.start()) + 1 if found else 1
    return np.full(count, line, dtype=np.int64)


def _text(value: object) -> str:
    return "" if value is None else str(value)


def flatten(document: dict, text: str, source: str) -> pd.DataFrame:
    """The rows of an SRW judgment list or query set, with ``line``."""
    if JUDGMENTS_KEY in document:
        return _judgments(document[JUDGMENTS_KEY], text, source)
    return _query_set(document[QUERY_SET_KEY], text, source)


def _judgments(entries: object, text: str, source: str) -> pd.DataFrame:
    if isinstance(entries, dict):
        entries = [{"query": query, "ratings": ratings} for query, ratings in entries.items()]
    if not isinstance(entries, list):
        raise InputError(source, f"{JUDGMENTS_KEY} must be a list of "
                         "{query, ratings: [{docId, rating}]}", field=JUDGMENTS_KEY)
    rows: list[tuple[str, str, str]] = []
    for number, entry in enumerate(entries, start=1):
        where = f"{JUDGMENTS_KEY}[{number}]"
        if not isinstance(entry, dict) or "query" not in entry or not isinstance(
                entry.get("ratings"), list):
            raise InputError(source, "expected {query, ratings: [{docId, rating}]}",
                             field=where)
        for index, rating in enumerate(entry["ratings"], start=1):
            if not isinstance(rating, dict) or "docId" not in rating or "rating" not in rating:
                raise InputError(source, "expected {docId, rating}",
                                 field=f"{where}.ratings[{index}]")
            rows.append((_text(entry["query"]), _text(rating["docId"]),
                         _text(rating["rating"])))
    if not rows:
        raise InputError(source, "the judgment list has no ratings", field=JUDGMENTS_KEY)
    frame = pd.DataFrame(rows, columns=list(JUDGMENT_COLUMNS))
    frame["line"] = _lines_of_key(text, "docId", len(frame), JUDGMENTS_KEY)
    return frame


def _query_set(entries: object, text: str, source: str) -> pd.DataFrame:
    if not isinstance(entries, list):
        raise InputError(source, f"{QUERY_SET_KEY} must be a list of {{queryText}}",
                         field=QUERY_SET_KEY)
    rows = []
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict) or QUERY_TEXT not in entry:
            raise InputError(source, "expected {queryText}", field=f"{QUERY_SET_KEY}[{number}]")
        rows.append({k: _text(v) for k, v in entry.items()})
    if not rows:
        raise InputError(source, "the query set has no queries", field=QUERY_SET_KEY)
    frame = pd.DataFrame.from_records(rows).fillna("")
    frame["line"] = _lines_of_key(text, QUERY_TEXT, len(frame), QUERY_SET_KEY)
    return frame
