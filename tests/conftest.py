"""Shared fixtures."""

from __future__ import annotations

import pandas as pd
import pytest
from hypothesis import settings

from tests.generated import random_collection

# No test asserts a timing: Hypothesis' per-example deadline is one, and a loaded CI machine
# trips it for no fault of the code.
settings.register_profile("sxs", deadline=None)
settings.load_profile("sxs")



@pytest.fixture(scope="session")
def collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    return random_collection(seed=3)


# -- the two store backends ----------------------------------------------------------------

@pytest.fixture(scope="session")
def postgres_cluster():
    """The session's PostgreSQL cluster (see tests/postgres.py), or None."""
    from tests.postgres import session_cluster

    with session_cluster() as cluster:
        yield cluster


@pytest.fixture
def postgres_address(request):
    """A fresh PostgreSQL database holding an empty, migrated store (skips without one)."""
    from tests.postgres import require

    cluster = require(request.getfixturevalue("postgres_cluster"))
    address = cluster.fresh()
    yield address
    cluster.drop(address)


@pytest.fixture(params=["duckdb", "postgresql"])
def store_address(request, tmp_path):
    """A new store's address on each backend: a DuckDB file, a PostgreSQL database."""
    if request.param == "duckdb":
        yield tmp_path / "s.duckdb"
    else:
        yield request.getfixturevalue("postgres_address")
