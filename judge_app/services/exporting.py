"""Exporting: labels out of the store in every format a neighbouring tool reads (TREC qrels,
Quepid, CSV/Parquet with provenance, one column per judge), analysts' per-query tables, and
the experts' side-by-side votes with everything the store holds of them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from judge_app.errors import SxsError
from judge_app.io import trec
from judge_app.io.csv_safe import write_csv
from judge_app.io.formats import EXPORT_FORMATS
from judge_app.io.origin import shown_origin
from judge_app.io.votes import vote_format, write_votes
from judge_app.policies import LabelPolicy
from judge_app.services.analysis import expert_share, labels_for
from judge_app.store import Dataset, Store


def labels_with_provenance(store: Store, dataset: Dataset) -> pd.DataFrame:
    """Every current label with where it came from: source (dataset|expert), judge, time,
    and for an expert's label the judging policy it was given under (empty: not known);
    and every dataset grade an import replaced (source ``replaced``, its origin and the time
    it had been imported), oldest replacement first.  Sorted by query, doc, source, judge.
    An origin is the imported file's name and content hash, never its folder on the server
    (:func:`~judge_app.io.origin.shown_origin`)."""
    judged = store.judgments(dataset)
    dataset_rows = pd.DataFrame({
        "query_id": judged["query_id"], "doc_id": judged["doc_id"], "grade": judged["grade"],
        "source": "dataset", "judge": "", "time": judged["imported_at"], "note": "",
        "origin": judged["source"].map(shown_origin), "judging_policy": ""})
    experts = store.current_expert_labels(dataset, counted_only=True)
    expert_rows = pd.DataFrame({
        "query_id": experts["query_id"], "doc_id": experts["doc_id"], "grade": experts["grade"],
        "source": "expert", "judge": experts["judge"], "time": experts["created_at"],
        "note": experts["note"].fillna(""), "origin": "",
        "judging_policy": experts["judging_policy"].fillna("")})
    history = store.judgment_history(dataset)
    replaced_rows = pd.DataFrame({
        "query_id": history["query_id"], "doc_id": history["doc_id"], "grade": history["grade"],
        "source": "replaced", "judge": "", "time": history["imported_at"], "note": "",
        "origin": history["source"].map(shown_origin), "judging_policy": ""})
    frames = [f for f in (dataset_rows, expert_rows, replaced_rows) if not f.empty]
    if not frames:
        return dataset_rows
    return pd.concat(frames, ignore_index=True).sort_values(
        ["query_id", "doc_id", "source", "judge"], kind="stable").reset_index(drop=True)


def export_labels(store: Store, dataset: Dataset, path: str | Path, fmt: str,
                  filled: bool = False, policy: LabelPolicy | str = LabelPolicy.MEDIAN,
                  replace_whitespace: str | None = None) -> int:
    """Write labels to ``path``; returns rows written.

    * ``trec``: qrels of the dataset's judgments, or the filled set with ``filled``; ids
      holding whitespace are refused unless ``replace_whitespace`` gives a character;
    * ``quepid``: ``query,docid,rating`` with the query's text (dataset or filled);
    * ``csv`` / ``parquet``: every current label with provenance (source, judge, time);
    * ``wide``: one row per (query, doc), one column per judge (latest grade).

    Excluded judges' labels are left out of every format (as of the filled set).
    """
    path = Path(path)
    if fmt not in EXPORT_FORMATS:
        raise SxsError(f"export format must be one of {', '.join(EXPORT_FORMATS)}; got {fmt!r}")
    if fmt == "trec":
        frame = labels_for(store, dataset, filled, policy)
        return trec.write_qrels(frame, path, replace_whitespace)
    if fmt == "quepid":
        frame = labels_for(store, dataset, filled, policy)
        texts = store.queries(dataset).set_index("query_id")["text"]
        missing = sorted(set(frame["query_id"]) - set(texts.index))
        if missing:
            raise SxsError(f"query {missing[0]!r} has no text in the store: Quepid matches "
                           "queries by text (import the queries first)")
        out = pd.DataFrame({"query": frame["query_id"].map(texts), "docid": frame["doc_id"],
                            "rating": frame["grade"]})
        write_csv(out, path)
        return len(out)
    if fmt == "wide":
        experts = store.current_expert_labels(dataset, counted_only=True)
        wide = experts.pivot_table(index=["query_id", "doc_id"], columns="judge",
                                   values="grade", aggfunc="first")
        wide = wide.reset_index()
        wide.columns.name = None
        wide = wide.astype({c: "Int64" for c in wide.columns if c not in ("query_id", "doc_id")})
        write_csv(wide, path)
        return len(wide)
    frame = labels_with_provenance(store, dataset)
    if fmt == "parquet":
        frame.to_parquet(path, index=False)
    else:
        write_csv(frame, path)
    return len(frame)


def labels_exported(store: Store, dataset: Dataset, fmt: str, filled: bool = False,
                    policy: LabelPolicy | str = LabelPolicy.MEDIAN) -> str:
    """The label set an export of ``fmt`` holds, named as the analysis reports name it:
    ``labels: dataset`` (the dataset's judgments), ``labels: filled:experts — …`` or
    ``labels: overridden:experts — grades of experts filled 2 gaps; overrode 1 dataset grade
    (policy median)`` (``trec`` and ``quepid`` with ``filled``), or every label with its
    source (``csv``, ``parquet``, ``wide``)."""
    if fmt not in ("trec", "quepid"):
        return "labels: every current label with its source (dataset, expert, replaced)"
    if not filled:
        return "labels: dataset"
    share = expert_share(store, dataset, policy)
    return f"labels: {share.name} — {share.describe()}"


def export_run(store: Store, dataset: Dataset, run: str, path: str | Path,
               replace_whitespace: str | None = None) -> int:
    """Write the stored run ``run`` as a TREC run file (``qid Q0 docid rank score tag``, the
    run's name as the tag; :func:`judge_app.io.trec.write_run`); returns rows written.
    ``sxs import run`` reads it back with the same ranks and scores."""
    return trec.write_run(store.run(dataset, run), path, run, replace_whitespace)


def export_votes(store: Store, dataset: Dataset, path: str | Path,
                 fmt: str | None = None) -> int:
    """Write every side-by-side vote of the dataset — retracted and stale ones too, marked —
    to ``path`` as ``fmt`` (csv, parquet or jsonl; default by the suffix, else csv), in the
    order cast (see :mod:`judge_app.io.votes` for the columns); returns rows written.
    ``sxs import votes`` reads the file back into another store."""
    return write_votes(store.all_votes(dataset), path, vote_format(path, fmt))
