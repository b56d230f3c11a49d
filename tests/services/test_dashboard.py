"""The dashboard and `sxs report` after a scripted judging session on the demo store."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from judge_app.measure_sets import (
    COMPARE_MEASURES,
    EVALUATE_MEASURES,
    HEALTH_MEASURE,
    OVERLAP_MEASURES,
    VERSUS_EXPERT_MEASURES,
)
from judge_app.services import judging
from judge_app.services.dashboard import (
    MISSING,
    Dashboard,
    Settings,
    dashboard,
    number,
    per_run_table,
    readable,
)
from judge_app.services.demo import build_demo_store
from judge_app.services.report import write_report
from judge_app.store import Dataset, Store
from metrics.measures import parse_measure


def plan_for(store: Store, dataset: Dataset, judge: str, overlap: int = 1) -> judging.Plan:
    """The judge's plan for title (A) vs bm25 (B) at k = 10."""
    order = judging.query_order(store, dataset, "title", "bm25", 10)
    return judging.plan_from(store, dataset, order, "title", "bm25", judge, overlap)



@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """Three judges: ann and bob vote on the same 6 queries; all grade unlabelled results."""
    with Store(tmp_path_factory.mktemp("dash") / "demo.duckdb") as store:
        build_demo_store(store)
        dataset = store.dataset("cranfield")
        store.put_queries(dataset, pd.DataFrame({"query_id": ["1"],
                                                 "text": ["<script>alert(1)</script>"]}))
        plan = plan_for(store, dataset, "ann", overlap=2)
        for name in ("ann", "bob"):
            store.invite_judge(name)
        store.typed_judge("<script>eve</script>")
        choices = {"ann": ["right", "right", "left", "tie", "right", "both_bad"],
                   "bob": ["right", "left", "left", "right", "right", "both_bad"]}
        graded = 0
        for judge, picks in choices.items():
            for query_id, choice in zip(plan.queue[:6], picks, strict=True):
                view = judging.side_by_side(store, dataset, "title", "bm25", query_id, 10, judge)
                # choices are recorded as "B better" etc. whatever side B was shown on
                b_left = view.left_run == "bm25"
                on_screen = {"right": "left" if b_left else "right",
                             "left": "right" if b_left else "left"}.get(choice, choice)
                judging.record_vote(store, dataset, view, on_screen, judge)
                for row in (view.left + view.right)[:4]:
                    if row.label_source != "dataset":
                        grade = (row.rank % 5) if judge == "ann" else ((row.rank + 1) % 5)
                        judging.record_grade(store, dataset, view.view_id, query_id,
                                             row.doc_id, grade, judge)
                        graded += 1
        eve = "<script>eve</script>"
        view = judging.side_by_side(store, dataset, "title", "bm25", plan.queue[7], 10, eve)
        judging.record_vote(store, dataset, view, "tie", eve)
        yield store, dataset, graded


def test_dashboard_numbers(session) -> None:
    store, dataset, graded = session
    assert graded > 10
    board = dashboard(store, dataset, "title", "bm25", Settings(k=10), permutations=2000)
    experts = board.experts
    # "right" in the script means B (bm25) better, "left" means A better
    assert experts.loc["ann", "wins_b"] == 3 and experts.loc["ann", "wins_a"] == 1
    assert experts.loc["ann", "ties"] == 1 and experts.loc["ann", "both_bad"] == 1
    assert experts.loc["bob", "wins_b"] == 3 and experts.loc["bob", "wins_a"] == 2
    assert experts.loc["all", "wins_b"] == 6 and experts.loc["all", "ties"] == 2
    # the two judges agree on queries 1, 3, 5, 6 of 6
    assert board.preference_agreement == pytest.approx(4 / 6)
    assert board.metric_vs_expert.loc["ndcg@10", "votes"] == 9
    assert list(board.kappas[["judge_1", "judge_2"]].iloc[0]) == ["ann", "bob"]
    assert np.isfinite(board.alpha) and board.items_multiply_judged > 0
    filling = board.filling.set_index(["run", "measure"])
    assert filling.loc[("bm25", "judged@10"), "moved"] > 0  # experts filled gaps
    per_run = board.per_run
    assert ((per_run["ci_low"] <= per_run["mean"]) & (per_run["mean"] <= per_run["ci_high"])
            ).all()
    assert board.settings.stamp() == ("k=10, gain=linear, discount=log2, label policy=median, "
                                      "labels: experts")
    assert (board.low_ceiling["best_ndcg_m"] < 0.5).all()


def test_report_renders_self_contained_and_escaped(session, tmp_path: Path) -> None:
    store, dataset, _ = session
    board = dashboard(store, dataset, "title", "bm25",
                      Settings(k=5, gain="exponential", policy="latest"), permutations=500)
    path = write_report(board, tmp_path / "report.html")
    text = path.read_text()
    for heading in (f"Per run ({board.labels_name()})", "What filling the label gaps changed",
                    "Dataset health", "A vs B", "Experts", "Metric against the experts",
                    "Agreement between judges"):
        assert f"<h2>{heading}</h2>" in text
    assert "k=5, gain=exponential, discount=log2, label policy=latest" in text
    assert "<script" not in text and "http" not in text.replace("http://www.w3.org", "")
    assert "&lt;script&gt;eve&lt;/script&gt;" in text  # a judge's name, escaped
    assert text.count("<svg") >= 4


GRID = [(gain, discount, k) for gain in ("linear", "exponential")
        for discount in ("log2", "reciprocal") for k in (1, 5, 20)]


@pytest.mark.parametrize(("gain", "discount", "k"), GRID)
def test_every_gain_discount_and_k_works_on_the_dashboard_and_in_the_report(
        session, tmp_path: Path, gain: str, discount: str, k: int) -> None:
    """gain=exponential with discount=reciprocal used to crash both with a KeyError."""
    store, dataset, _ = session
    settings = Settings(k=k, gain=gain, discount=discount)
    board = dashboard(store, dataset, "title", "bm25", settings, permutations=200)
    measures = settings.measures()
    assert list(dict.fromkeys(board.per_run["measure"])) == measures
    assert len(board.comparison) == 3 and (board.comparison["n"] == 225).all()
    assert set(board.deltas["measure"]) == set(board.comparison.index)
    assert list(board.metric_vs_expert.index) == list(board.comparison.index)
    wide = per_run_table(board)
    assert list(wide.index) == ["title", "bm25"]
    assert list(wide.columns) == ["queries", *measures]
    text = write_report(board, tmp_path / "r.html").read_text()
    assert settings.stamp() in text
    assert not re.search(r">\s*(nan|None|NaN|<NA>)\s*<", text)


def test_the_grid_settings_reach_the_numbers(session) -> None:
    """Hand-checked on the demo store: the NDCG family changes with gain and discount, P@k
    and judged@k do not."""
    store, dataset, _ = session
    boards = {(g, d): dashboard(store, dataset, "title", "bm25", Settings(5, g, d),
                                permutations=100).per_run.set_index(["run", "measure"])["mean"]
              for g in ("linear", "exponential") for d in ("log2", "reciprocal")}
    base = boards[("linear", "log2")]
    for (gain, discount), means in boards.items():
        assert means[("bm25", "p@5")] == base[("bm25", "p@5")]
        if (gain, discount) != ("linear", "log2"):
            name = Settings(5, gain, discount).measures()[0]
            assert means[("bm25", name)] != base[("bm25", "ndcg@5")]


def test_missing_values_read_as_a_dash_never_nan_or_none() -> None:
    assert [number(v) for v in (None, float("nan"), np.nan, pd.NA, np.float64("nan"))] == [
        MISSING] * 5
    assert (number(0.12345), number(3.1e-06), number(0.0), number(12345)) == (
        "0.123", "3.1e-06", "0.000", "12,345")
    frame = pd.DataFrame({"wins": [5.0, np.nan], "rate": [0.5, np.nan], "name": ["a", None]})
    assert readable(frame).to_dict("list") == {"wins": ["5", MISSING],
                                               "rate": ["0.500", MISSING],
                                               "name": ["a", MISSING]}


def test_the_per_run_table_has_one_row_per_run_and_a_column_per_measure() -> None:
    per_run = pd.DataFrame({
        "run": ["a", "a", "b", "b"], "measure": ["ndcg@5", "p@5", "ndcg@5", "p@5"],
        "mean": [0.5, 0.25, np.nan, 0.125], "ci_low": [0.4, 0.2, np.nan, 0.1],
        "ci_high": [0.6, 0.3, np.nan, 0.15], "queries": [3, 3, 0, 2]})
    board = Dashboard("d", "a", "b", Settings(5), per_run, *([None] * 12))
    assert per_run_table(board).to_dict("index") == {
        "a": {"queries": "3", "ndcg@5": "0.500 [0.400, 0.600]", "p@5": "0.250 [0.200, 0.300]"},
        "b": {"queries": "2", "ndcg@5": MISSING, "p@5": "0.125 [0.100, 0.150]"}}


def test_sxs_report_takes_exponential_gain_with_reciprocal_discount(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judge_app.cli import main

    db, out = str(tmp_path / "cli.duckdb"), tmp_path / "report.html"
    runner = CliRunner()
    assert runner.invoke(main, ["demo", "--no-serve", "--db", db]).exit_code == 0
    result = runner.invoke(main, ["report", "title", "bm25", str(out), "-d", "cranfield",
                                  "-k", "5", "--gain", "exponential", "--discount",
                                  "reciprocal", "--db", db])
    assert result.exit_code == 0, result.output
    text = out.read_text()
    assert "k=5, gain=exponential, discount=reciprocal" in text
    assert "ndcg_m(discount=&#x27;reciprocal&#x27;,gain=&#x27;exponential&#x27;)@5" in text


def _per_run(names: tuple[str, ...]) -> list[str]:
    return [name for name in names if not parse_measure(f"{name}@10").definition.pairwise]


def test_the_dashboard_measure_sets_fit_together() -> None:
    """The dashboard reads each named set from where another computed it: health from the
    per-run scores, the expert table from the comparison's deltas, before-filling RBO from a
    comparison with one per-run measure."""
    assert HEALTH_MEASURE in EVALUATE_MEASURES
    assert list(VERSUS_EXPERT_MEASURES) == _per_run(COMPARE_MEASURES)
    assert len(_per_run(OVERLAP_MEASURES)) == 1 and "rbo" in OVERLAP_MEASURES
