"""``sxs copy``: a whole store into a new one, either backend to either (DuckDB file ↔
PostgreSQL); see :mod:`judge_app.store.transfer` for how the rows move."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from judge_app.addresses import describe_address
from judge_app.errors import SxsError
from judge_app.store import Store
from judge_app.store.model import StoreAddress, require_store


@dataclass(frozen=True)
class CopyReport:
    source: str
    target: str
    counts: dict[str, int]
    seconds: float

    def __str__(self) -> str:
        return (f"copied {self.source} into {self.target}: {len(self.counts)} tables, "
                f"{sum(self.counts.values()):,} rows ({self.seconds:.1f} s)")


def copy_store(source: StoreAddress, target: StoreAddress) -> CopyReport:
    """Copy every row of the store at ``source`` into a new (or empty) store at ``target``;
    a DuckDB target file must not exist yet.  The source is migrated first."""
    start = time.perf_counter()
    require_store(source)
    if isinstance(target, Path) and target.exists():
        raise SxsError(f"{target} exists: copy writes a new store only; name another --to")
    if str(source) == str(target):
        raise SxsError("--from and --to are the same store")
    try:
        with Store(source, create=False) as origin, Store(target) as copy:
            counts = origin.copy_rows_into(copy)
    except BaseException:
        if isinstance(target, Path):
            for path in (target, target.with_name(target.name + ".wal")):
                path.unlink(missing_ok=True)
        raise
    return CopyReport(describe_address(source), describe_address(target), counts,
                      time.perf_counter() - start)
