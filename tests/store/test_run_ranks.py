"""The ranks a TREC run is stored with are trec_eval's (score descending, then doc id
descending; the first of repeated (query, doc) lines kept with ``--dedupe``), whatever the
order of the file's lines and the ranks written in it: the fast reader keeps a file's ranks
only when they are those, and re-ranks otherwise."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judge_app.errors import InputError
from judge_app.io.trec import TrecFile
from judge_app.store import Store, repeats, run_load, trec_readers
from metrics import ESCI

SCORES = ["3", "2.5", "2", "1", "0", "-1.5"]  # few values: many ties


def trec_eval_ranks(lines: list[tuple[str, str, str]]) -> list[tuple[str, str, int]]:
    """(query, doc, rank) by trec_eval's rule, written out here as the oracle: the first line
    of a repeated (query, doc) kept, then per query score descending, doc id descending."""
    kept: dict[tuple[str, str], float] = {}
    for query, doc, score in lines:
        kept.setdefault((query, doc), float(score))
    ranked = []
    for query in sorted({q for q, _ in kept}):
        docs = [(score, doc) for (q, doc), score in kept.items() if q == query]
        docs.sort(reverse=True)  # score descending, ties by doc id descending
        ranked += [(query, doc, rank) for rank, (_, doc) in enumerate(docs, start=1)]
    return ranked


def write_run(path: Path, lines: list[tuple[str, str, str]], ranks: list[int]) -> None:
    path.write_text("".join(f"{q} Q0 {d} {r} {s} tag\n"
                            for (q, d, s), r in zip(lines, ranks, strict=True)))


def stored(store_path, path: Path, dedupe: bool) -> list[tuple[str, str, int]]:
    with Store(store_path) as opened:
        dataset = opened.create_dataset("r", ESCI)
        name, _ = opened.import_trec_run(dataset, TrecFile(path), dedupe=dedupe)
        frame = opened.run(dataset, name)
    return [(q, d, int(r)) for q, d, r in frame[["query_id", "doc_id", "rank"]].values]


def in_order(pairs: dict[tuple[str, str], str]) -> tuple[list[tuple[str, str, str]], list[int]]:
    """The pairs as a file in trec_eval's order, with trec_eval's ranks."""
    lines = [(q, d, s) for (q, d), s in pairs.items()]
    ranked = trec_eval_ranks(lines)
    score = {(q, d): s for q, d, s in lines}
    return [(q, d, score[q, d]) for q, d, _ in ranked], [r for *_, r in ranked]


pairs = st.dictionaries(st.tuples(st.sampled_from(["q1", "q2", "q10"]),
                                  st.sampled_from(["a", "b", "c", "d1", "d10", "e"])),
                        st.sampled_from(SCORES), min_size=1, max_size=14)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pairs=pairs, shape=st.sampled_from(["in order", "shuffled lines", "ranks scrambled",
                                           "another rule", "queries split",
                                           "repeated lines"]),
       seed=st.integers(0, 2**32 - 1), part_bits=st.sampled_from([0, 1, 2, 4]))
def test_stored_ranks_are_trec_eval_ranks(tmp_path_factory, pairs: dict, shape: str,
                                          seed: int, part_bits: int) -> None:
    rng = random.Random(seed)
    lines, ranks = in_order(pairs)
    if shape == "shuffled lines":  # each line keeps its right rank, the order is lost
        order = list(range(len(lines)))
        rng.shuffle(order)
        lines, ranks = [lines[i] for i in order], [ranks[i] for i in order]
    elif shape == "ranks scrambled":
        ranks = [rng.randint(1, len(lines)) for _ in lines]
    elif shape == "another rule":  # queries in blocks ranked 1..n, in some other order
        rule = rng.choice(["ties by doc ascending", "score ascending", "any"])
        key = {"ties by doc ascending": lambda line: (-float(line[2]), line[1]),
               "score ascending": lambda line: (float(line[2]), line[1]),
               "any": lambda line: rng.random()}[rule]
        lines = [line for query in sorted({q for q, *_ in lines})
                 for line in sorted((x for x in lines if x[0] == query), key=key)]
        ranks = []
        for i, (query, *_) in enumerate(lines):
            ranks.append(ranks[-1] + 1 if i and lines[i - 1][0] == query else 1)
    elif shape == "queries split":  # in order line by line, but a query in two blocks
        cut = rng.randint(0, len(lines))
        lines, ranks = lines[cut:] + lines[:cut], ranks[cut:] + ranks[:cut]
    elif shape == "repeated lines":  # a pair again, with the same or another score
        for _ in range(rng.randint(1, 3)):
            q, d, _ = rng.choice(lines)
            at = rng.randint(0, len(lines))
            lines.insert(at, (q, d, rng.choice(SCORES)))
            ranks.insert(at, rng.randint(1, len(lines)))
    folder = tmp_path_factory.mktemp("ranks")
    path = folder / "r.run"
    write_run(path, lines, ranks)
    with pytest.MonkeyPatch.context() as patch:  # the duplicate checks' parts and batches
        patch.setattr(repeats, "PART_BITS", part_bits)
        patch.setattr(repeats, "BATCH", 1 + part_bits)
        # the first lines' probe sees a line or two: the check of the stored rows decides
        patch.setattr(trec_readers, "_PROBE", 1 + part_bits % 2)
        assert stored(folder / "s.duckdb", path, dedupe=True) == trec_eval_ranks(lines)


@pytest.mark.parametrize("sorted_as", ["matrices", "whole"])
@pytest.mark.parametrize("batch", [1, 2, 1 << 20])
@pytest.mark.parametrize("lengths", ["one length", "two lengths"])
@pytest.mark.parametrize("query", ["q1", "q3", "q4"])
def test_a_doc_twice_in_a_run_in_order_is_found(tmp_path: Path, sorted_as: str, batch: int,
                                                lengths: str, query: str) -> None:
    """A run in trec_eval's order (each query one block, ranks 1..n, scores falling) but
    with a doc listed twice in one query, at a lower score the second time: the fast
    reader's duplicate check (hashes sorted block by block, as matrices of blocks of one
    length in batches, or whole) finds it, so the precise reader refuses the file naming
    the line (or keeps the first with --dedupe)."""
    lines = []
    for q in ("q1", "q2", "q3", "q4"):
        size = 3 if q == query or lengths == "two lengths" else 4
        block = [(q, f"d{q}{i}", str(10 - i)) for i in range(size)]
        if q == query:
            block.append((q, f"d{q}0", "1"))  # d<q>0 again, the block still in order
        lines += block
    ranks = []
    for i, (q, *_) in enumerate(lines):
        ranks.append(ranks[-1] + 1 if i and lines[i - 1][0] == q else 1)
    path = tmp_path / "r.run"
    write_run(path, lines, ranks)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(repeats, "BATCH", batch)
        patch.setattr(repeats, "LENGTHS", 64 if sorted_as == "matrices" else 0)
        with pytest.raises(InputError, match=r"line \d+"):
            stored(tmp_path / "refused.duckdb", path, dedupe=False)
        assert stored(tmp_path / "kept.duckdb", path, dedupe=True) == trec_eval_ranks(lines)


def _no_precise_reader(*args, **kwargs):
    raise AssertionError("the precise reader ran")


@pytest.mark.parametrize("shape", ["in order", "shuffled"])
def test_the_fast_reader_stores_runs_without_the_precise_reader(store_address, tmp_path: Path,
                                                                shape: str) -> None:
    """Runs with nothing unusual, in trec_eval's order or not, stay on the fast reader (on
    PostgreSQL too: it is parsed in a DuckDB scratch)."""
    rng = random.Random(7)
    lines, ranks = in_order({(f"q{i % 5}", f"d{i}"): rng.choice(SCORES) for i in range(200)})
    if shape == "shuffled":
        order = list(range(len(lines)))
        rng.shuffle(order)
        lines, ranks = [lines[i] for i in order], [ranks[i] for i in order]
    path = tmp_path / "r.run"
    write_run(path, lines, ranks)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(run_load, "stage_run", _no_precise_reader)
        assert stored(store_address, path, dedupe=False) == trec_eval_ranks(lines)


@pytest.mark.parametrize("text", [
    "q1 Q0 d1 1 2 mytag\t\nq1 Q0 d2 2 1 mytag\n",
    "q1 Q0 d1 1 2 mytag\nq1 Q0 d2 2 1 mytag\t\n",
    "q1 Q0 d1 1 2 mytag\x0c\nq1 Q0 d2 2 1 mytag\n",
    "q1 Q0 d1 1 2\tmytag\nq1 Q0 d2 2 1 mytag\r\n",
])
def test_whitespace_around_a_tag_names_the_run_as_the_precise_reader_does(
        tmp_path: Path, text: str) -> None:
    """The byte scan for tabs runs alongside the fast load: a tab or form feed at a tag
    still sends the file to the precise reader (which splits on any whitespace), so the run
    is named by its tag, not by the file name as a file of mixed tags would be."""
    path = tmp_path / "odd_tag.run"
    path.write_bytes(text.encode())
    with Store(tmp_path / "s.duckdb") as store:
        dataset = store.create_dataset("r", ESCI)
        assert store.import_trec_run(dataset, TrecFile(path)) == ("mytag", 2)


def test_a_nul_in_the_first_tag_is_refused_naming_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "nul.run"
    path.write_bytes(b"q1 Q0 d1 1 2 my\x00tag\nq1 Q0 d2 2 1 mytag\n")
    with Store(tmp_path / "s.duckdb") as store:
        dataset = store.create_dataset("r", ESCI)
        with pytest.raises(InputError, match=r"line 1, field tag"):
            store.import_trec_run(dataset, TrecFile(path))
        assert store.run_names(dataset) == []
