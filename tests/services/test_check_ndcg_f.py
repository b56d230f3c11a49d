"""Review finding: `sxs check`'s ``min_ndcg_f`` is not NDCG-f@k.

The rule cuts the run to its top ``top`` results *before* condensing, so only judged docs among
the first k count; NDCG-f@k (trec_eval -J, ``metrics.ndcg_f``, `sxs evaluate -m ndcg_f@10`)
condenses the whole ranking first.  On the demo, bm25 query 1: `sxs evaluate ... --per-query`
gives ndcg_f@10 = 0.7444 while `sxs check` prints "NDCG-f@10 = 0.5228" for the same run and query.

Hand-computed here: ranking x, y, a (x and y unlabelled), labels a=1, b=2, k=2.  Condensed: [a];
DCG@2 = 1; ideal DCG@2 = 2 + 1/log2(3) = 2.63093; NDCG-f@2 = 0.38010.  The check prints 0.0000.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from judge_app.cli import main


def test_min_ndcg_f_condenses_the_whole_ranking(tmp_path: Path) -> None:
    db = tmp_path / "c.duckdb"
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 a 1\nq1 0 b 2\n")
    run = tmp_path / "r.trec"
    run.write_text("q1 Q0 x 1 3 r\nq1 Q0 y 2 2 r\nq1 Q0 a 3 1 r\n")
    rules = tmp_path / "rules.toml"
    rules.write_text('[[rule]]\nname = "q1"\nquery = "q1"\nexpect = "min_ndcg_f"\n'
                     "min = 0.3\ntop = 2\n")
    cli = CliRunner()
    for args in (["dataset", "create", "c", "--scale", "0=a,1=b,2=c"],
                 ["import", "qrels", "-d", "c", str(qrels)],
                 ["import", "run", "-d", "c", str(run), "--name", "r"]):
        assert cli.invoke(main, [*args, "--db", str(db)]).exit_code == 0
    result = cli.invoke(main, ["check", str(rules), "-d", "c", "--run", "r", "--db", str(db)])
    assert "NDCG-f@2 = 0.3801" in result.output, result.output
    assert result.exit_code == 0
