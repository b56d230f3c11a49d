"""File names made from names users give (datasets, runs, judges): safe on every system.

A dataset named ``../../x``, ``a/b``, ``C:\\x``, ``NUL`` or ``.bashrc`` must never turn into a
path that leaves the folder it is written to, hides itself, or is refused by Windows.  Every
place that turns such a name into a path goes through :func:`safe_file_name` (and, to write,
:func:`path_inside`, which also checks the result stays in its folder).

Rules of :func:`safe_file_name`:

* Unicode is normalised (NFKC), so look-alikes such as the fullwidth solidus (U+FF0F) become the
  characters they stand for before the next rule;
* letters and digits of any script, ``-``, ``_`` and ``.`` stay; every other character (path
  separators, NUL and other controls, ``: * ? " < > |``, blanks) becomes ``_``, runs of ``_``
  collapse to one;
* leading and trailing dots, ``_`` and blanks go (no hidden file, no ``..``, no trailing dot
  Windows would drop);
* a Windows device name (``CON``, ``PRN``, ``AUX``, ``NUL``, ``COM0-9``, ``LPT0-9``, any case,
  with or without an extension) gets a leading ``_``;
* at most :data:`MAX_BYTES` bytes of UTF-8 (file systems allow 255), cut on a character;
* an empty result is ``fallback``.

Two different names can map to one file name (``a/b`` and ``a_b``): a file name is for a
person to recognise, never a key.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

MAX_BYTES = 120
_UNSAFE = re.compile(r"(?:[^\w.\-]|_)+", re.UNICODE)
_RESERVED = re.compile(r"^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$", re.IGNORECASE)


def safe_file_name(name: str, fallback: str = "export") -> str:
    """``name`` as one file name that is safe on Linux, macOS and Windows (see the module)."""
    text = unicodedata.normalize("NFKC", str(name))
    text = _UNSAFE.sub("_", text).strip("._ ")
    if _RESERVED.match(text.split(".", 1)[0]):
        text = f"_{text}"
    encoded = text.encode("utf-8")[:MAX_BYTES]
    text = encoded.decode("utf-8", errors="ignore").rstrip("._ ")
    return text or fallback


def path_inside(folder: Path, name: str, suffix: str = "", fallback: str = "export") -> Path:
    """``folder / (safe_file_name(name) + suffix)``, checked to lie directly in ``folder``."""
    path = Path(folder) / f"{safe_file_name(name, fallback)}{suffix}"
    if path.resolve().parent != Path(folder).resolve():
        raise ValueError(f"file name {name!r} would leave {folder}")  # cannot happen: a bug
    return path
