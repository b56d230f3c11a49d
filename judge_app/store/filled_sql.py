"""The filled label set of one label policy, as SQL: the rows ``filled_labels WHERE policy = p``
holds (dataset_id, basis, policy, query_id, doc_id, grade, source, judges).

Why: planning a statement on the ``filled_labels`` view binds all of its policies' branches,
each over ``label_sources`` — on DuckDB about 0.06 s of CPU per statement, more than reading
100,000 labels; one policy's branch plans in a third of that.  ``sxs decide`` and ``sxs
backfill next`` read one policy (:meth:`~judge_app.store.labels.Labels.pool_labels`).

The text is the view's own, composed here as migration 0020 composes the view (0003's
branches and 0017's Dawid-Skene branch under 0020's adjudications), with only the asked
policy's branch; the newest adjudication's query is the dialect's
(:attr:`~judge_app.store.dialect.Dialect.settled_adjudications`).
``tests/store/test_filled_sql.py`` checks the rows equal the view's for every policy and
basis on both backends: a migration that redefines ``filled_labels`` redefines this too.
"""

from __future__ import annotations

from judge_app.policies import LabelPolicy
from judge_app.store.migrations.m0003_label_and_vote_views import FILLED_LABELS
from judge_app.store.migrations.m0017_dawid_skene_labels import DAWID_SKENE
from judge_app.store.migrations.m0020_gold_queue_and_adjudications import VIEW

_BODY = VIEW.split("CREATE VIEW filled_labels AS", 1)[1].strip().removesuffix(";")


def filled_labels_of(policy: LabelPolicy | str, settled_adjudications: str) -> str:
    """A SELECT of ``filled_labels``'s rows for ``policy`` (every dataset and basis)."""
    label = f"'{LabelPolicy(policy).value}' AS policy"
    branches = [b for b in (FILLED_LABELS + DAWID_SKENE).split("UNION ALL") if label in b]
    if len(branches) != 1:
        raise ValueError(f"filled_labels has {len(branches)} branches for {label}")
    return (_BODY.replace("{filled}", branches[0]).replace("{dawid_skene}", "")
            .replace("{settled}", settled_adjudications))
