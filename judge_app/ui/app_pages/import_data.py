"""Admin: import files into a dataset (uploads are only accepted here, with a size limit)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from judge_app import services
from judge_app.errors import SxsError
from judge_app.ui import resources
from judge_app.ui.components import plain
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
        try:
            action = {
                "qrels": lambda: services.import_qrels(store, dataset, path),
                "run": lambda: services.import_run(store, dataset, path, run_name or None),
                "judgments": lambda: services.import_judgments(store, dataset, path),
                "documents": lambda: services.import_documents(store, dataset, path),
                "queries": lambda: services.import_queries(store, dataset, path),
                "quepid": lambda: services.import_quepid(store, dataset, path),
                "expert labels": lambda: services.import_labels(store, dataset, path),
            }[kind]
            st.success(plain(action()))
        except (SxsError, ValueError) as error:
            st.error(plain(str(error).replace(str(Path(tmp)) + "/", "")))
