"""Datasets and their reference data: each dataset's grade scale, queries and documents.

A dataset is named once with its scale; queries (query_id, text) and documents (doc_id, title,
other fields kept as JSON) are inserted or updated by id.  A dataset being deleted is hidden
from every reader (:data:`~judge_app.store.deletion.LIVE_DATASET`).
"""

from __future__ import annotations

import json

import pandas as pd

from judge_app.addresses import describe_address
from judge_app.errors import NotFound, SxsError
from judge_app.io.nul import plain_text
from judge_app.store.backend import Backend
from judge_app.store.deletion import LIVE_DATASET
from judge_app.store.model import Dataset
from judge_app.store.sql import one
from metrics.scale import GradeScale


class Datasets:
    """Datasets, their scales, queries and documents."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend

    def create_dataset(self, name: str, scale: GradeScale) -> Dataset:
        """Create a dataset with its grade scale; the same name and scale again is a no-op."""
        if not plain_text(name, "dataset name").strip():
            raise SxsError("a dataset needs a name")
        existing = self.find_dataset(name)
        if existing is not None:
            if existing.scale != scale:
                raise SxsError(f"dataset {name!r} exists with scale {existing.scale.describe()}"
                               f", not {scale.describe()}")
            return existing
        with self.backend.transaction() as cur:
            (dataset_id,) = one(
                cur, "INSERT INTO datasets (name) VALUES (?) RETURNING dataset_id", [name])
            cur.executemany("INSERT INTO grade_scale VALUES (?, ?, ?)",
                            [[dataset_id, grade, label] for grade, label in scale.grades])
        return Dataset(dataset_id, name, scale)

    def find_dataset(self, name: str) -> Dataset | None:
        row = one(self.backend.cursor(), f"SELECT dataset_id FROM datasets WHERE name = ? "
                                   f"AND {LIVE_DATASET}", [name])
        if row is None:
            return None
        grades = self.backend.cursor().execute(
            "SELECT grade, name FROM grade_scale WHERE dataset_id = ? ORDER BY grade",
            [row[0]]).fetchall()
        return Dataset(row[0], name, GradeScale(tuple((g, n) for g, n in grades)))

    def dataset(self, name: str) -> Dataset:
        found = self.find_dataset(name)
        if found is None:
            known = ", ".join(self.dataset_names()) or "none yet"
            raise NotFound(f"no dataset {name!r} in {describe_address(self.backend.address)} "
                           f"(datasets: {known})")
        return found

    def dataset_names(self) -> list[str]:
        rows = self.backend.cursor().execute(
            f"SELECT name FROM datasets WHERE {LIVE_DATASET} ORDER BY name").fetchall()
        return [r[0] for r in rows]

    def put_queries(self, dataset: Dataset, frame: pd.DataFrame) -> int:
        """Insert or update queries (query_id, text); returns how many rows were written."""
        rows = frame[["query_id", "text"]]
        with self.backend.transaction() as cur:
            cur.register("incoming_queries", rows)
            cur.execute("""
                INSERT INTO queries SELECT ?, query_id, text FROM incoming_queries
                ON CONFLICT (dataset_id, query_id) DO UPDATE SET text = excluded.text""",
                        [dataset.dataset_id])
            cur.unregister("incoming_queries")
        return len(rows)

    def put_documents(self, dataset: Dataset, frame: pd.DataFrame) -> int:
        """Insert or update documents (doc_id, title, other columns kept as JSON fields)."""
        extra = [c for c in frame.columns if c not in ("doc_id", "title")]
        rows = pd.DataFrame({
            "doc_id": frame["doc_id"],
            "title": frame["title"] if "title" in frame.columns else None,
            "fields": _fields_json(frame[extra]) if extra else None,
        })
        with self.backend.transaction() as cur:
            cur.register("incoming_docs", rows)
            cur.execute("""
                INSERT INTO documents
                SELECT ?, doc_id, title, CAST(fields AS JSON) FROM incoming_docs
                ON CONFLICT (dataset_id, doc_id)
                DO UPDATE SET title = excluded.title, fields = excluded.fields""",
                        [dataset.dataset_id])
            cur.unregister("incoming_docs")
        return len(rows)

    def queries(self, dataset: Dataset) -> pd.DataFrame:
        return self.backend.frame("SELECT query_id, text FROM queries WHERE dataset_id = ? "
                           "ORDER BY query_id", [dataset.dataset_id])

    def query_text(self, dataset: Dataset, query_id: str) -> str | None:
        """The text of one query, or None if the dataset has no such query."""
        row = one(self.backend.cursor(), "SELECT text FROM queries WHERE dataset_id = ? "
                                   "AND query_id = ?", [dataset.dataset_id, query_id])
        return row[0] if row else None

    def field_names(self, dataset: Dataset, sample: int = 200) -> list[str]:
        """The document field names seen in the first ``sample`` documents, in order."""
        rows = self.backend.cursor().execute(
            "SELECT fields FROM documents WHERE dataset_id = ? AND fields IS NOT NULL "
            "ORDER BY doc_id LIMIT ?", [dataset.dataset_id, sample]).fetchall()
        seen: dict[str, None] = {}
        for (fields,) in rows:
            for key in json.loads(fields) if isinstance(fields, str) else {}:
                seen.setdefault(key, None)
        return list(seen)

    def documents(self, dataset: Dataset, doc_ids: list[str] | None = None) -> pd.DataFrame:
        """Documents (doc_id, title, fields as a dict), all or the given ids."""
        sql = "SELECT doc_id, title, fields FROM documents WHERE dataset_id = ?"
        params: list = [dataset.dataset_id]
        if doc_ids is not None:
            sql += " AND list_contains(?, doc_id)"
            params.append(list(doc_ids))
        frame = self.backend.frame(sql + " ORDER BY doc_id", params)
        frame["fields"] = [json.loads(f) if isinstance(f, str) else {} for f in frame["fields"]]
        return frame


def _fields_json(extra: pd.DataFrame) -> list[str]:
    """Each row's extra columns as a JSON object (NaN left out)."""
    records = extra.to_dict(orient="records")
    return [json.dumps({k: v for k, v in r.items() if not (isinstance(v, float) and v != v)},
                       ensure_ascii=False, default=str) for r in records]
