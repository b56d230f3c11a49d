"""Admin: import files into a dataset (uploads are only accepted here, with a size limit)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from judge_app.io.formats import ImportKind
from judge_app.io.ids import ID_NORMALIZATIONS
from judge_app.services import importing
from judge_app.ui import resources
from judge_app.ui.components import plain
from judge_app.ui.setup import pick_dataset
from judge_app.ui.wording import IMPORT_PAGE, on_page, page_errors

store = resources.store()
st.title("Import")
dataset = pick_dataset(store)
# each kind the page imports (by the name `sxs import` gives it) and the service call that does
# it, with the choices below; click logs are imported with `sxs import clicks` only
IMPORTS = {
    ImportKind.QRELS: lambda path: importing.import_qrels(
        store, dataset, path, normalize_ids=normalize, force=force),
    ImportKind.RUN: lambda path: importing.import_run(
        store, dataset, path, run_name or None, normalize_ids=normalize, force=force),
    ImportKind.JUDGMENTS: lambda path: importing.import_judgments(
        store, dataset, path, normalize_ids=normalize, force=force),
    ImportKind.DOCS: lambda path: importing.import_documents(
        store, dataset, path, normalize_ids=normalize, force=force),
    ImportKind.QUERIES: lambda path: importing.import_queries(
        store, dataset, path, normalize_ids=normalize, force=force),
    ImportKind.QUEPID: lambda path: importing.import_quepid(
        store, dataset, path, normalize_ids=normalize, force=force),
    ImportKind.LABELS: lambda path: importing.import_labels(
        store, dataset, path, normalize_ids=normalize, force=force),
    ImportKind.VOTES: lambda path: importing.import_votes(store, dataset, path),
}
kind = st.radio("What", list(IMPORTS), format_func=str,
                captions=[kind.description for kind in IMPORTS], horizontal=True)
run_name = st.text_input("Run name") if kind == ImportKind.RUN else None
AS_WRITTEN = "as written"
chosen = st.selectbox(
    "Ids", [AS_WRITTEN, *ID_NORMALIZATIONS], key="import:normalize_ids",
    help="Rewrite the file's query and doc ids: strip-zeros (0012 -> 12), lower (case), "
         "strip (surrounding spaces); as written keeps them exactly.")
normalize = None if chosen == AS_WRITTEN else chosen
force = st.checkbox(
    "Import even if degenerate", key="import:force",
    help="An import that shares no (query, doc) pair with the dataset's runs or judgments, "
         "has one grade only, merges over 10% of its lines as duplicates or one doc per "
         "query is refused unless this is ticked; so are documents or queries whose ids "
         "meet the runs' only after normalising them.")
upload = st.file_uploader(f"File (at most {resources.MAX_UPLOAD_MB} MB)",
                          max_upload_size=resources.MAX_UPLOAD_MB)
if upload is not None and st.button("Import", type="primary"):
    if upload.size > resources.MAX_UPLOAD_MB * 2**20:
        st.error(f"{plain(upload.name)} is larger than {int(resources.MAX_UPLOAD_MB)} MB")
        st.stop()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / Path(upload.name).name
        path.write_bytes(upload.getvalue())
        with page_errors(IMPORT_PAGE, strip=str(Path(tmp)) + "/"):
            st.success(plain(on_page(str(IMPORTS[kind](path)), IMPORT_PAGE)))
