"""End to end: simulated judges of known behaviour (tests/metrics/simulated_judges.py) written
into a real store through the services — labels imported, gold items marked, every vote drawn
and cast as the app does — then ``sxs judges report`` flags each faulty judge with the figure
that reveals them and no careful one; excluding a judge takes their labels out of the filled
set and the export, and ``sxs evaluate`` says whom it leaves out."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services import judging
from judge_app.services.importing import create_dataset, import_labels
from judge_app.store import Store
from tests.metrics.simulated_judges import CAREFUL, JUDGES, simulate

# the flags each faulty judge must raise (the metrics test's expectations, through the store)
EXPECTED = {"random": {"gold_inaccurate", "low_agreement"}, "always-left": {"side_bias"},
            "one-high": {"grades_high", "gold_inaccurate"}, "too-fast": {"too_fast"}}
QUERIES = [f"q{i:02d}" for i in range(30)]


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def build_store(db: Path, tmp_path: Path) -> None:
    simulated = simulate(seed=23, n_votes=30)
    with Store(db) as store:
        dataset = create_dataset(store, "sim", "esci")
        for n, run in enumerate(("A", "B")):
            rows = pd.DataFrame([(q, f"{run}{r}", r) for q in QUERIES for r in range(1, 4)],
                                columns=["query_id", "doc_id", "rank"])
            store.put_run(dataset, run, rows.assign(score=-rows["rank"] - n,
                                                    line=range(1, len(rows) + 1)), run)
        for judge in JUDGES:
            store.invite_judge(judge)
        path = tmp_path / "labels.csv"
        simulated.labels.rename(columns={"created_at": "time"}).to_csv(path, index=False)
        import_labels(store, dataset, path, force=True)
        for judge, votes in simulated.votes.groupby("judge"):
            for query_id, row in zip(QUERIES, votes.itertuples(), strict=False):
                # the side is the app's blind draw; the choice is what the judge clicks
                view = judging.side_by_side(store, dataset, "A", "B", query_id, 3, judge)
                assert view is not None
                judging.record_vote(store, dataset, view, row.choice, judge,
                                    ms_spent=int(row.ms_spent))
    gold = tmp_path / "gold.csv"
    simulated.gold.to_csv(gold, index=False)
    assert sxs(db, "gold", "import", "-d", "sim", str(gold)).exit_code == 0


def test_the_report_flags_the_faulty_judges_and_exclusion_leaves_them_out(tmp_path) -> None:
    db = tmp_path / "sim.duckdb"
    build_store(db, tmp_path)
    out = sxs(db, "judges", "report", "-d", "sim", "--format", "json")
    assert out.exit_code == 0, out.output
    figures = {row["judge"]: row for row in json.loads(out.output)}
    assert set(figures) == set(JUDGES)
    for judge, expected in EXPECTED.items():
        raised = set(filter(None, figures[judge]["flags"].split(", ")))
        assert expected <= raised, (judge, raised)
    for judge in CAREFUL:
        assert figures[judge]["flags"] == "", (judge, figures[judge]["flags"])
        assert figures[judge]["gold_items"] == 40 and figures[judge]["decided_votes"] >= 20
    table = sxs(db, "judges", "report", "-d", "sim").output
    assert "flag: always-left side_bias: side_p" in table
    assert "flag: too-fast too_fast: median_seconds" in table

    before = sxs(db, "evaluate", "-d", "sim", "--run", "A", "--filled").output
    assert "left out:" not in before
    with Store(db) as store:
        filled_before = store.filled_judgments(store.dataset("sim"))
    out = sxs(db, "judges", "exclude", "random", "-d", "sim", "--reason", "random grades")
    assert out.exit_code == 0 and "excluded random" in out.output
    evaluated = sxs(db, "evaluate", "-d", "sim", "--run", "A", "--filled")
    assert evaluated.exit_code == 0, evaluated.output
    assert "left out: judges random (excluded)" in evaluated.output
    decided = sxs(db, "decide", "A", "B", "-d", "sim", "--format", "json")
    assert "left out: judges random (excluded)" in json.loads(decided.output)["labels"][
        "description"]
    with Store(db) as store:
        dataset = store.dataset("sim")
        filled_after = store.filled_judgments(dataset)
        random_items = store.current_expert_labels(dataset, "random")
    # every item random graded counts one judge fewer; the others are untouched
    merged = filled_before.merge(filled_after, on=["query_id", "doc_id"], how="left",
                                 suffixes=("", "_after"))
    graded = merged.set_index(["query_id", "doc_id"]).index.isin(
        random_items.set_index(["query_id", "doc_id"]).index)
    assert (merged["judges_after"][graded].fillna(0) == merged["judges"][graded] - 1).all()
    assert (merged["judges_after"][~graded] == merged["judges"][~graded]).all()
    export = tmp_path / "labels-out.csv"
    out = sxs(db, "export", "csv", str(export), "-d", "sim")
    assert "left out: judges random (excluded)" in out.output
    exported = pd.read_csv(export)
    assert "random" not in set(exported["judge"]) and "careful-1" in set(exported["judge"])
    # restoring brings the labels back
    assert sxs(db, "judges", "restore", "random", "-d", "sim").exit_code == 0
    with Store(db) as store:
        restored = store.filled_judgments(store.dataset("sim"))
    pd.testing.assert_frame_equal(restored, filled_before)
