"""The label store: the only SQL, one backend seam (DuckDB by default, PostgreSQL for teams),
one repository module per concept behind the :class:`Store` facade."""

from judge_app.store.model import DEFAULT_DB, Dataset, default_db_path
from judge_app.store.store import Store

__all__ = ["DEFAULT_DB", "Dataset", "Store", "default_db_path"]
