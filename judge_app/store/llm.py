"""The LLM judge's provenance: the ``llm_calls`` table (migration ``0007_llm``).

Every call an LLM judge makes is one append-only row: the endpoint, the model and the model
that answered, the prompt version and the SHA-256 of its template and of the exact messages,
the temperature, the raw reply (or error body, key masked), the parsed value or the failure,
tokens, latency, attempts and when it was asked.

What an ok call says is stored where a person's answer is, under the judge ``llm:<model>``:
a grade as an expert label (never a dataset judgment; appended, so it never overwrites anyone's
label, and the label views count it only in a basis that asks for the ``llm`` witness), a vote
as a preference (written by the service through :meth:`Store.add_preference`).  A call row's
``output_token`` is the client token of that label or vote.  A failed call stores its row and
nothing else.

Rows come in as dicts shaped like ``judge_app.llm.CallRecord.row()`` (the store does not
import the engine, which needs the ``llm`` extra).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from judge_app.errors import SxsError
from judge_app.store.backend import Backend
from judge_app.store.model import Dataset

KINDS = ("grade", "prefer")  # the prompt's task: the name in its version tag ("grade/v1")

_COLUMNS = ("dataset_id", "kind", "query_id", "doc_id", "run_a", "run_b", "side_order",
            "left_run", "judge", "model", "served_model", "base_url", "prompt_version",
            "template_sha256", "prompt_sha256", "temperature", "raw", "value", "reason",
            "failure", "prompt_tokens", "completion_tokens", "latency_ms", "attempts",
            "asked_at", "output_token")


def call_kind(prompt_version: str) -> str:
    """The task of a prompt version tag: ``grade/v1`` → ``grade``."""
    kind = prompt_version.split("/", 1)[0]
    if kind not in KINDS:
        raise SxsError(f"unknown LLM prompt {prompt_version!r} (tasks: {', '.join(KINDS)})")
    return kind


def _values(dataset_id: int, row: Mapping[str, Any], output_token: str | None) -> list:
    """One ``llm_calls`` row in :data:`_COLUMNS` order from a ``CallRecord.row()`` dict."""
    kind = call_kind(str(row["prompt_version"]))
    key = tuple(row["item_key"])
    if kind == "grade":
        if len(key) != 2:
            raise SxsError(f"a grade call's item key is (query_id, doc_id); got {key!r}")
        query_id, doc_id, run_a, run_b = key[0], key[1], None, None
    else:
        if len(key) != 3:
            raise SxsError(f"a prefer call's item key is (query_id, run_a, run_b); got {key!r}")
        query_id, doc_id, run_a, run_b = key[0], None, key[1], key[2]
    failed = row["failure"] is not None
    value = row["value"]
    return [dataset_id, kind, query_id, doc_id, run_a, run_b, int(row["order"]),
            row["left_run"], row["judge"], row["model"], row["served_model"], row["base_url"],
            row["prompt_version"], row["template_sha256"], row["prompt_sha256"],
            float(row["temperature"]), row["raw"],
            None if failed or value is None else str(value),
            None if failed else row["reason"], row["failure"], int(row["prompt_tokens"]),
            int(row["completion_tokens"]), row["latency_ms"], int(row["attempts"]),
            row["asked_at"], None if failed else output_token]


_INSERT = (f"INSERT INTO llm_calls ({', '.join(_COLUMNS)}) "
           f"VALUES ({', '.join('?' for _ in _COLUMNS)})")


class LlmCalls:
    """Store methods for the LLM judge (mixed into :class:`~judge_app.store.Store`)."""

    def __init__(self, backend: Backend) -> None:
        self.backend = backend


    # uses Store's _transaction() and _frame()

    def add_llm_grade(self, dataset: Dataset, row: Mapping[str, Any], grade: int | None,
                      client_token: str) -> bool:
        """Store one grade call: its ``llm_calls`` row and, when it succeeded (``grade`` not
        None and no failure), the grade as an expert label of ``row["judge"]`` with
        ``client_token`` — in one transaction.  Returns whether a label was added (False for
        a failure, or a token already stored)."""
        judge = str(row["judge"])
        ok = row["failure"] is None and grade is not None
        if ok and grade not in dataset.scale.values:
            raise SxsError(f"grade {grade!r} is not on the scale {dataset.scale.describe()}")
        with self.backend.transaction() as cur:
            added = []
            if ok:
                query_id, doc_id = tuple(row["item_key"])
                added = cur.execute("""
                    INSERT INTO expert_labels
                        (dataset_id, query_id, doc_id, grade, judge, note, client_token)
                    VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (client_token) DO NOTHING
                    RETURNING label_id""",
                    [dataset.dataset_id, query_id, doc_id, grade, judge, row["reason"],
                     client_token]).fetchall()
            cur.execute(_INSERT, _values(dataset.dataset_id, row,
                                         client_token if ok else None))
        return bool(added)

    def add_llm_calls(self, dataset: Dataset, rows: Sequence[Mapping[str, Any]],
                      output_token: str | None = None) -> int:
        """Append call rows (one transaction); ``output_token`` links the ok ones to the
        label or vote they produced (a failed row never gets it).  Returns rows added."""
        values = [_values(dataset.dataset_id, row, output_token) for row in rows]
        if values:
            with self.backend.transaction() as cur:
                cur.executemany(_INSERT, values)
        return len(values)

    def llm_done(self, dataset: Dataset, judge: str, kind: str,
                 prompt_version: str | None = None) -> set[tuple[str, ...]]:
        """The item keys ``judge`` already answered (a call row linked to a stored label or
        vote), for resuming: ``(query_id, doc_id)`` for grades, ``(query_id, run_a, run_b)``
        for preferences; only answers to ``prompt_version`` when given."""
        if kind not in KINDS:
            raise SxsError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
        frame = self.backend.frame("""
            SELECT DISTINCT query_id, doc_id, run_a, run_b FROM llm_calls
            WHERE dataset_id = ? AND judge = ? AND kind = ? AND output_token IS NOT NULL
              AND (CAST(? AS TEXT) IS NULL OR prompt_version = ?)""",
                            [dataset.dataset_id, judge, kind, prompt_version, prompt_version])
        columns = ["query_id", "doc_id"] if kind == "grade" else ["query_id", "run_a", "run_b"]
        return {tuple(str(v) for v in key) for key in frame[columns].itertuples(index=False)}

    def llm_calls(self, dataset: Dataset, judge: str | None = None,
                  kinds: Iterable[str] = KINDS) -> pd.DataFrame:
        """Every call row (all of :data:`_COLUMNS` but dataset_id, with call_id and
        recorded_at), oldest first; only ``judge``'s when given."""
        kinds = [k for k in kinds if k in KINDS]
        sql = f"""SELECT call_id, {", ".join(_COLUMNS[1:-1])}, recorded_at, output_token
                  FROM llm_calls WHERE dataset_id = ? AND list_contains(?, kind)"""
        params: list = [dataset.dataset_id, kinds]
        if judge is not None:
            sql += " AND judge = ?"
            params.append(judge)
        return self.backend.frame(sql + " ORDER BY call_id", params)

    def llm_call_counts(self, dataset: Dataset) -> pd.DataFrame:
        """Per LLM judge and task: calls, failed calls, answers stored, tokens, the last
        call's time (judge, kind, calls, failed, answered, prompt_tokens,
        completion_tokens, last_asked_at) — what the admin page polls."""
        return self.backend.frame("""
            SELECT judge, kind, count(*) AS calls,
                   count(*) FILTER (WHERE failure IS NOT NULL) AS failed,
                   count(DISTINCT output_token) AS answered,
                   sum(prompt_tokens) AS prompt_tokens,
                   sum(completion_tokens) AS completion_tokens,
                   max(asked_at) AS last_asked_at
            FROM llm_calls WHERE dataset_id = ?
            GROUP BY judge, kind ORDER BY judge, kind""", [dataset.dataset_id])
