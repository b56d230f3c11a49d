"""Issue 24, "saying what a figure stands on": a label set the experts' grades went into is
named by what they did — ``filled:<basis>`` when they only filled gaps, ``overridden:<basis>``
as soon as one dataset grade was replaced by a different one — with how many gaps were filled
and how many dataset grades overridden, everywhere a label set is named on the command line
(evaluate, compare, decide, export, report).

The store: three queries judged on a 0-2 scale; one expert (ann) grades two unjudged pairs
(gaps), two judged pairs with a different grade (overrides), one judged pair with the same
grade, and one pair the dataset marks -1 ("pooled, not judged": a gap)."""

from __future__ import annotations

import io
from pathlib import Path

import pandas as pd
import pytest
from click.testing import CliRunner, Result

from judge_app.cli import main

QRELS = "1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 d 0\n2 0 e 2\n3 0 f 1\n"
POOLED = "3 0 g -1\n"  # trec_eval's "pooled, not judged", on a scale that has -1
RUN_A = "1 Q0 a 1 3 A\n1 Q0 b 2 2 A\n1 Q0 x 3 1 A\n2 Q0 a 1 3 A\n2 Q0 d 2 2 A\n2 Q0 y 3 1 A\n" \
        "3 Q0 f 1 2 A\n3 Q0 g 2 1 A\n"
RUN_B = "1 Q0 x 1 3 B\n1 Q0 a 2 2 B\n1 Q0 c 3 1 B\n2 Q0 e 1 3 B\n2 Q0 y 2 2 B\n2 Q0 a 3 1 B\n" \
        "3 Q0 g 1 2 B\n3 Q0 f 2 1 B\n"
# gaps: (1, x), (2, y), (3, g); overrides: (1, a) 2 -> 0, (2, a) 1 -> 2;
# the same grade: (2, d) 0
LABELS = ("query_id,doc_id,grade,judge\n1,x,2,ann\n2,y,1,ann\n3,g,2,ann\n1,a,0,ann\n"
          "2,a,2,ann\n2,d,0,ann\n")
GAPS_ONLY = "query_id,doc_id,grade,judge\n1,x,2,ann\n2,y,1,ann\n"
OVERRIDDEN = ("overridden:experts", "grades of experts filled 3 gaps; overrode 2 dataset "
              "grades; agreed with 1 more (policy median)")


def sxs(db: Path, *args: str) -> Result:
    result = CliRunner().invoke(main, [*args, "--db", str(db)])
    assert result.exit_code == 0, result.output
    return result


def make_store(tmp: Path, labels: str, pooled: bool = False) -> Path:
    db = tmp / "s.duckdb"
    for name, text in (("q.qrels", QRELS + (POOLED if pooled else "")), ("a.run", RUN_A),
                       ("b.run", RUN_B), ("labels.csv", labels)):
        (tmp / name).write_text(text)
    sxs(db, "dataset", "create", "g", "--scale",
        "-1=Pooled,0=Bad,1=Fair,2=Good" if pooled else "0=Bad,1=Fair,2=Good")
    sxs(db, "import", "qrels", "-d", "g", str(tmp / "q.qrels"))
    for run in ("a", "b"):
        sxs(db, "import", "run", "-d", "g", str(tmp / f"{run}.run"), "--force")
    sxs(db, "import", "labels", "-d", "g", str(tmp / "labels.csv"), "--force")
    return db


@pytest.fixture()
def overriding(tmp_path: Path) -> Path:
    return make_store(tmp_path, LABELS)


def test_evaluate_names_an_override_apart_from_a_gap_fill(overriding: Path) -> None:
    name, counts = OVERRIDDEN
    out = sxs(overriding, "evaluate", "-d", "g", "--run", "A", "-m", "ndcg@3").output
    assert f"labels: {name} = 10 labels: the dataset's judgments and experts' labels; " \
           f"{counts}" in out
    assert "filled:experts" not in out
    header = out.splitlines()[out.splitlines().index("") + 1]
    assert header.split() == ["ndcg@3", "dataset", "ndcg@3", name]
    csv = pd.read_csv(io.StringIO(sxs(overriding, "evaluate", "-d", "g", "--run", "A", "-m",
                                      "ndcg@3", "--format", "csv").stdout))
    assert csv["labels"].tolist() == ["dataset", name]


def test_compare_decide_export_and_report_name_it_too(overriding: Path, tmp_path: Path
                                                      ) -> None:
    name, counts = OVERRIDDEN
    compared = sxs(overriding, "compare", "A", "B", "-d", "g", "-m", "ndcg@3",
                   "--permutations", "50").output
    assert f"[{name}]" in compared and counts in compared
    summary = pd.read_csv(io.StringIO(sxs(overriding, "compare", "A", "B", "-d", "g", "-m",
                                          "ndcg@3", "--permutations", "50", "--format",
                                          "csv").stdout))
    assert set(summary["labels"]) == {"dataset", name}
    decided = sxs(overriding, "decide", "A", "B", "-d", "g").output
    assert f"labels: {name} = " in decided and counts in decided
    exported = sxs(overriding, "export", "trec", str(tmp_path / "f.qrels"), "-d", "g",
                   "--filled").output
    assert f"labels: {name} — {counts}" in exported
    report = tmp_path / "r.html"
    sxs(overriding, "report", "A", "B", str(report), "-d", "g", "-k", "3")
    text = report.read_text()
    assert f"<h2>Per run ({name})</h2>" in text and counts in text


def test_dataset_first_only_fills_gaps(overriding: Path) -> None:
    out = sxs(overriding, "evaluate", "-d", "g", "--run", "A", "-m", "ndcg@3", "--filled",
              "--policy", "dataset_first").output
    assert ("labels: filled:experts = 10 labels: the dataset's judgments and experts' labels; "
            "grades of experts filled 3 gaps; overrode 0 dataset grades (policy "
            "dataset_first)") in out
    latest = sxs(overriding, "evaluate", "-d", "g", "--run", "A", "-m", "ndcg@3", "--filled",
                 "--policy", "latest").output
    assert "labels: overridden:experts = " in latest and "(policy latest)" in latest


def test_a_dataset_grade_of_minus_one_is_a_gap(tmp_path: Path) -> None:
    """-1 is trec_eval's "pooled, not judged": an expert grade in its place fills a gap
    (policy median); under dataset_first the -1 stands."""
    db = make_store(tmp_path, LABELS, pooled=True)
    out = sxs(db, "evaluate", "-d", "g", "--run", "A", "-m", "ndcg@3", "--filled").output
    assert ("labels: overridden:experts = 10 labels: the dataset's judgments and experts' "
            f"labels; {OVERRIDDEN[1]}") in out
    first = sxs(db, "evaluate", "-d", "g", "--run", "A", "-m", "ndcg@3", "--filled",
                "--policy", "dataset_first").output
    assert ("labels: filled:experts = 10 labels: the dataset's judgments and experts' labels; "
            "grades of experts filled 2 gaps; overrode 0 dataset grades (policy "
            "dataset_first)") in first


def test_experts_who_only_fill_gaps_keep_the_name_filled(tmp_path: Path) -> None:
    db = make_store(tmp_path, GAPS_ONLY)
    out = sxs(db, "evaluate", "-d", "g", "--run", "A", "-m", "ndcg@3").output
    assert ("labels: filled:experts = 9 labels: the dataset's judgments and experts' labels; "
            "grades of experts filled 2 gaps; overrode 0 dataset grades (policy median)") in out
    assert "overridden" not in out
