"""The Store: one facade over the store's concept repositories, on one backend.

A store is a database (:mod:`judge_app.store.backend`: a DuckDB file by default, or
PostgreSQL) and the repositories that hold its SQL, one module per concept:

=====================  ==========================================================
``datasets``           datasets, grade scales, queries, documents (datasets.py)
``runs``               runs and their ranked results (runs.py)
``qrels``              dataset judgments and the grades imports replaced (judgments.py)
``labels``             expert labels and the label views (labels.py)
``gold``               known-answer (gold) items (gold.py)
``exclusions``         judges excluded, restored and weighted (exclusions.py)
``settled``           admins' grades settling disputed items (disputes.py)
``votes``              rounds, views, votes and retractions (votes.py)
``vote_history``       every vote out, votes from another store in (vote_history.py)
``work_history``       one judge's own votes and grades, every row (work_history.py)
``accounts``           judges: invitations, sign-in, sessions (judges.py)
``clicks``             click-log imports (clicks.py)
``llm``                LLM judge calls (llm.py)
``deletions``          deleting runs and datasets (deletion.py)
``transfers``          the whole store: tables, sequences, copies (transfer.py)
=====================  ==========================================================

Each public method of a repository is also a method of :class:`Store` of the same name (the
table below the class line): callers write ``store.cast_vote(...)``, and a reader finds the
method, its SQL and its docstring in the repository's module.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judge_app.store.backend import Backend
from judge_app.store.clicks import ClickLogs
from judge_app.store.datasets import Datasets
from judge_app.store.deletion import Deletions
from judge_app.store.dialect import Dialect
from judge_app.store.disputes import Adjudications
from judge_app.store.exclusions import JudgeExclusions
from judge_app.store.gold import GoldItems
from judge_app.store.judges import Judges
from judge_app.store.judgments import Judgments
from judge_app.store.labels import Labels
from judge_app.store.llm import LlmCalls
from judge_app.store.model import (
    DEFAULT_DB,
    Dataset,
    StoreAddress,
    default_db_path,
    require_store,
    store_address,
)
from judge_app.store.rounds import Rounds
from judge_app.store.runs import Runs
from judge_app.store.transfer import Transfers
from judge_app.store.vote_history import VoteHistory
from judge_app.store.votes import Votes
from judge_app.store.work_history import WorkHistory

__all__ = ["DEFAULT_DB", "Dataset", "Store", "StoreAddress", "default_db_path",
           "open_backend", "require_store", "store_address"]


def open_backend(address: StoreAddress, *, read_only: bool = False, create: bool = True
                 ) -> Backend:
    """The backend an address names: ``postgresql://…`` a PostgreSQL database, anything else
    a DuckDB file (created unless ``create`` is False).  The one place that tells the
    backends apart."""
    from judge_app.addresses import is_postgres

    if is_postgres(address):
        from judge_app.store.postgres import PostgresBackend

        return PostgresBackend(str(address))
    from judge_app.store.duckdb_backend import DuckDBBackend

    return DuckDBBackend(Path(address), read_only=read_only, create=create)


def forward(method: Callable, repository: str) -> Callable:
    """A Store method that calls ``method`` on the repository named ``repository``."""

    @functools.wraps(method)
    def call(self: Store, *args: Any, **kwargs: Any) -> Any:
        return method(getattr(self, repository), *args, **kwargs)

    return call


class Store:
    """An open sxs store: its backend and its repositories (see the module)."""

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False,
                 create: bool = True) -> None:
        """Open (and migrate) the store at ``path``; a missing file is created unless
        ``create`` is False, when it is :class:`~judge_app.errors.NotFound` (one line).
        A ``postgresql://`` address opens that database."""
        self.path = store_address(path) if path is not None else default_db_path()
        self.backend = backend = open_backend(self.path, read_only=read_only, create=create)
        self.datasets = Datasets(backend)
        self.runs = Runs(backend)
        self.qrels = Judgments(backend)
        self.labels = Labels(backend, self.runs)
        self.gold = GoldItems(backend)
        self.exclusions = JudgeExclusions(backend)
        self.settled = Adjudications(backend)
        self.accounts = Judges(backend)
        self.rounds = Rounds(backend, self.runs)
        self.votes = Votes(backend, self.runs, self.accounts)
        self.vote_history = VoteHistory(backend)
        self.work_history = WorkHistory(backend)
        self.clicks = ClickLogs(backend)
        self.llm = LlmCalls(backend)
        self.deletions = Deletions(backend, self.runs)
        self.transfers = Transfers(backend)
        if not read_only:
            backend.migrate()
            self.deletions.finish_deletions()

    @property
    def dialect(self) -> Dialect:
        """The SQL dialect's pieces of this store's backend."""
        return self.backend.dialect

    def close(self) -> None:
        self.backend.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def copy_rows_into(self, target: Store) -> dict[str, int]:
        """Copy every row of this store into ``target`` (empty, same schema); returns rows
        per table (``sxs_migrations`` as the target has it)."""
        return self.transfers.copy_rows_into(target.backend)

    # datasets: datasets.py
    create_dataset = forward(Datasets.create_dataset, "datasets")
    find_dataset = forward(Datasets.find_dataset, "datasets")
    dataset = forward(Datasets.dataset, "datasets")
    dataset_names = forward(Datasets.dataset_names, "datasets")
    put_queries = forward(Datasets.put_queries, "datasets")
    put_documents = forward(Datasets.put_documents, "datasets")
    queries = forward(Datasets.queries, "datasets")
    query_text = forward(Datasets.query_text, "datasets")
    field_names = forward(Datasets.field_names, "datasets")
    documents = forward(Datasets.documents, "datasets")
    # runs: runs.py
    put_run = forward(Runs.put_run, "runs")
    import_trec_run = forward(Runs.import_trec_run, "runs")
    run_names = forward(Runs.run_names, "runs")
    run = forward(Runs.run, "runs")
    run_id = forward(Runs.run_id, "runs")
    # qrels: judgments.py
    put_judgments = forward(Judgments.put_judgments, "qrels")
    measure_import = forward(Judgments.measure_import, "qrels")
    zero_padding_warning = forward(Judgments.zero_padding_warning, "qrels")
    import_trec_qrels = forward(Judgments.import_trec_qrels, "qrels")
    trec_qrels_rows = forward(Judgments.trec_qrels_rows, "qrels")
    judgments = forward(Judgments.judgments, "qrels")
    judgment_history = forward(Judgments.judgment_history, "qrels")
    append_judgment_history = forward(Judgments.append_judgment_history, "qrels")
    # labels: labels.py
    add_expert_label = forward(Labels.add_expert_label, "labels")
    append_expert_labels = forward(Labels.append_expert_labels, "labels")
    pool_labels = forward(Labels.pool_labels, "labels")
    expert_label_history = forward(Labels.expert_label_history, "labels")
    current_expert_labels = forward(Labels.current_expert_labels, "labels")
    data_version = forward(Labels.data_version, "labels")
    current_labels = forward(Labels.current_labels, "labels")
    ranked_labels = forward(Labels.ranked_labels, "labels")
    judged_at_k = forward(Labels.judged_at_k, "labels")
    backfill_candidates = forward(Labels.backfill_candidates, "labels")
    filled_judgments = forward(Labels.filled_judgments, "labels")
    expert_share = forward(Labels.expert_share, "labels")
    put_consensus_labels = forward(Labels.put_consensus_labels, "labels")
    consensus_labels = forward(Labels.consensus_labels, "labels")
    # gold: gold.py
    mark_gold_grades = forward(GoldItems.mark_gold_grades, "gold")
    mark_gold_pairs = forward(GoldItems.mark_gold_pairs, "gold")
    gold_grades = forward(GoldItems.gold_grades, "gold")
    gold_pairs = forward(GoldItems.gold_pairs, "gold")
    gold_queries_seen = forward(GoldItems.gold_queries_seen, "gold")
    gold_items_graded = forward(GoldItems.gold_items_graded, "gold")
    # exclusions: exclusions.py
    record_standing = forward(JudgeExclusions.record_standing, "exclusions")
    judge_known = forward(JudgeExclusions.judge_known, "exclusions")
    judge_standings = forward(JudgeExclusions.judge_standings, "exclusions")
    excluded_judges = forward(JudgeExclusions.excluded_judges, "exclusions")
    standing_events = forward(JudgeExclusions.standing_events, "exclusions")
    # adjudications: disputes.py
    adjudicate = forward(Adjudications.adjudicate, "settled")
    adjudications = forward(Adjudications.adjudications, "settled")
    # votes: votes.py
    set_round = forward(Rounds.set_round, "rounds")
    current_round = forward(Rounds.current_round, "rounds")
    issue_view = forward(Votes.issue_view, "votes")
    labels_shown = forward(Votes.labels_shown, "votes")
    release_view = forward(Votes.release_view, "votes")
    cast_vote = forward(Votes.cast_vote, "votes")
    retract_preference = forward(Votes.retract_preference, "votes")
    last_vote = forward(Votes.last_vote, "votes")
    preferences = forward(Votes.preferences, "votes")
    has_votes = forward(Votes.has_votes, "votes")
    vote_counts = forward(Votes.vote_counts, "votes")
    withdraw_label = forward(Votes.withdraw_label, "votes")
    # vote_history: vote_history.py
    all_votes = forward(VoteHistory.all_votes, "vote_history")
    append_votes = forward(VoteHistory.append_votes, "vote_history")
    # work_history: work_history.py
    judge_votes = forward(WorkHistory.judge_votes, "work_history")
    judge_grades = forward(WorkHistory.judge_grades, "work_history")
    # accounts: judges.py
    invite_judge = forward(Judges.invite_judge, "accounts")
    revoke_judge = forward(Judges.revoke_judge, "accounts")
    judges = forward(Judges.judges, "accounts")
    sign_in = forward(Judges.sign_in, "accounts")
    session_judge = forward(Judges.session_judge, "accounts")
    session_idle_seconds = forward(Judges.session_idle_seconds, "accounts")
    set_session_idle = forward(Judges.set_session_idle, "accounts")
    oidc_judge = forward(Judges.oidc_judge, "accounts")
    typed_judge = forward(Judges.typed_judge, "accounts")
    machine_judge = forward(Judges.machine_judge, "accounts")
    active_judge = forward(Judges.active_judge, "accounts")
    # clicks: clicks.py
    put_click_import = forward(ClickLogs.put_click_import, "clicks")
    click_imports = forward(ClickLogs.click_imports, "clicks")
    has_clicks = forward(ClickLogs.has_clicks, "clicks")
    click_rows = forward(ClickLogs.click_rows, "clicks")
    click_plan = forward(ClickLogs.click_plan, "clicks")
    # llm: llm.py
    add_llm_grade = forward(LlmCalls.add_llm_grade, "llm")
    add_llm_calls = forward(LlmCalls.add_llm_calls, "llm")
    llm_done = forward(LlmCalls.llm_done, "llm")
    llm_calls = forward(LlmCalls.llm_calls, "llm")
    llm_call_counts = forward(LlmCalls.llm_call_counts, "llm")
    # deletions: deletion.py
    run_deletion = forward(Deletions.run_deletion, "deletions")
    delete_run = forward(Deletions.delete_run, "deletions")
    dataset_deletion = forward(Deletions.dataset_deletion, "deletions")
    delete_dataset = forward(Deletions.delete_dataset, "deletions")
    finish_deletions = forward(Deletions.finish_deletions, "deletions")
    # transfers: transfer.py
    migrations = forward(Transfers.migrations, "transfers")
    table_names = forward(Transfers.table_names, "transfers")
    table_counts = forward(Transfers.table_counts, "transfers")
    sequence_positions = forward(Transfers.sequence_positions, "transfers")
    copy_to = forward(Transfers.copy_to, "transfers")
    clear_backup_mark = forward(Transfers.clear_backup_mark, "transfers")
