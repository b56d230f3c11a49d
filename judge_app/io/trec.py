"""TREC formats: qrels ``qid 0 docid grade``, runs ``qid Q0 docid rank score tag``, and
SMART/Glasgow relevance files ``qid docid 0 0.000000`` (CISI, CACM, ADI, MEDLINE).

Fields are separated by runs of whitespace (space, tab, vertical tab, form feed; a CR before
the newline is whitespace too), as trec_eval reads them: never CSV quoting, so an id starting
with ``"`` is an id like any other.  There is no header; blank lines are skipped.  Files may be
compressed (``.gz``, ``.bz2``, ``.zst``).

The readers of :mod:`judge_app.store.trec_readers` parse these files natively in
DuckDB; this module holds the format's vocabulary, the error-path helpers that name a line,
and the writer.
"""

from __future__ import annotations

import codecs
import mmap
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from judge_app.errors import InputError, SxsError
from judge_app.io.compression import HEAD_BYTES, expanded, open_decompressed, plain_name
from judge_app.io.formats import QRELS_FORMATS, SMART
from judge_app.io.ids import id_normalization
from judge_app.io.nul import NUL, nul_error
from judge_app.io.origin import file_origin

WHITESPACE = " \t\v\f\r"
"""The characters that separate fields (C's ``isspace`` without the newline)."""

"""``trec``: qid iteration docid grade; ``smart``: qid docid 0 0 (listed means relevant);
``auto``: SMART when columns 3 and 4 are zero on every line, else TREC."""

RUN_FIELDS = ("query_id", "q0", "doc_id", "rank", "score", "tag")
QRELS_FIELDS = ("query_id", "iteration", "doc_id", "grade")
SMART_FIELDS = ("query_id", "doc_id")
"""The fields of a SMART relevance file named (the two zeros after them are not)."""
SMART_GRADE = 1
"""The grade a SMART file's listed (query, doc) pairs get: relevant, on a binary scale."""


@dataclass(frozen=True)
class TrecFile:
    """A TREC qrels or run file to load: its path, for qrels the format, and the id
    normalisation to apply to its query and doc ids (:mod:`judge_app.io.ids`; None: as
    written); ``plain``: the compressed file's expanded copy (:func:`expanded_trec`), read
    in its place."""

    path: Path
    qrels_format: str = "auto"
    normalize_ids: str | None = None
    plain: Path | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "normalize_ids", id_normalization(self.normalize_ids))
        if self.qrels_format not in QRELS_FORMATS:
            raise InputError(str(self.path), f"unknown qrels format {self.qrels_format!r}; "
                             f"use one of {', '.join(QRELS_FORMATS)}")

    @property
    def source(self) -> str:
        return str(self.path)

    @property
    def origin(self) -> str:
        """What the store records as the judgments' origin (:func:`file_origin`)."""
        return file_origin(self.path)

    @property
    def stem(self) -> str:
        """The file name without compression and format suffixes (a run's fallback name)."""
        return plain_name(self.path).stem


def fields_of(trec: TrecFile, run: bool) -> tuple[str, ...]:
    """The names of a line's fields as the precise reader counts them: a run's six, a
    qrels line's four (a SMART file's two named, then its two zeros)."""
    if run:
        return RUN_FIELDS
    return (*SMART_FIELDS, "column 3", "column 4") if trec.qrels_format == SMART \
        else QRELS_FIELDS


def first_lines_check(source: str, fields: tuple[str, ...]) -> Callable[[bytes, bool], None]:
    """A check of a TREC file's first :data:`~judge_app.io.compression.HEAD_BYTES` of
    decompressed bytes (``check(head, whole)``), made before the rest is expanded: each
    complete line (blank ones skipped) has ``len(fields)`` fields split on runs of
    whitespace and no NUL, and some line ends within the head — else one line naming the
    line and field, as the precise reader would.  Bytes that are not UTF-8 are left to the
    reader."""
    want = len(fields)

    def check(head: bytes, whole: bool) -> None:
        if head.startswith(codecs.BOM_UTF8):
            head = head[len(codecs.BOM_UTF8):]
        end = len(head) if whole else head.rfind(b"\n") + 1
        if end == 0 and head:
            text = head.decode("utf-8", errors="replace")
            if NUL in text:
                raise nul_field_error(source, 1, text, fields)
            raise InputError(source, f"no line ends within the first {HEAD_BYTES // 2**20} "
                             "MB: not a TREC file", line=1)
        lines = head[:end].decode("utf-8", errors="replace").split("\n")
        for number, line in enumerate(lines, start=1):
            if NUL in line:
                raise nul_field_error(source, number, line, fields)
            stripped = line.strip(WHITESPACE)
            if not stripped:
                continue
            found = len(re.split(f"[{re.escape(WHITESPACE)}]+", stripped))
            if found != want:
                raise InputError(source, f"expected {want} fields, found {found}",
                                 line=number, field=fields[found] if found < want else None)

    return check


@contextmanager
def expanded_trec(trec: TrecFile, run: bool) -> Iterator[TrecFile]:
    """The TREC file with a compressed file expanded once, into a temporary copy read in its
    place (removed on the way out), its first lines checked first
    (:func:`first_lines_check`) and its size capped
    (:func:`~judge_app.io.compression.expanded`); a plain file as it is.  Done before the
    store's transaction, so a bomb never holds the store."""
    with expanded(trec.path, first_lines_check(trec.source, fields_of(trec, run))) as plain:
        yield trec if plain is None else replace(trec, plain=plain)


def check_file(path: Path) -> None:
    """InputError for a missing file or one of zero bytes."""
    if not path.is_file():
        raise InputError(str(path), "no such file")
    if path.stat().st_size == 0:
        raise InputError(str(path), "the file is empty")


def plain_layout(path: Path) -> bool:
    """Whether the (uncompressed) file separates fields with spaces only: no tab, vertical
    tab or form feed anywhere, and carriage returns only as every line's CRLF ending.  Such
    a file reads the same split on single spaces as split on runs of whitespace, so the
    store's fast reader may take it.  Nor a NUL byte, which the precise reader refuses
    naming the line and field (:func:`nul_field_error`).  A byte search over the mapped file
    (``memchr``, no copy); files holding a carriage return are then read in blocks."""
    if path.stat().st_size == 0:
        return True
    try:
        with path.open("rb") as handle, mmap.mmap(handle.fileno(), 0,
                                                  access=mmap.ACCESS_READ) as whole:
            if any(whole.find(byte) >= 0 for byte in _NOT_PLAIN):
                return False
            if whole.find(b"\r") < 0:
                return True
    except (OSError, ValueError):  # a file that cannot be mapped: read in blocks
        pass
    returns = 0
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            if any(byte in block for byte in _NOT_PLAIN):
                return False
            returns += block.count(b"\r")
    return returns == 0 or returns == _crlf_endings(path)


NOT_PLAIN = "\t\v\f\0"
"""Characters that send a file to the precise reader wherever they stand (a carriage return
too, unless it ends every line: :func:`plain_layout`)."""
_NOT_PLAIN = tuple(c.encode() for c in NOT_PLAIN)


def _crlf_endings(path: Path) -> int:
    """How many line ends are CRLF, or -1 when some line ends with a bare LF (a second pass,
    only for a file that holds a carriage return)."""
    pairs = newlines = 0
    previous = b""
    with path.open("rb") as handle:
        while block := handle.read(_BLOCK):
            pairs += block.count(b"\r\n") + (previous == b"\r" and block[:1] == b"\n")
            newlines += block.count(b"\n")
            previous = block[-1:]
    return pairs if pairs == newlines else -1


_BLOCK = 1 << 24


def bad_bytes_error(path: Path, line: int | None = None) -> InputError:
    """The error for bytes that are not UTF-8: scans the (decompressed) file for the first
    bad byte and names its line; error path only."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    number = 1
    with open_decompressed(path) as stream:
        for raw in stream:
            try:
                decoder.decode(raw)
            except UnicodeDecodeError as error:
                byte = raw[error.start] if error.start < len(raw) else raw[-1]
                return InputError(str(path), f"byte 0x{byte:02x} is not UTF-8 text "
                                  "(save the file as UTF-8)", line=number)
            number += raw.count(b"\n")
        try:
            decoder.decode(b"", final=True)
        except UnicodeDecodeError:
            return InputError(str(path), "the file ends inside a UTF-8 character",
                              line=number)
    return InputError(str(path), "bytes that are not UTF-8 text (save the file as UTF-8)",
                      line=line)


def nul_field_error(source: str, line: int, text: str, fields: tuple[str, ...]
                    ) -> InputError:
    """The one line refusing a NUL on ``line`` (its ``text``), naming the field it is in
    among ``fields`` (a run's or a qrels' field names; none named past them)."""
    parts = re.split(f"[{re.escape(WHITESPACE)}]+", text.strip(WHITESPACE))
    index = next(i for i, part in enumerate(parts) if NUL in part)
    return nul_error(source, line, fields[index] if index < len(fields) else None)


def smart_scale_error(source: str, scale_description: str) -> InputError:
    """The one line refusing a SMART file for a dataset whose scale is not binary."""
    return InputError(source, "a SMART relevance file lists relevant pairs only, stored as "
                      f"grade {SMART_GRADE} on a binary scale, but the dataset's scale is "
                      f"{scale_description}: import it into a dataset created with "
                      "--scale binary")


SMART_ASSUMPTION = ("read as a SMART relevance file (qid docid 0 0): every listed pair is "
                    f"relevant, grade {SMART_GRADE}; pass --format trec to read it as TREC "
                    "qrels")


def _has_whitespace(values: pd.Series) -> pd.Series:
    pattern = "[" + "".join(f"\\x{ord(c):02x}" for c in WHITESPACE + "\n") + "]"
    return values.astype(str).str.contains(pattern, regex=True) | (values.astype(str) == "")


def _fields(frame: pd.DataFrame, columns: tuple[str, ...], replace_whitespace: str | None
            ) -> dict[str, pd.Series]:
    """The id-like ``columns`` of ``frame`` as text one TREC field each: refused (one line
    naming the first and how many) when one holds whitespace or is empty, unless
    ``replace_whitespace`` gives one visible character to put in place of each whitespace
    character."""
    if replace_whitespace is not None and (len(replace_whitespace) != 1
                                           or replace_whitespace in WHITESPACE + "\n"
                                           or not replace_whitespace.isprintable()):
        raise SxsError(f"--replace-whitespace takes one visible character, not "
                       f"{replace_whitespace!r}")
    ids = {c: frame[c].astype(str) for c in columns}
    if replace_whitespace is not None:
        table = str.maketrans({c: replace_whitespace for c in WHITESPACE + "\n"})
        ids = {k: v.str.translate(table) for k, v in ids.items()}
    bad = pd.concat([v[_has_whitespace(v)] for v in ids.values()])
    if len(bad):
        count = int(bad.nunique())
        raise SxsError(f"id {bad.iloc[0]!r} holds whitespace (or is empty), which a TREC file "
                       f"cannot hold ({count} such id{'s' if count != 1 else ''}); pass "
                       "--replace-whitespace CHAR, or export csv or parquet instead")
    return ids


def write_qrels(frame: pd.DataFrame, path: str | Path, replace_whitespace: str | None = None
                ) -> int:
    """Write (query_id, doc_id, grade) as TREC qrels, sorted by query then doc; returns rows.

    An id holding whitespace (or an empty id) would not read back as one field, so it is
    refused with one line naming the first such id and how many there are, unless
    ``replace_whitespace`` gives one visible character to put in place of each whitespace
    character.  Nothing is written when the frame is refused.
    """
    ids = _fields(frame, ("query_id", "doc_id"), replace_whitespace)
    out = pd.DataFrame({"query_id": ids["query_id"], "doc_id": ids["doc_id"],
                        "grade": frame["grade"].astype(int)})
    if replace_whitespace is not None and out.duplicated(["query_id", "doc_id"]).any():
        first = out[out.duplicated(["query_id", "doc_id"])].iloc[0]
        raise SxsError(f"replacing whitespace with {replace_whitespace!r} makes query "
                       f"{first['query_id']!r}, doc {first['doc_id']!r} appear twice; pick "
                       "another character")
    ordered = out.sort_values(["query_id", "doc_id"], kind="stable")
    text = "".join(f"{q} 0 {d} {g}\n" for q, d, g in zip(
        ordered["query_id"], ordered["doc_id"], ordered["grade"], strict=True))
    Path(path).write_text(text, encoding="utf-8", newline="\n")
    return len(ordered)


def write_run(frame: pd.DataFrame, path: str | Path, tag: str,
              replace_whitespace: str | None = None) -> int:
    """Write a run (query_id, doc_id, rank, score) as TREC run lines ``qid Q0 docid rank
    score tag`` (six fields, :data:`RUN_FIELDS`), by query then rank; returns rows.

    Scores are written exactly (``repr``), so the file's order under trec_eval's rule (score
    descending, then doc id descending) is the stored ranking whenever the stored scores
    gave it; a run stored without scores (a logged ranking) gets score ``-rank``, so its
    order is its ranking.  Ids and the tag holding whitespace are refused as in
    :func:`write_qrels` (or replaced with ``replace_whitespace``); nothing is written then.
    """
    named = frame.assign(tag=tag)
    ids = _fields(named, ("query_id", "doc_id", "tag"), replace_whitespace)
    rank = frame["rank"].astype("int64")
    score = pd.to_numeric(frame["score"], errors="coerce").astype(float)
    score = score.where(score.notna(), -rank.astype(float))
    ordered = pd.DataFrame({"query_id": ids["query_id"], "doc_id": ids["doc_id"],
                            "rank": rank, "score": score, "tag": ids["tag"]}).sort_values(
        ["query_id", "rank"], kind="stable")
    text = "".join(f"{q} Q0 {d} {r} {s!r} {t}\n" for q, d, r, s, t in zip(
        ordered["query_id"], ordered["doc_id"], ordered["rank"], ordered["score"].map(float),
        ordered["tag"], strict=True))
    Path(path).write_text(text, encoding="utf-8", newline="\n")
    return len(ordered)
