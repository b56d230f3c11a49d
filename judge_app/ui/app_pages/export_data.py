"""Admin: download labels in any export format, or the side-by-side votes."""

from __future__ import annotations

import tempfile
from pathlib import Path

import streamlit as st

from judge_app.io.formats import EXPORT_CHOICES, RUN, VOTE_FORMATS, VOTES
from judge_app.io.names import path_inside
from judge_app.policies import LabelPolicy, choices
from judge_app.services import exporting
from judge_app.ui import resources
from judge_app.ui.components import plain, user_errors
from judge_app.ui.setup import pick_dataset

store = resources.store()
st.title("Export")
dataset = pick_dataset(store)
fmt = st.radio("Format", list(EXPORT_CHOICES), horizontal=True,
               captions=["TREC qrels", "query,docid,rating", "labels with provenance",
                         "labels with provenance", "one column per judge",
                         "side-by-side votes, reasons, stale and retracted marked",
                         "one stored run as TREC run lines"])
if fmt == VOTES:
    file_format = st.radio("File", list(VOTE_FORMATS), horizontal=True)
    suffix = f".{file_format}"
elif fmt == RUN:
    run = st.selectbox("Run", store.run_names(dataset))
    suffix = ".run"
else:
    filled = st.toggle("Filled label set (expert labels fill the gaps; under every policy "
                       "but dataset_first they also override dataset grades)",
                       disabled=fmt not in ("trec", "quepid"))
    policy = st.selectbox("Policy", choices(LabelPolicy), disabled=not filled)
    suffix = {"trec": ".qrels", "parquet": ".parquet"}.get(fmt, ".csv")
with tempfile.TemporaryDirectory() as tmp:
    path = path_inside(Path(tmp), f"{dataset.name}-{fmt}", suffix)
    with user_errors(strip=str(Path(tmp)) + "/"):
        if fmt == VOTES:
            rows = exporting.export_votes(store, dataset, path, file_format)
        elif fmt == RUN:
            rows = exporting.export_run(store, dataset, str(run), path)
        else:
            rows = exporting.export_labels(store, dataset, path, fmt, filled, policy)
            st.caption(plain(exporting.labels_exported(store, dataset, fmt, filled, policy)))
    st.download_button(f"Download {rows:,} rows", path.read_bytes(), file_name=path.name,
                       type="primary", icon=":material/download:")
