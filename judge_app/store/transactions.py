"""One DuckDB transaction on a cursor: BEGIN, then COMMIT when the block ends, ROLLBACK when
it raises (anything, KeyboardInterrupt included), so nothing is half-written."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import duckdb


@contextmanager
def transaction_on(cur: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """``cur`` inside a transaction that commits if the block ends and rolls back if not."""
    cur.execute("BEGIN TRANSACTION")
    try:
        yield cur
        cur.execute("COMMIT")
    except BaseException:
        cur.execute("ROLLBACK")
        raise
