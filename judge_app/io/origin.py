"""Where an imported grade came from, as the store records it and exports show it: the file's
name and the SHA-256 of its bytes (``qrels.txt sha256:<64 hex>``), never the folder it sat in
on the server (a path under the install folder or a user's home says nothing to whoever
reads the export, and tells them about the server).

* :func:`file_origin` is what an import records (dataset judgments, replaced grades);
* :func:`shown_origin` is what an export writes: a recorded origin as it is; a value stored
  before origins were recorded so (a path) only its last part, the file's name (``/`` and
  ``\\`` both separate).  An origin read back from an export is stored as written, so an
  export imported again exports the same text.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

_RECORDED = re.compile(r" sha256:[0-9a-f]{64}\Z")
CHUNK = 2**20


def file_origin(path: str | Path) -> str:
    """``<file name> sha256:<hex digest of the file's bytes>``."""
    path = Path(path)
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(CHUNK), b""):
            digest.update(block)
    return f"{path.name} sha256:{digest.hexdigest()}"


def shown_origin(origin: object) -> object:
    """The origin as exports write it (see the module); a missing or empty value as it is."""
    if not isinstance(origin, str) or not origin or _RECORDED.search(origin):
        return origin
    return re.split(r"[\\/]", origin.rstrip("\\/"))[-1] or origin
