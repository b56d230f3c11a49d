"""Shared fixtures."""

from __future__ import annotations

import pandas as pd
import pytest

from tests.generated import random_collection


@pytest.fixture(scope="session")
def collection() -> tuple[pd.DataFrame, pd.DataFrame]:
    return random_collection(seed=3)
