"""Admin: import files into a dataset (uploads are only accepted here, with a size limit)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from judge_app.io.ids import ID_NORMALIZATIONS
from judge_app.services import importing
from judge_app.ui import resources
from judge_app.ui.components import plain, user_errors
from judge_app.ui.setup import pick_dataset

store = resources.store()
st.title("Import")
dataset = pick_dataset(store)
kind = st.radio("What", ["qrels", "run", "judgments", "documents", "queries", "quepid",
                        "expert labels"], horizontal=True)
run_name = st.text_input("Run name") if kind == "run" else None
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
        with user_errors(strip=str(Path(tmp)) + "/"):
            action = {
                "qrels": lambda: importing.import_qrels(
                    store, dataset, path, normalize_ids=normalize, force=force),
                "run": lambda: importing.import_run(
                    store, dataset, path, run_name or None, normalize_ids=normalize,
                    force=force),
                "judgments": lambda: importing.import_judgments(
                    store, dataset, path, normalize_ids=normalize, force=force),
                "documents": lambda: importing.import_documents(
                    store, dataset, path, normalize_ids=normalize, force=force),
                "queries": lambda: importing.import_queries(
                    store, dataset, path, normalize_ids=normalize, force=force),
                "quepid": lambda: importing.import_quepid(
                    store, dataset, path, normalize_ids=normalize, force=force),
                "expert labels": lambda: importing.import_labels(
                    store, dataset, path, normalize_ids=normalize, force=force),
            }[kind]
            st.success(plain(action()))
