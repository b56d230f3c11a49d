"""Admin: import files into a dataset (uploads are only accepted here, with a size limit)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

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
                "qrels": lambda: importing.import_qrels(store, dataset, path),
                "run": lambda: importing.import_run(store, dataset, path, run_name or None),
                "judgments": lambda: importing.import_judgments(store, dataset, path),
                "documents": lambda: importing.import_documents(store, dataset, path),
                "queries": lambda: importing.import_queries(store, dataset, path),
                "quepid": lambda: importing.import_quepid(store, dataset, path),
                "expert labels": lambda: importing.import_labels(store, dataset, path),
            }[kind]
            st.success(plain(action()))
