"""The names of the file formats sxs reads and writes — declared once, light to import (the
CLI's choices are built from these at start-up).

* :data:`QRELS_FORMATS`: relevance files (``sxs import qrels --format``);
* :data:`TABLE_FORMATS`: tables of judgments, documents or queries (``--format``; by default
  from the file's suffix);
* :data:`CATALOG_FORMATS`: documents and queries (``sxs import docs|queries --format``): the
  tables, and :data:`SMART` record files (``.I``, ``.T``, ``.W``…; :mod:`judge_app.io.smart`);
* :data:`EXPORT_FORMATS`: ``sxs export`` and the Export page: ``trec`` qrels, ``quepid``
  ``query,docid,rating``, ``csv``/``parquet`` with provenance, ``wide`` one column a judge;
* :data:`VOTES`: ``sxs export votes`` and the Export page's votes, written as one of
  :data:`VOTE_FORMATS` (``csv``, ``parquet``, ``jsonl``; :mod:`judge_app.io.votes`), read back
  by ``sxs import votes``; :data:`RUN`: one stored run as a TREC run file; and
  :data:`EXPORT_CHOICES`: what ``sxs export`` writes (the label formats, ``votes``, ``run``);
* :data:`GOLD_FORMATS`: gold items (``sxs gold import --format``): TREC or SMART qrels, or a
  table of graded items (query_id, doc_id, grade) or of pairs (query_id, run_a, run_b,
  preferred_run); by default a table by the file's suffix, else qrels;
* :data:`CLICK_FORMATS`: click logs (``sxs import clicks --format``): ``ubi`` (OpenSearch
  User Behavior Insights JSON, bulk or plain) and the tables ``csv``, ``tsv``, ``parquet``;
* :class:`ImportKind`: what a file holds — the ``sxs import`` subcommand names, which the
  Import page shows as they are.
"""

from __future__ import annotations

from enum import StrEnum

SMART = "smart"
"""The SMART/Glasgow formats of the classic collections: ``qid docid 0 0`` relevance files,
and ``.I``/``.T``/``.W`` document and query files."""

QRELS_FORMATS: tuple[str, ...] = ("trec", SMART, "auto")
"""``sxs import qrels --format``: TREC ``qid 0 docid grade``; SMART/Glasgow ``qid docid 0 0``
(every listed pair relevant); auto: SMART when columns 3-4 are zero on every line."""

TABLE_FORMATS: tuple[str, ...] = ("csv", "tsv", "parquet", "json", "jsonl")
CATALOG_FORMATS: tuple[str, ...] = (*TABLE_FORMATS, SMART)
EXPORT_FORMATS: tuple[str, ...] = ("trec", "quepid", "csv", "parquet", "wide")
VOTES = "votes"
VOTE_FORMATS: tuple[str, ...] = ("csv", "parquet", "jsonl")
RUN = "run"
"""``sxs export run --run NAME``: one stored run as TREC run lines
(:func:`judge_app.io.trec.write_run`)."""
EXPORT_CHOICES: tuple[str, ...] = (*EXPORT_FORMATS, VOTES, RUN)
GOLD_FORMATS: tuple[str, ...] = ("trec", "smart", *TABLE_FORMATS)
CLICK_FORMATS: tuple[str, ...] = ("ubi", "csv", "tsv", "parquet")


class ImportKind(StrEnum):
    """What an imported file holds: ``sxs import <value>``, and the Import page's choice of
    the same name (``description`` is the caption beside it)."""

    QRELS = "qrels"
    RUN = "run"
    JUDGMENTS = "judgments"
    DOCS = "docs"
    QUERIES = "queries"
    QUEPID = "quepid"
    LABELS = "labels"
    CLICKS = "clicks"
    VOTES = "votes"

    @property
    def description(self) -> str:
        """What a file of this kind is, in a few words."""
        return _DESCRIPTIONS[self]


_DESCRIPTIONS = {
    ImportKind.QRELS: "the dataset's judgments, TREC qrels or SMART",
    ImportKind.RUN: "a TREC run",
    ImportKind.JUDGMENTS: "the dataset's judgments, as a table",
    ImportKind.DOCS: "documents: id, title, fields",
    ImportKind.QUERIES: "queries: id, text",
    ImportKind.QUEPID: "Quepid ratings, matched by query text",
    ImportKind.LABELS: "expert labels per judge",
    ImportKind.CLICKS: "a click log (UBI or a table)",
    ImportKind.VOTES: "side-by-side votes, as sxs exports them",
}
