"""TREC formats: qrels ``qid 0 docid grade`` and runs ``qid Q0 docid rank score tag``.

Both are whitespace-separated without a header.  Errors name the file, line and field.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import InputError
from judge_app.io.files import read_whitespace_columns


def _integers(frame: pd.DataFrame, column: str, source: str) -> np.ndarray:
    try:
        return frame[column].astype(np.int64).to_numpy()
    except (ValueError, TypeError, OverflowError):
        pass  # find and name the first bad cell below
    values = pd.to_numeric(frame[column], errors="coerce")
    bad = (values.isna() | (values != values.round()) | (values.abs() > 2**53)).to_numpy()
    if bad.any():
        row = int(bad.argmax())
        raise InputError(source, f"{column} {frame[column].iloc[row]!r} is not a whole number",
                         line=int(frame["line"].iloc[row]), field=column)
    return values.to_numpy(dtype=np.int64)


def read_qrels(path: str | Path) -> pd.DataFrame:
    """TREC qrels as (query_id, doc_id, grade, line); grades must be whole numbers."""
    path = Path(path)
    frame = read_whitespace_columns(path, ["query_id", "iteration", "doc_id", "grade"])
    grades = _integers(frame, "grade", str(path))
    return pd.DataFrame({"query_id": frame["query_id"], "doc_id": frame["doc_id"],
                         "grade": grades, "line": frame["line"]})


def read_run(path: str | Path) -> pd.DataFrame:
    """A TREC run as (query_id, doc_id, rank, score, tag, line), in file order.

    Ranks and scores are checked (whole number, finite number); re-ranking and duplicate
    checks are the importer's, which sees the whole run.
    """
    path = Path(path)
    source = str(path)
    frame = read_whitespace_columns(
        path, ["query_id", "q0", "doc_id", "rank", "score", "tag"], min_fields=5)
    ranks = _integers(frame, "rank", source)
    scores = pd.to_numeric(frame["score"], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(scores)
    if bad.any():
        row = int(bad.argmax())
        raise InputError(source, f"score {frame['score'].iloc[row]!r} is not a number",
                         line=int(frame["line"].iloc[row]), field="score")
    return pd.DataFrame({"query_id": frame["query_id"], "doc_id": frame["doc_id"],
                         "rank": ranks, "score": scores, "tag": frame["tag"],
                         "line": frame["line"]})


def write_qrels(frame: pd.DataFrame, path: str | Path) -> None:
    """Write (query_id, doc_id, grade) as TREC qrels, sorted by query then doc."""
    ordered = frame.sort_values(["query_id", "doc_id"], kind="stable")
    with Path(path).open("w", encoding="utf-8", newline="\n") as out:
        for qid, doc, grade in zip(ordered["query_id"], ordered["doc_id"], ordered["grade"],
                                   strict=True):
            out.write(f"{qid} 0 {doc} {int(grade)}\n")
