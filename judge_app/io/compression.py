"""Compressed input files, told apart by their last suffix: ``.gz`` (gzip), ``.bz2`` (bzip2),
``.zst`` (Zstandard).  Any reader can open such a file as a stream of plain bytes.  (DuckDB
reads gzip and zstd itself, but reads a truncated gzip file's first lines without an error,
so the bulk loader decompresses here, where a damaged file is an error.)

Zstandard in Python needs the optional ``zstandard`` package (``pip install sxs[compression]``);
without it a ``.zst`` file is a one-line :class:`~judge_app.errors.InputError`.
"""

from __future__ import annotations

import bz2
import gzip
import io
import shutil
from pathlib import Path
from typing import BinaryIO

from judge_app.errors import InputError

COMPRESSIONS = {".gz": "gzip", ".gzip": "gzip", ".bz2": "bzip2", ".zst": "zstd",
                ".zstd": "zstd"}


def compression_of(path: str | Path) -> str | None:
    """``gzip``, ``bzip2`` or ``zstd`` from the file's last suffix, else None."""
    return COMPRESSIONS.get(Path(path).suffix.lower())


def plain_name(path: str | Path) -> Path:
    """The file's name without its compression suffix: ``run.txt.gz`` -> ``run.txt``."""
    path = Path(path)
    return path.with_suffix("") if compression_of(path) else path


def open_decompressed(path: str | Path) -> BinaryIO:
    """The file's bytes, decompressed by its suffix (plain files open as they are)."""
    path = Path(path)
    kind = compression_of(path)
    if not path.is_file():
        raise InputError(str(path), "no such file")
    if kind == "gzip":
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if kind == "bzip2":
        return bz2.open(path, "rb")  # type: ignore[return-value]
    if kind == "zstd":
        try:
            import zstandard
        except ImportError:
            raise InputError(str(path), "reading .zst files here needs the zstandard package "
                             "(pip install 'sxs[compression]')") from None
        return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(  # type: ignore[arg-type]
            path.open("rb"), closefd=True))
    return path.open("rb")


def decompress_to(path: str | Path, target: Path) -> Path:
    """Write the decompressed bytes of ``path`` to ``target`` (streamed, constant memory)."""
    source = str(path)
    try:
        with open_decompressed(path) as stream, target.open("wb") as out:
            shutil.copyfileobj(stream, out, 1 << 22)
    except InputError:
        raise
    except Exception as error:  # gzip, bz2 and zstandard each raise their own types
        raise InputError(source, f"cannot decompress the file ({error})") from None
    return target
