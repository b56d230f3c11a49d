"""Decompression bombs (issue 25): a compressed file is capped at ``SXS_MAX_EXPANDED_MB`` when
decompressed, refused in one line naming the cap as soon as it passes it; a TREC file's first
megabyte of lines is checked before the rest is expanded; the expansion happens once, before
the store's transaction, and a refused import stores nothing."""

from __future__ import annotations

import bz2
import gzip
import zlib
from pathlib import Path

import pytest

from judge_app.errors import InputError, SxsError
from judge_app.io import trec
from judge_app.io.compression import (
    DEFAULT_MAX_EXPANDED_MB,
    MAX_EXPANDED_ENV,
    expanded,
    max_expanded_mb,
    open_decompressed,
)
from judge_app.io.files import read_bytes
from judge_app.services import importing
from judge_app.store import Store
from metrics import ESCI
from tests.votes import ensure_runs


def bomb(path: Path, chunk: bytes, copies: int) -> Path:
    """``copies`` gzip members of ``chunk``: expands to ``len(chunk) * copies`` bytes."""
    squeezer = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = squeezer.compress(chunk) + squeezer.flush()
    path.write_bytes(member * copies)
    return path


QRELS = b"".join(b"q%d 0 d%d 1\n" % (q, d) for q in range(100) for d in range(100))


def test_the_cap_is_a_setting_and_refuses_in_one_line(tmp_path, monkeypatch) -> None:
    monkeypatch.delenv(MAX_EXPANDED_ENV, raising=False)
    assert max_expanded_mb() == DEFAULT_MAX_EXPANDED_MB == 1024
    for bad in ("0", "-3", "lots", "1.5"):
        monkeypatch.setenv(MAX_EXPANDED_ENV, bad)
        with pytest.raises(SxsError, match=MAX_EXPANDED_ENV):
            max_expanded_mb()
    monkeypatch.setenv(MAX_EXPANDED_ENV, "2")
    two = b"x" * 2**20
    for name, pack in (("a.gz", gzip.compress), ("a.bz2", bz2.compress)):
        (tmp_path / name).write_bytes(pack(two * 2))  # exactly the cap: read whole
        with open_decompressed(tmp_path / name) as stream:
            assert len(stream.read()) == 2 * 2**20
        (tmp_path / name).write_bytes(pack(two * 2 + b"x"))  # one byte more
        with pytest.raises(InputError) as refused:
            read_bytes(tmp_path / name)
        message = str(refused.value)
        assert message == (f"{tmp_path / name}: expands to more than 2 MB when decompressed, "
                           f"the limit ({MAX_EXPANDED_ENV}); refused before reading the rest")


def test_an_expanded_copy_stops_at_the_cap_and_is_removed(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(MAX_EXPANDED_ENV, "3")
    source = bomb(tmp_path / "run.txt.gz", b"q 0 d 1 1.0 t\n" * 75_000, 40)  # ~40 MB
    with pytest.raises(InputError, match="more than 3 MB"), expanded(source):
        pass
    assert not list(Path(tmp_path).glob("sxs-expand-*"))
    with expanded(tmp_path / "plain.txt") as plain:
        assert plain is None  # a plain file is read as it is


@pytest.mark.parametrize(("head", "error"), [
    (b"\0" * 3 * 2**20, "line 1, field query_id: "),  # the bomb: zeros
    (b"q" * 3 * 2**20, "line 1: no line ends within the first 1 MB: not a TREC file"),
    (b"q1 0 d1 1\nq1 0 d2\n" + QRELS * 40, "line 2, field grade: expected 4 fields, found 3"),
    (b"q1 0 d1 1\n\nq1 0 d2 1 extra\n", "line 3: expected 4 fields, found 5"),
])
def test_the_first_lines_are_checked_before_the_rest_is_expanded(tmp_path, head, error
                                                                 ) -> None:
    path = tmp_path / "qrels.txt.gz"
    path.write_bytes(gzip.compress(head, 1))
    with pytest.raises(InputError, match=error), trec.expanded_trec(trec.TrecFile(path),
                                                                      run=False):
        pass


def test_a_bomb_imports_nothing_and_a_compressed_file_imports_as_before(
        tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(MAX_EXPANDED_ENV, "5")
    with Store(tmp_path / "s.duckdb") as store:
        dataset = store.create_dataset("d", ESCI)
        ensure_runs(store, dataset, "a", "b", queries=("q1",))
        refused = bomb(tmp_path / "big.qrels.gz", QRELS, 200)  # ~30 MB of good lines
        with pytest.raises(InputError, match="more than 5 MB"):
            importing.import_qrels(store, dataset, refused, force=True)
        with pytest.raises(InputError, match="more than 5 MB"):
            importing.import_run(store, dataset, bomb(tmp_path / "big.run.gz",
                                                      b"q1 Q0 d1 1 2.0 t\n" * 60_000, 10),
                                 "c", force=True)
        assert store.judgments(dataset).empty and store.run_names(dataset) == ["a", "b"]
        small = tmp_path / "small.qrels.gz"
        small.write_bytes(gzip.compress(b"q1 0 d1 2\nq1 0 a-d1 0\nq1 0 d3 1\n"))
        report = importing.import_qrels(store, dataset, small)
        assert report.rows == 3 and len(store.judgments(dataset)) == 3
        run = tmp_path / "r.txt.gz"
        run.write_bytes(gzip.compress(b"q1 Q0 d1 1 3.0 c\nq1 Q0 d3 2 2.0 c\n"))
        assert importing.import_run(store, dataset, run).rows == 2
