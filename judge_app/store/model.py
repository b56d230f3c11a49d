"""The store's plain records and addresses: what a dataset is, and where a store lives.

A store address is a DuckDB file's path (the default, ``./sxs.duckdb`` or ``$SXS_DB``) or a
``postgresql://…`` URL (a server shared by many ``sxs serve`` replicas).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from judge_app.addresses import describe_address, is_postgres
from judge_app.errors import NotFound, SxsError
from judge_app.policies import LABEL_BASES
from metrics.scale import GradeScale

DEFAULT_DB = "sxs.duckdb"
EXPERTS = LABEL_BASES[0]  # the default label basis: people only

StoreAddress = Path | str  # a DuckDB file, or a postgresql:// address


@dataclass(frozen=True)
class Dataset:
    """A dataset of the store: its id, its name and its grade scale."""

    dataset_id: int
    name: str
    scale: GradeScale


def store_address(value: str | Path) -> StoreAddress:
    """A store address as given: ``postgresql://…`` (or ``postgres://…``) stays a string, any
    other value is a DuckDB file's path."""
    text = str(value)
    for prefix in ("postgresql:/", "postgres:/"):  # a Path() folds the double slash
        if text.startswith(prefix) and not text.startswith(prefix + "/"):
            text = prefix + "/" + text[len(prefix):]
    if is_postgres(text):
        return text
    if re.match(r"(?i)(md|motherduck):|[a-z][a-z0-9+.-]+:/", text):
        raise SxsError(f"{describe_address(text)}: not a store address sxs knows (a DuckDB "
                       "file's path, or postgresql://…); DuckDB's own remote addresses would "
                       "download an extension")
    return Path(value)


def default_db_path() -> StoreAddress:
    """``$SXS_DB`` if set, else ``./sxs.duckdb``."""
    return store_address(os.environ.get("SXS_DB", DEFAULT_DB))


def require_store(path: StoreAddress) -> None:
    """:class:`~judge_app.errors.NotFound` (one line) unless a store file is at ``path``
    (a PostgreSQL database is created by ``sxs init`` or ``sxs demo`` too)."""
    if isinstance(path, str):
        return
    if not path.exists():
        raise NotFound(f"no store at {path}; create one with sxs init or sxs demo")


def check_basis(basis: str) -> str:
    """A label basis checked against :data:`~judge_app.policies.LABEL_BASES`."""
    if basis not in LABEL_BASES:
        raise SxsError(f"label basis must be one of {', '.join(LABEL_BASES)}; got {basis!r}")
    return basis
