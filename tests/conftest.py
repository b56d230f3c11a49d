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
