"""Compressed input files, told apart by their last suffix: ``.gz`` (gzip), ``.bz2`` (bzip2),
``.zst`` (Zstandard).  Any reader can open such a file as a stream of plain bytes.  (DuckDB
reads gzip and zstd itself, but reads a truncated gzip file's first lines without an error,
so the bulk loader decompresses here, where a damaged file is an error.)

Zstandard in Python needs the optional ``zstandard`` package (``pip install sxs[compression]``);
without it a ``.zst`` file is a one-line :class:`~judge_app.errors.InputError`.

A compressed file may expand to far more than it weighs (a 1.1 MB ``.gz`` of zeros is 1.17 GB):
every decompressed stream is capped at ``SXS_MAX_EXPANDED_MB`` megabytes (default
:data:`DEFAULT_MAX_EXPANDED_MB`, 1024), and reading past the cap is an
:class:`~judge_app.errors.InputError` naming the file and the cap, raised as soon as the cap is
passed (nothing past it is read or written).  :func:`expanded` decompresses a file once into
a temporary copy, after a check of its first :data:`HEAD_BYTES` (1 MB) of lines, so that a
format check refuses a bomb before most of it is expanded, and the expansion happens before
any store transaction.
"""

from __future__ import annotations

import bz2
import gzip
import io
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

from judge_app.errors import InputError, SxsError

COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bzip2", ".zst": "zstd",
                ".zstd": "zstd"}


def compression_of(path: str | Path) -> str | None:
    """``gzip``, ``bzip2`` or ``zstd`` from the file's last suffix, else None."""
    return COMPRESSIONS.get(Path(path).suffix.lower())


def plain_name(path: str | Path) -> Path:
    """The file's name without its compression suffix: ``run.txt.gz`` -> ``run.txt``."""
    path = Path(path)
    return path.with_suffix("") if compression_of(path) else path


MAX_EXPANDED_ENV = "SXS_MAX_EXPANDED_MB"
DEFAULT_MAX_EXPANDED_MB = 1024
HEAD_BYTES = 1 << 20
"""How much of a decompressed file :func:`expanded` checks before expanding the rest."""


def max_expanded_mb() -> int:
    """The cap on a decompressed file, in MB (2**20 bytes): ``SXS_MAX_EXPANDED_MB``, else
    1024; a value that is not a whole number of at least 1 is an
    :class:`~judge_app.errors.SxsError` naming the setting."""
    text = os.environ.get(MAX_EXPANDED_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_EXPANDED_MB
    if not text.isdigit() or int(text) < 1:
        raise SxsError(f"{MAX_EXPANDED_ENV} must be a whole number of megabytes, at least 1; "
                       f"got {text!r}")
    return int(text)


def too_large(source: str, cap_mb: int) -> InputError:
    """The one line refusing a file that expands past the cap."""
    return InputError(source, f"expands to more than {cap_mb:,} MB when decompressed, the "
                      f"limit ({MAX_EXPANDED_ENV}); refused before reading the rest")


class _Capped(io.RawIOBase):
    """A decompressed stream that raises :func:`too_large` once more than the cap is read."""

    def __init__(self, inner: BinaryIO, source: str, cap_mb: int) -> None:
        self._inner, self._source, self._cap_mb = inner, source, cap_mb
        self._left = cap_mb * 2**20

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:  # type: ignore[override]
        view = memoryview(buffer).cast("B")
        data = self._inner.read(min(len(view), self._left + 1))
        if len(data) > self._left:
            raise too_large(self._source, self._cap_mb)
        self._left -= len(data)
        view[:len(data)] = data
        return len(data)

    def close(self) -> None:
        self._inner.close()
        super().close()


def open_decompressed(path: str | Path) -> BinaryIO:
    """The file's bytes, decompressed by its suffix (plain files open as they are); a
    compressed file's stream stops with :func:`too_large` past :func:`max_expanded_mb`."""
    path = Path(path)
    kind = compression_of(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    if kind is None:
        return path.open("rb")
    cap = max_expanded_mb()
    if kind == "gzip":
        inner: BinaryIO = gzip.open(path, "rb")  # type: ignore[assignment]  # noqa: SIM115
    elif kind == "bzip2":
        inner = bz2.open(path, "rb")  # type: ignore[assignment]  # noqa: SIM115
    else:
        try:
            import zstandard
        except ImportError:
            raise InputError(str(path), "reading .zst files here needs the zstandard package "
                             "(pip install 'sxs[compression]')") from None
        inner = zstandard.ZstdDecompressor().stream_reader(  # type: ignore[assignment]
            path.open("rb"), closefd=True)
    return io.BufferedReader(_Capped(inner, str(path), cap), 1 << 20)  # type: ignore[return-value]


def decompress_to(path: str | Path, target: Path,
                  check_head: Callable[[bytes, bool], None] | None = None) -> Path:
    """Write the decompressed bytes of ``path`` to ``target`` (streamed, constant memory, at
    most the cap).  ``check_head(head, whole)`` sees the first :data:`HEAD_BYTES` first
    (``whole``: that is the whole file) and raises to refuse the file before the rest is
    expanded; on any refusal ``target`` is removed."""
    source = str(path)
    try:
        with open_decompressed(path) as stream, target.open("wb") as out:
            head = stream.read(HEAD_BYTES)
            if check_head is not None:
                more = stream.read(1)
                check_head(head, not more)
                head += more
            out.write(head)
            shutil.copyfileobj(stream, out, 1 << 22)
    except InputError:
        target.unlink(missing_ok=True)
        raise
    except Exception as error:  # gzip, bz2 and zstandard each raise their own types
        target.unlink(missing_ok=True)
        raise InputError(source, f"cannot decompress the file ({error})") from None
    return target


@contextmanager
def expanded(path: str | Path, check_head: Callable[[bytes, bool], None] | None = None
             ) -> Iterator[Path | None]:
    """A decompressed temporary copy of a compressed file (:func:`decompress_to`, removed on
    the way out), or None for a plain file: expand once, before any store transaction."""
    if compression_of(path) is None:
        yield None
        return
    with tempfile.TemporaryDirectory(prefix="sxs-expand-") as folder:
        yield decompress_to(path, Path(folder) / plain_name(path).name, check_head)
