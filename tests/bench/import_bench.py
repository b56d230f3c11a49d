"""Benchmark: importing a generated 1M-line TREC qrels and a 10M-line TREC run into a store,
against a bare DuckDB ``read_csv`` of the same file into a table, measured in the same run.

    python tests/bench/import_bench.py [--qrels 1000000] [--run 10000000]

Each import is the whole of ``sxs import`` minus start-up: parse, every check, re-ranking by
score (trec_eval's rule), one transaction into an on-disk store.  The reference loads the same
file with ``CREATE TABLE t AS SELECT * FROM read_csv(file, delim=' ', columns=...)`` into a
fresh on-disk DuckDB file, timed before and after the import; the ratio is against the faster
of the two.  Targets (issue 12): run >= 2M rows/s and <= 1.5x the reference; qrels <= 1 s.
Figures are wall-clock on this machine, as busy as it is.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import duckdb

from judge_app.services import importing
from judge_app.store import Store
from metrics import ESCI

RUN_COLUMNS = {"query_id": "VARCHAR", "q0": "VARCHAR", "doc_id": "VARCHAR", "rank": "BIGINT",
               "score": "DOUBLE", "tag": "VARCHAR"}
QRELS_COLUMNS = {"query_id": "VARCHAR", "iteration": "VARCHAR", "doc_id": "VARCHAR",
                 "grade": "BIGINT"}


def write_run(con: duckdb.DuckDBPyConnection, path: Path, lines: int, depth: int = 1000
              ) -> None:
    """``lines`` lines, ``depth`` docs a query, scores falling with rank, tag ``bench``."""
    con.execute(f"""COPY (SELECT 'q' || (i // {depth}) || ' Q0 d' ||
                                 ((i // {depth}) * 7919 + i % {depth}) || ' ' ||
                                 (i % {depth} + 1) || ' ' ||
                                 printf('%.6f', ({depth} - i % {depth}) / {depth}) || ' bench'
                          FROM range({lines}) t(i))
                    TO '{path}' (FORMAT csv, HEADER false, QUOTE '', DELIMITER '\x01')""")


def write_qrels(con: duckdb.DuckDBPyConnection, path: Path, lines: int) -> None:
    """``lines`` lines, 100 docs a query, grades 0-3 from a fixed hash."""
    con.execute(f"""COPY (SELECT 'q' || (i // 100) || ' 0 d' || i || ' ' || (hash(i) % 4)
                          FROM range({lines}) t(i))
                    TO '{path}' (FORMAT csv, HEADER false, QUOTE '', DELIMITER '\x01')""")


def bare_read_csv(path: Path, columns: dict[str, str], folder: Path) -> float:
    """Seconds for DuckDB to load the file into a table of a fresh on-disk database."""
    target = folder / "reference.duckdb"
    target.unlink(missing_ok=True)
    with duckdb.connect(str(target)) as con:
        start = time.perf_counter()
        con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv(?, delim=' ', header=false, "
                    f"columns={columns})", [str(path)])
        seconds = time.perf_counter() - start
    target.unlink()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--qrels", type=int, default=1_000_000)
    parser.add_argument("--run", type=int, default=10_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        qrels, run = folder / "bench.qrels", folder / "bench.run"
        with duckdb.connect() as con:
            write_qrels(con, qrels, args.qrels)
            write_run(con, run, args.run)
        with Store(folder / "bench.duckdb") as store:
            dataset = store.create_dataset("bench", ESCI)
            for label, path, columns, rows, action in (
                    ("qrels", qrels, QRELS_COLUMNS, args.qrels,
                     lambda: importing.import_qrels(store, dataset, qrels)),
                    ("run", run, RUN_COLUMNS, args.run,
                     lambda: importing.import_run(store, dataset, run))):
                before = bare_read_csv(path, columns, folder)
                start = time.perf_counter()
                report = action()
                seconds = time.perf_counter() - start
                after = bare_read_csv(path, columns, folder)
                assert report.rows == rows, report
                reference = min(before, after)
                print(f"{label:5} {rows:>11,} lines  import {seconds:6.2f} s "
                      f"{rows / seconds:12,.0f} rows/s   bare read_csv {before:5.2f} / "
                      f"{after:5.2f} s   ratio {seconds / reference:4.2f}x")
        size = (folder / "bench.duckdb").stat().st_size / 2**20
        print(f"store on disk: {size:,.0f} MB")


if __name__ == "__main__":
    main()
