"""The label policy ``dawid-skene``: ``consensus_labels`` holds, per label basis and (dataset,
query, doc), the Dawid-Skene consensus grade of the counted judges' current labels with its
posterior probability (``confidence``) and how many judges; the service that computes it
(:mod:`judge_app.services.consensus_labels`) writes a dataset and basis whole, with the
store's data version it was computed at (``data_version``), and computes it again when that
moved.

``filled_labels`` (``0003``'s text, defined again here) gains the policy's rows: the consensus
grade overrides the dataset's grade; an item no consensus was computed for yet (labelled after
it) takes the lower median of ``0016``'s ``expert_consensus``, as policy ``median`` would.
The same statement on DuckDB and PostgreSQL but for DuckDB's DOUBLE."""

from __future__ import annotations

from judge_app.store.migrations.m0003_label_and_vote_views import FILLED_LABELS

TABLE = """
        CREATE TABLE consensus_labels (
            dataset_id INTEGER NOT NULL REFERENCES datasets (dataset_id),
            basis TEXT NOT NULL,
            query_id TEXT NOT NULL,
            doc_id TEXT NOT NULL,
            grade INTEGER NOT NULL,
            confidence {double} NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
            judges INTEGER NOT NULL,
            data_version TEXT NOT NULL,
            computed_at TIMESTAMPTZ NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (dataset_id, basis, query_id, doc_id)
        );
        DROP VIEW filled_labels;
"""

DAWID_SKENE = """
            UNION ALL
            SELECT s.dataset_id, s.basis, 'dawid-skene' AS policy, s.query_id, s.doc_id,
                   coalesce(c.grade, s.median_grade, s.dataset_grade) AS grade,
                   CASE WHEN c.grade IS NULL AND s.median_grade IS NULL THEN 'dataset'
                        WHEN s.dataset_grade IS NULL THEN 'expert'
                        ELSE 'expert_override' END AS source,
                   s.judges
            FROM label_sources s LEFT JOIN consensus_labels c
                ON c.dataset_id = s.dataset_id AND c.basis = s.basis
                   AND c.query_id = s.query_id AND c.doc_id = s.doc_id"""

SQL = {backend: TABLE.replace("{double}", double)
       + f"        CREATE VIEW filled_labels AS{FILLED_LABELS}{DAWID_SKENE};\n"
       for backend, double in (("duckdb", "DOUBLE"), ("postgresql", "DOUBLE PRECISION"))}
