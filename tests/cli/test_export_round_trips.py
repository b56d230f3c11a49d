"""Issue 24, "done when": every export format sxs writes reads back.  On a graded dataset and a
binary relevant-only one (every judgment grade 1, as SMART collections are), each format is
exported, imported into a new store *without* ``--force``, and the new store holds the same
rows and prints the same ``evaluate`` and win-rate (``decide``'s expert votes) output:

* ``run``: TREC run lines (``sxs export run``) — every case's new store gets its runs so;
* ``trec``: TREC qrels;  ``quepid``: ``query,docid,rating`` (queries matched by text);
* ``csv`` / ``parquet``: every label with provenance (dataset judgments and expert labels);
* ``wide``: one column a judge (expert labels; the judgments from the TREC export);
* ``votes`` as CSV, Parquet and JSONL, each into its own copy of a new store holding the
  labels (so ``decide`` stands on the same labels and its last line is the win rate).

sxs writes no SRW JSON, so there is none to read back.  The CLI runs in-process."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from judge_app.cli import main
from judge_app.store import Store
from tests.votes import vote

QUERIES = [f"q{i}" for i in range(1, 7)]
DOCS = [f"d{i}" for i in range(1, 13)]
SCALES = {"graded": "esci", "relevant-only": "binary"}
FORMATS = ["trec", "quepid", "csv", "parquet", "wide", "votes"]


def sxs(db: Path, *args: str, codes: tuple[int, ...] = (0,)) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code in codes, (args, result.output)
    return result


def write_inputs(tmp: Path, name: str) -> dict[str, Path]:
    """Queries, two runs (A: docs by number, B: reversed in each query's top 5), qrels and
    two judges' labels (gaps and overrides) for one dataset."""
    files = {k: tmp / f"{name}-{k}" for k in ("queries.tsv", "a.run", "b.run", "qrels",
                                               "labels.csv")}
    files["queries.tsv"].write_text("".join(f"{q}\t{name} query number {q[1:]}\n"
                                            for q in QUERIES))
    runs = {"a.run": [], "b.run": []}
    for n, q in enumerate(QUERIES):
        docs = DOCS[n:n + 6]
        runs["a.run"] += [f"{q} Q0 {d} {r} {10 - r}.25 A" for r, d in enumerate(docs, 1)]
        flipped = docs[:5][::-1] + docs[5:]
        runs["b.run"] += [f"{q} Q0 {d} {r} {10 - r}.5 B" for r, d in enumerate(flipped, 1)]
    for key, lines in runs.items():
        files[key].write_text("\n".join(lines) + "\n")
    if name == "graded":
        qrels = [f"{q} 0 {d} {(n + i) % 4}" for n, q in enumerate(QUERIES)
                 for i, d in enumerate(DOCS[n:n + 4])]
        files["qrels"].write_text("\n".join(qrels) + "\n")
    else:  # SMART layout: qid docid 0 0 — every listed pair relevant
        files["qrels"].write_text("".join(f"{q} {d} 0 0.000000\n" for n, q in
                                          enumerate(QUERIES) for d in DOCS[n:n + 3]))
    top = 1 if name == "relevant-only" else 3
    labels = ["query_id,doc_id,grade,judge"]
    for n, q in enumerate(QUERIES):
        labels += [f"{q},{DOCS[n + 4]},{top},ann", f"{q},{DOCS[n]},0,ann",
                   f"{q},{DOCS[n + 4]},{top - 1},bob", f"{q},{DOCS[n + 5]},{top},bob"]
    files["labels.csv"].write_text("\n".join(labels) + "\n")
    return files


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    tmp = tmp_path_factory.mktemp("round")
    db = tmp / "source.duckdb"
    inputs = {}
    for name, scale in SCALES.items():
        files = inputs[name] = write_inputs(tmp, name)
        sxs(db, "dataset", "create", name, "--scale", scale)
        sxs(db, "import", "queries", "-d", name, str(files["queries.tsv"]))
        sxs(db, "import", "qrels", "-d", name, str(files["qrels"]), "--force")
        for run in ("a.run", "b.run"):
            sxs(db, "import", "run", "-d", name, str(files[run]), "--force")
        sxs(db, "import", "labels", "-d", name, str(files["labels.csv"]), "--force")
    with Store(db) as store:
        for name in SCALES:
            dataset = store.dataset(name)
            for i, q in enumerate(QUERIES):
                vote(store, dataset, q, "A", "B", "B" if i % 2 else "A",
                     ["left", "right", "tie", "left", "both_bad", "right"][i],
                     "ann", reason=f"=reason {i}, \"quoted\"")
                if i < 4:
                    vote(store, dataset, q, "A", "B", "A", "right", "bob")
            cast = store.preferences(dataset)
            last = cast[cast["judge"].str.startswith("bob")]["preference_id"].max()
            store.retract_preference(dataset, int(last), "bob", f"undo-{name}")
    return db, inputs


def figures(db: Path, name: str, *extra: str) -> str:
    return sxs(db, "evaluate", "-d", name, "--run", "A", "--run", "B", "-m",
               "ndcg@5 ndcg_m@5 p@3", *extra).output


def decided(db: Path, name: str) -> str:
    """``sxs decide``'s output: its last line is the experts' win rate (exit 3: undecided)."""
    return sxs(db, "decide", "A", "B", "-d", name, codes=(0, 3)).output


SEEN: dict[tuple, object] = {}


def once(what, *args):
    """``what(*args)`` on the source store, computed once for every case."""
    key = (what.__name__, *map(str, args))
    if key not in SEEN:
        SEEN[key] = what(*args)
    return SEEN[key]


def rows(db: Path, name: str) -> dict[str, pd.DataFrame]:
    with Store(db, read_only=True) as store:
        dataset = store.dataset(name)
        labels = store.current_expert_labels(dataset)
        votes = store.preferences(dataset, include_retracted=True)
        return {
            "judgments": store.judgments(dataset)[["query_id", "doc_id", "grade"]],
            "labels": labels[["query_id", "doc_id", "judge", "grade"]].sort_values(
                ["query_id", "doc_id", "judge"], ignore_index=True),
            "runs": pd.concat([store.run(dataset, r) for r in ("A", "B")], ignore_index=True),
            "votes": votes[["query_id", "run_a", "run_b", "choice", "judge", "reason",
                            "retracted"]].reset_index(drop=True)}


@pytest.mark.parametrize("name", list(SCALES))
@pytest.mark.parametrize("fmt", FORMATS)
def test_every_export_reads_back_without_force(source, tmp_path: Path, name: str, fmt: str
                                               ) -> None:
    db, inputs = source
    target = tmp_path / "target.duckdb"
    sxs(target, "dataset", "create", name, "--scale", SCALES[name])
    sxs(target, "import", "queries", "-d", name, str(inputs[name]["queries.tsv"]))

    def carry(kind: str, *how: str) -> Path:
        suffix = {"parquet": ".parquet", "trec": ".qrels", "run": ".run"}.get(kind, ".csv")
        out = tmp_path / f"{kind}-{len(list(tmp_path.iterdir()))}{suffix}"
        sxs(db, "export", kind, str(out), "-d", name, *how)
        return out

    for run in ("A", "B"):  # the run round trip, in every case
        sxs(target, "import", "run", "-d", name, str(carry("run", "--run", run)))
    compared = ["runs", "judgments"]
    extra: tuple[str, ...] = ("--dataset-labels-only",)
    if fmt in ("trec", "wide", "votes"):
        sxs(target, "import", "qrels", "-d", name, str(carry("trec")))
    if fmt == "quepid":
        sxs(target, "import", "quepid", "-d", name, str(carry("quepid")))
    if fmt in ("csv", "parquet", "wide", "votes"):
        sxs(target, "import", "labels", "-d", name,
            str(carry("csv" if fmt == "votes" else fmt)))
        compared.append("labels")
        extra = ()
    before = once(rows, db, name)
    if fmt == "votes":  # each file format into its own copy of the new store
        for kind in ("csv", "parquet", "jsonl"):
            copy = tmp_path / f"votes-{kind}.duckdb"
            shutil.copy(target, copy)
            out = tmp_path / f"votes.{kind}"
            sxs(db, "export", "votes", str(out), "-d", name)
            assert "imported 10 votes" in sxs(copy, "import", "votes", str(out), "-d",
                                              name).output
            pd.testing.assert_frame_equal(rows(copy, name)["votes"], before["votes"],
                                          check_dtype=False, obj=f"votes ({kind})")
            assert decided(copy, name) == once(decided, db, name)
        target = copy
    after = rows(target, name)
    for what in compared:
        pd.testing.assert_frame_equal(after[what], before[what], check_dtype=False,
                                      obj=what)
    assert figures(target, name, *extra) == once(figures, db, name, *extra)


def test_export_run_takes_its_run_and_writes_six_fields(source, tmp_path: Path) -> None:
    db, _ = source
    out = tmp_path / "a.run"
    for args in (("run", str(out), "-d", "graded"),
                 ("trec", str(out), "-d", "graded", "--run", "A")):
        result = CliRunner().invoke(main, ["export", *args, "--db", str(db)])
        assert result.exit_code == 2 and "sxs export run takes --run NAME" in result.output
    assert not out.exists()
    assert "wrote 36 results of run 'A'" in sxs(db, "export", "run", str(out), "-d", "graded",
                                                "--run", "A").output
    lines = [line.split() for line in out.read_text().splitlines()]
    assert {len(f) for f in lines} == {6} and {f[1] for f in lines} == {"Q0"}
    assert lines[0] == ["q1", "Q0", "d1", "1", "9.25", "A"]
