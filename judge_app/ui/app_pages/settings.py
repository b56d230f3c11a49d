"""Admin: the judging round of each dataset first (what an admin comes here for), then the
datasets with their grade scale, a new dataset, and backups."""

from __future__ import annotations

import streamlit as st

from judge_app.addresses import describe_address
from judge_app.services import backups, importing
from judge_app.ui import resources, state
from judge_app.ui.components import plain, user_errors
from judge_app.ui.round_form import round_form
from metrics.scale import NAMED_SCALES

store = resources.store()
st.title("Settings")
st.caption(f"Store: {plain(describe_address(store.path))} · schema {plain(store.migrations()[-1])}")
judges = store.judges()
admins = judges[judges["admin"] & judges["revoked_at"].isna()]["name"]
st.caption(f"Admins: {plain(', '.join(admins))} · invite judges on the Judges page (or "
           "`sxs invite NAME`)")
for name in store.dataset_names():
    dataset = store.dataset(name)
    runs = store.run_names(dataset)
    if len(runs) < 2:
        continue
    round_form(store, dataset, runs, by=str(st.session_state.get(state.JUDGE)))

st.subheader("Datasets")
for name in store.dataset_names():
    dataset = store.dataset(name)
    runs = ", ".join(store.run_names(dataset)) or "no runs"
    st.markdown(f"**{plain(name)}** · {plain(dataset.scale.describe())} · runs: {plain(runs)}")

with st.form("new-dataset"):
    st.subheader("New dataset")
    name = st.text_input("Name")
    scale = st.text_input("Scale", value="esci",
                          help=f"{', '.join(NAMED_SCALES)}, or 0=Bad,1=Fair,2=Good")
    if st.form_submit_button("Create"):
        with user_errors():
            created = importing.create_dataset(store, name, scale)
        st.success(f"Created {plain(created.name)}: {plain(created.scale.describe())}")

st.subheader("Backup")
folder = backups.backup_folder(store.path)
schedule = resources.backup_schedule(str(store.path))
if schedule is not None:
    last = schedule.last_error or (str(schedule.last) if schedule.last else "none yet")
    st.caption(f"Every {schedule.every:,.0f} s into {plain(folder)}, keeping "
               f"{int(schedule.keep)}; last: {plain(last)}")
if st.button("Back up now", help=f"The whole store, into {folder}"):
    with user_errors():
        report = backups.backup_into_folder(store, folder, backups.backup_keep())
    st.success(f"Backed up {plain(report)}")
