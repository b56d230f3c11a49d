"""``sxs agreement`` and the agreement line of ``sxs compare`` (issue 24: inter-judge agreement
was printed by ``sxs report`` and the dashboard only).  The figures equal the ``krippendorff``
package's alpha and quadratic kappa worked from its definition, on the store's labels."""

from __future__ import annotations

import json
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services.demo import build_demo_store
from judge_app.store import Store

# three experts on eight results of the demo's query 1 (the title run's top 8), grades 0-4
ANN = [4, 3, 3, 2, 0, 1, 2, 4]
BOB = [4, 2, 3, 2, 1, 1, 3, 4]
CAT = [3, 3, None, 1, 0, None, 2, 4]


def sxs(db: Path, *args: str):
    return CliRunner().invoke(main, [*args, "--db", str(db)])


def quadratic_kappa(x: list[int], y: list[int], grades: int = 5) -> float:
    """1 - sum w O / sum w E with w = (i - j)^2, from the definition."""
    observed = np.zeros((grades, grades))
    for i, j in zip(x, y, strict=True):
        observed[i, j] += 1
    expected = np.outer(observed.sum(1), observed.sum(0)) / observed.sum()
    weights = np.subtract.outer(np.arange(grades), np.arange(grades)) ** 2
    return 1 - (weights * observed).sum() / (weights * expected).sum()


@pytest.fixture
def labelled(tmp_path: Path) -> tuple[Path, list[str]]:
    db = tmp_path / "demo.duckdb"
    with Store(db) as store:
        build_demo_store(store)
        docs = store.run(store.dataset("cranfield"), "title", ["1"], depth=8)["doc_id"].tolist()
    rows = ["query_id,doc_id,grade,judge"]
    for judge, grades in (("ann", ANN), ("bob", BOB), ("cat", CAT)):
        rows += [f"1,{doc},{grade},{judge}" for doc, grade in zip(docs, grades, strict=True)
                 if grade is not None]
    labels = tmp_path / "labels.csv"
    labels.write_text("\n".join(rows) + "\n")
    assert sxs(db, "import", "labels", "-d", "cranfield", str(labels)).exit_code == 0
    return db, docs


def test_agreement_prints_each_pairs_kappa_and_the_experts_alpha(labelled) -> None:
    db, _docs = labelled
    result = sxs(db, "agreement", "-d", "cranfield", "--format", "json")
    assert result.exit_code == 0, result.output
    found = json.loads(result.output)
    kappas = {(k["judge_1"], k["judge_2"]): (k["items"], k["kappa"]) for k in found["kappas"]}
    assert kappas[("ann", "bob")] == (8, pytest.approx(quadratic_kappa(ANN, BOB)))
    both = [(a, c) for a, c in zip(ANN, CAT, strict=True) if c is not None]
    assert kappas[("ann", "cat")] == (6, pytest.approx(
        quadratic_kappa([a for a, _ in both], [c for _, c in both])))
    reliability = np.array([[np.nan if g is None else g for g in grades]
                            for grades in (ANN, BOB, CAT)], dtype=float)
    assert found["alpha"] == pytest.approx(krippendorff.alpha(
        reliability_data=reliability, level_of_measurement="ordinal"))
    assert found["items_multiply_judged"] == 8
    table = sxs(db, "agreement", "-d", "cranfield")
    assert "Krippendorff's alpha (ordinal)" in table.output and "over 8 items" in table.output


def test_compare_says_how_far_the_judges_agree(labelled) -> None:
    db, _docs = labelled
    result = sxs(db, "compare", "title", "bm25", "-d", "cranfield", "--permutations", "200")
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.output.splitlines() if x.startswith("inter-judge agreement")]
    assert "over 8 items graded by two or more experts" in line


def test_a_dataset_nobody_graded_twice_says_so(tmp_path: Path) -> None:
    db = tmp_path / "demo.duckdb"
    with Store(db) as store:
        build_demo_store(store)
    result = sxs(db, "agreement", "-d", "cranfield")
    assert result.exit_code == 0, result.output
    assert "no item graded by two experts" in result.output
    compared = sxs(db, "compare", "title", "bm25", "-d", "cranfield", "--permutations", "200")
    assert "inter-judge agreement" not in compared.output
