"""``sxs llm-judge`` end to end: click's runner, a store file, the real local server."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from judge_app.cli import main
from judge_app.services import llm_judging
from judge_app.store import Store
from tests.llm.conftest import API_KEY
from tests.llm.shop import LLM_GRADES, build_shop


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "cli.duckdb"
    with Store(path) as store:
        build_shop(store)
    return path


def invoke(db, fake, *args: str, env: dict[str, str] | None = None):
    endpoint = ["--base-url", fake.base_url, "--model", "judge-model",
                "--api-key-env", "SXS_TEST_LLM_KEY", "--db", str(db), "--retries", "1"]
    return CliRunner().invoke(main, ["llm-judge", *args, *endpoint],
                              env={"SXS_TEST_LLM_KEY": API_KEY} if env is None else env)


def test_grade_prints_the_summary_and_stores_the_labels(db, fake) -> None:
    result = invoke(db, fake, "grade", "-d", "shop", "--run", "A", "--run", "B", "-k", "2",
                    "--price-prompt", "0.5", "--price-completion", "1.5")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == ("llm:judge-model grade: 8 answered, 2 failed, 0 not started, "
                        "0 already done")
    # 10 calls x (100 prompt tokens at 0.5 + 10 completion tokens at 1.5 per 1,000)
    assert lines[1] == ("calls: 10 · tokens: 1,000 prompt + 100 completion · "
                        "cost: 0.6500")
    assert len(fake.seen) == 10
    with Store(db) as store:
        labels = store.current_expert_labels(store.dataset("shop"), judge="llm:judge-model")
        assert len(store.llm_calls(store.dataset("shop"))) == 10
    assert {(r.query_id, r.doc_id): r.grade for r in labels.itertuples()} == LLM_GRADES

    again = invoke(db, fake, "grade", "-d", "shop", "--run", "A", "--run", "B", "-k", "2")
    assert again.exit_code == 0, again.output
    assert len(fake.seen) == 12  # the two failures only
    assert "cost: n/a (no prices given)" in again.stdout


def test_prefer_counts_the_position_bias_and_honours_the_budget(db, fake) -> None:
    """The queue is q4, q5 (RBO@2 0, q4 first by id), q1 (RBO 1/2 at depth 2), q2.  With 3
    calls: q4's first call is garbled (its second never made), q5 takes the other two."""
    budget = invoke(db, fake, "prefer", "A", "B", "-d", "shop", "-k", "2", "--max-calls", "3",
                    "--concurrency", "1")
    assert budget.exit_code == 0, budget.output
    assert [seen.query for seen in fake.seen] == ["garble lamp", "biased tea", "biased tea"]
    assert budget.stdout.splitlines() == [
        "llm:judge-model prefer: 1 answered, 1 failed, 2 not started, 0 already done",
        "conflicts (the two side orders disagreed: position bias): 1 of 1",
        "calls: 3 · tokens: 300 prompt + 30 completion · cost: n/a (no prices given)",
        "stopped by --max-calls: run again to go on"]
    rest = invoke(db, fake, "prefer", "A", "B", "-d", "shop", "-k", "2")
    assert rest.exit_code == 0, rest.output
    assert len(fake.seen) == 3 + 1 + 2 + 2
    assert rest.stdout.splitlines()[:2] == [
        "llm:judge-model prefer: 2 answered, 1 failed, 0 not started, 1 already done",
        "conflicts (the two side orders disagreed: position bias): 0 of 2"]
    with Store(db) as store:
        votes = store.preferences(store.dataset("shop"))
    assert set(votes["query_id"][votes["judge"] == "llm:judge-model"]) == {"q1", "q2", "q5"}


def test_a_missing_key_variable_is_one_line(db, fake) -> None:
    result = invoke(db, fake, "grade", "-d", "shop", "--run", "A", env={})
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        "Error: the environment variable SXS_TEST_LLM_KEY holding the API key is not set"]
    assert fake.seen == []


def test_without_the_llm_extra_the_error_says_how_to_install(db, fake, monkeypatch) -> None:
    monkeypatch.setattr(llm_judging.importlib.util, "find_spec",
                        lambda name: None if name == "httpx" else object())
    result = invoke(db, fake, "prefer", "A", "B", "-d", "shop")
    assert result.exit_code == 2
    assert result.stderr.strip() == ("Error: the LLM judge needs the llm extra: "
                                     "pip install 'sxs[llm]'")


def test_timeout_bounds_each_call_and_a_timed_out_call_is_a_stored_failure(tmp_path,
                                                                           fake) -> None:
    """The server sends the ``trickle`` answer a byte every 0.1 s (every read well inside
    ``--timeout``): the call fails as a timeout, is stored as a failure with its reason, and
    no grade is written; the other item is graded."""
    db, run = tmp_path / "t.duckdb", tmp_path / "a.trec"
    run.write_text("trickle Q0 d1 1 2 A\nred Q0 d2 1 2 A\n")
    cli = CliRunner()
    for args in (["dataset", "create", "t", "--scale", "esci"],
                 ["import", "run", "-d", "t", str(run), "--name", "A",
                  "--force"]):  # one doc per query: degenerate on purpose, two items
        assert cli.invoke(main, [*args, "--db", str(db)]).exit_code == 0
    result = invoke(db, fake, "grade", "-d", "t", "--run", "A", "--timeout", "0.5")
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == ("llm:judge-model grade: 1 answered, 1 failed, "
                                             "0 not started, 0 already done")
    assert fake.count("trickle") == 2  # --retries 1: asked twice
    with Store(db) as store:
        dataset = store.dataset("t")
        calls = store.llm_calls(dataset).set_index("query_id")
        labels = store.current_expert_labels(dataset, judge="llm:judge-model")
    assert calls.loc["trickle", "failure"] == "no answer within 0.5 s; gave up after 2 attempts"
    assert list(labels["query_id"]) == ["red"]


def test_witness_must_have_labels_and_a_filled_set_to_count_in(db, fake, tmp_path) -> None:
    """``--witness`` names a machine witness whose labels fill the gaps of the filled set:
    asked with the dataset's labels alone, or before that witness labelled anything, it
    would change nothing while every figure claimed it — refused in one line, exit 2."""
    cli = CliRunner()

    def sxs(*args: str):
        return cli.invoke(main, [*args, "--db", str(db)])

    refused = {
        "--witness llm: no llm:* judge has labelled anything in dataset 'shop'":
            sxs("evaluate", "-d", "shop", "--run", "A", "-m", "ndcg@2", "--witness", "llm"),
        "--witness clicks: no clicks:* judge has labelled anything in dataset 'shop'":
            sxs("report", "A", "B", str(tmp_path / "r.html"), "-d", "shop", "--witness",
                "clicks"),
        "--witness llm counts a machine witness's labels in the filled set, but "
        "--dataset-labels-only shows the dataset's own judgments":
            sxs("compare", "A", "B", "-d", "shop", "--dataset-labels-only", "--witness",
                "llm"),
    }
    for message, result in refused.items():
        assert result.exit_code == 2, result.output
        assert len(result.output.strip().splitlines()) == 1, result.output
        assert message in result.output
    assert not (tmp_path / "r.html").exists()

    assert invoke(db, fake, "grade", "-d", "shop", "--run", "A", "-k", "2").exit_code == 0
    counted = sxs("evaluate", "-d", "shop", "--run", "A", "-m", "ndcg@2", "--witness", "llm")
    assert counted.exit_code == 0, counted.output
    assert "filled:experts+llm" in counted.output
    still = sxs("evaluate", "-d", "shop", "--run", "A", "-m", "ndcg@2", "--witness", "llm",
                "--dataset-labels-only")
    assert still.exit_code == 2 and "--dataset-labels-only" in still.output
