"""Known-answer (gold) items: marking them from a file or from the dataset's own judgments,
and listing them.

A gold item is graded — (query, doc) with the grade a careful judge gives — or a pair —
(query, two runs) with the run a careful judge prefers.  Marks are stored with who made them,
when and where from (:mod:`judge_app.store.gold`); marking the same item alike again adds
nothing, marking it with another answer replaces the answer (the newest mark counts).

Files are read with the readers ``sxs import`` uses (:mod:`judge_app.io.labels`): TREC or
SMART qrels, or a table (CSV, TSV, Parquet, JSON, JSON Lines) of graded items (``query_id,
doc_id, grade``, grades by value or name) or of pairs (``query_id, run_a, run_b,
preferred_run``).  A bad file stores nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.errors import InputError, SxsError
from judge_app.io import labels, trec
from judge_app.io.files import format_of, read_table, require_columns
from judge_app.io.formats import GOLD_FORMATS, QRELS_FORMATS
from judge_app.store import Dataset, Store

PAIR_COLUMNS = ("query_id", "run_a", "run_b", "preferred_run")


@dataclass(frozen=True)
class GoldImport:
    """What marking gold items did: how many graded items and pairs were read and marked."""

    read: int
    marked: int
    kind: str  # "graded items" or "pairs"

    def __str__(self) -> str:
        again = self.read - self.marked
        tail = f" ({again:,} already marked alike)" if again else ""
        return f"marked {self.marked:,} gold {self.kind} of {self.read:,} read{tail}"


def _file_format(path: Path, fmt: str | None) -> str:
    if fmt is not None:
        if fmt not in GOLD_FORMATS:
            raise InputError(str(path), f"unknown gold format {fmt!r}; use one of "
                             f"{', '.join(GOLD_FORMATS)}")
        return fmt
    try:
        return format_of(path, None)
    except InputError:
        return "auto"  # not a table's suffix: TREC or SMART qrels


def import_gold(store: Store, dataset: Dataset, path: str | Path, fmt: str | None = None,
                marked_by: str | None = None) -> GoldImport:
    """Mark the gold items of a file (see the module); the whole file is read and checked
    before anything is stored."""
    path = Path(path)
    kind = _file_format(path, fmt)
    if kind in QRELS_FORMATS:
        raw, _ = store.trec_qrels_rows(dataset, trec.TrecFile(path, kind))
        frame = labels.read_trec_judgments(raw, dataset.scale, str(path)).frame
    else:
        head = read_table(path, kind)
        if "run_a" in head.columns or "preferred_run" in head.columns:
            require_columns(head, list(PAIR_COLUMNS), str(path), kind)
            pairs = head[list(PAIR_COLUMNS)]
            marked = store.mark_gold_pairs(dataset, pairs, "file", str(path), marked_by)
            return GoldImport(len(pairs), marked, "pairs")
        frame = labels.read_judgments(path, dataset.scale, fmt=kind).frame
    marked = store.mark_gold_grades(dataset, frame, "file", str(path), marked_by)
    return GoldImport(len(frame), marked, "graded items")


def gold_from_dataset(store: Store, dataset: Dataset, sample: int | None = None,
                      seed: int = 0, marked_by: str | None = None) -> GoldImport:
    """Mark the dataset's own judgments as gold items: all with a grade on the scale (a
    negative grade — trec_eval's "pooled, not judged" — is no answer), or ``sample`` of
    them drawn at random with ``seed`` (every grade's share kept as drawn, not stratified)."""
    judged = store.judgments(dataset)
    judged = judged[judged["grade"].isin(dataset.scale.values)]
    if judged.empty:
        raise SxsError(f"dataset {dataset.name!r} has no judgments on its scale to mark gold")
    if sample is not None:
        if sample < 1:
            raise SxsError(f"--sample must be at least 1; got {sample}")
        picked = np.random.default_rng(seed).choice(len(judged), size=min(sample, len(judged)),
                                                    replace=False)
        judged = judged.iloc[np.sort(picked)]
    frame = judged[["query_id", "doc_id", "grade"]]
    marked = store.mark_gold_grades(dataset, frame, "dataset", None, marked_by)
    return GoldImport(len(frame), marked, "graded items")


def gold_items(store: Store, dataset: Dataset) -> pd.DataFrame:
    """Every gold item of the dataset, graded first then pairs: kind (``graded``/``pair``),
    query_id, doc_id, grade, run_1, run_2, preferred_run, source, origin, marked_by,
    marked_at."""
    graded = store.gold_grades(dataset).assign(kind="graded")
    pairs = store.gold_pairs(dataset).assign(kind="pair")
    columns = ["kind", "query_id", "doc_id", "grade", "run_1", "run_2", "preferred_run",
               "source", "origin", "marked_by", "marked_at"]
    parts = [p.reindex(columns=columns) for p in (graded, pairs) if len(p)]
    if not parts:
        return pd.DataFrame(columns=columns)
    table = pd.concat(parts, ignore_index=True)
    table["grade"] = table["grade"].astype("Int64")
    return table
