"""The label views of ``0003`` defined again, as they stand there, and on PostgreSQL the lookup
indexes of ``0011`` made where they are missing: every store ends with the same schema,
whichever text of those migrations it was given.

``0003`` and ``0011`` were edited after they first ran.  ``0003`` took the witnesses and label
bases in place (a store created before kept views with no ``basis``, which today's readers
need); on PostgreSQL its ``label_sources`` and ``ranked_labels`` were rewritten for speed and
``0011`` gained its indexes, also in place (a store migrated before kept the slower views and
no indexes).  ``expert_consensus``, ``label_sources``, ``filled_labels`` and ``ranked_labels``
are dropped (the readers first) and created from ``0003``'s text; ``current_expert_labels`` and
``current_votes`` need nothing: ``0005`` defines them again in full.
"""

from __future__ import annotations

from judge_app.store.migrations.m0003_label_and_vote_views import (
    EXPERT_CONSENSUS,
    FILLED_LABELS,
    LABEL_SOURCES,
    RANKED_LABELS,
)

DROP_VIEWS = """
        DROP VIEW IF EXISTS ranked_labels;
        DROP VIEW IF EXISTS filled_labels;
        DROP VIEW IF EXISTS label_sources;
        DROP VIEW IF EXISTS expert_consensus;
"""

# DuckDB's scans need none
LOOKUP_INDEXES = {"duckdb": "", "postgresql": """
        CREATE INDEX IF NOT EXISTS expert_labels_by_query
            ON expert_labels (dataset_id, query_id, doc_id);
        CREATE INDEX IF NOT EXISTS expert_labels_by_judge
            ON expert_labels (dataset_id, judge, query_id, doc_id);
        CREATE INDEX IF NOT EXISTS judgments_by_query ON judgments (dataset_id, query_id, doc_id);
        CREATE INDEX IF NOT EXISTS run_results_by_run ON run_results (run_id, query_id, rank);
        CREATE INDEX IF NOT EXISTS views_by_query ON views (dataset_id, query_id, run_1, run_2);
        CREATE INDEX IF NOT EXISTS preferences_by_query
            ON preferences (dataset_id, query_id, run_1, run_2);
"""}

SQL = {backend: DROP_VIEWS + f"""
        CREATE VIEW expert_consensus AS{EXPERT_CONSENSUS[backend]};
        CREATE VIEW label_sources AS{LABEL_SOURCES[backend]};
        CREATE VIEW filled_labels AS{FILLED_LABELS};
        CREATE VIEW ranked_labels AS{RANKED_LABELS[backend]};
""" + LOOKUP_INDEXES[backend] for backend in ("duckdb", "postgresql")}
