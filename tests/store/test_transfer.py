"""Moving a whole store between backends (issue 15): the demo store copied DuckDB →
PostgreSQL → DuckDB keeps every row of every table; sequences go on where they stood;
backups and restores of a PostgreSQL store; copies refuse to merge."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.errors import SxsError
from judge_app.services import backups
from judge_app.services.demo import build_demo_store
from judge_app.services.transfer import copy_store
from judge_app.store import Store
from metrics import ESCI


def table_rows(store: Store) -> dict[str, list[tuple]]:
    """Every table's rows, sorted, values normalised (NULL as None, times in UTC)."""
    out = {}
    for table in store.table_names():
        frame = store.backend.frame(f'SELECT * FROM "{table}"')
        if table == "sxs_migrations":
            frame = frame[["name"]]
        rows = []
        for record in frame.astype(object).itertuples(index=False):
            rows.append(tuple(_plain(v) for v in record))
        out[table] = sorted(rows, key=repr)
    return out


def _plain(value: object) -> object:
    if value is None or (not isinstance(value, (list, tuple, dict)) and pd.isna(value)):
        return None
    if isinstance(value, pd.Timestamp):
        return value.tz_convert("UTC").isoformat()
    if hasattr(value, "item"):
        return value.item()
    return value


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    with Store(path) as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        store.typed_judge("ann")
        store.set_round(dataset, "title", "bm25", 5, 2, True, "admin")
        view = store.issue_view(dataset, "1", "title", "bm25", "bm25", 5, "ann", True, 2)
        store.cast_vote(dataset, view.view_id, "left", "ann", "clearer")
        store.add_expert_label(dataset, "1", "184", 2, "ann", "t-1", note="ok")
    return path


def test_the_demo_goes_to_postgresql_and_back_with_every_row(
        demo_file: Path, postgres_address: str, tmp_path: Path) -> None:
    back = tmp_path / "back.duckdb"
    there = copy_store(demo_file, postgres_address)
    again = copy_store(postgres_address, back)
    assert there.counts == again.counts
    with Store(demo_file) as original, Store(postgres_address) as middle, \
            Store(back) as returned:
        expected = table_rows(original)
        assert expected["preferences"] and expected["run_results"]  # the demo has data
        assert table_rows(middle) == expected
        assert table_rows(returned) == expected
        assert middle.sequence_positions() == original.sequence_positions()
        assert returned.sequence_positions() == original.sequence_positions()
        # ids go on where they stood: a new label gets the next one on every backend
        for store in (middle, returned):
            store.add_expert_label(store.dataset("cranfield"), "2", "d", 1, "ann", "t-2")
            history = store.expert_label_history(store.dataset("cranfield"))
            assert history["label_id"].max() == original.sequence_positions()["label_ids"]


def test_a_copy_never_merges_into_a_store_with_rows(demo_file: Path,
                                                    postgres_address: str) -> None:
    with Store(postgres_address) as store:
        store.create_dataset("p", ESCI)
    with pytest.raises(SxsError, match="not empty"):
        copy_store(demo_file, postgres_address)
    with pytest.raises(SxsError, match="exists"):
        copy_store(postgres_address, demo_file)


def test_sxs_copy_and_backup_and_restore_of_a_postgresql_store(
        demo_file: Path, postgres_address: str, tmp_path: Path, postgres_cluster) -> None:
    runner = CliRunner()
    copied = runner.invoke(main, ["copy", "--from", str(demo_file), "--to", postgres_address])
    assert copied.exit_code == 0, copied.output
    assert "copied" in copied.output
    backup = tmp_path / "pg.sxs-backup"
    done = runner.invoke(main, ["backup", str(backup), "--db", postgres_address])
    assert done.exit_code == 0, done.output
    target = postgres_cluster.fresh()
    try:
        restored = runner.invoke(main, ["restore", str(backup), "--db", target])
        assert restored.exit_code == 0, restored.output
        with Store(demo_file) as original, Store(target) as store:
            assert table_rows(store) == table_rows(original)
        assert backups.backup_counts(backup)["run_results"] > 0
    finally:
        postgres_cluster.drop(target)
