"""The label store: one embedded DuckDB file, its schema and migrations, and the only SQL."""

from judge_app.store.store import (
    DEFAULT_DB,
    Dataset,
    Store,
    default_db_path,
)

__all__ = ["DEFAULT_DB", "Dataset", "Store", "default_db_path"]
