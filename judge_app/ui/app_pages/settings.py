"""Admin: the judging round of each dataset first (what an admin comes here for), then the
datasets with their grade scale, a new dataset, and backups."""

from __future__ import annotations

import streamlit as st

from judge_app.addresses import describe_address
from judge_app.services import backups, importing, judging
from judge_app.ui import resources, state
from judge_app.ui.components import plain, user_errors
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
    current = store.current_round(dataset)
    with st.form(f"round:{name}"):
        st.subheader(f"Judging round on {plain(name)}")
        # in rows, so the whole round fits a laptop's screen (1366x768) above the fold
        first, second, third = st.columns(3)
        run_a = first.selectbox("Baseline (A)", runs, index=runs.index(current.run_a)
                                if current and current.run_a in runs else 0)
        run_b = second.selectbox("Candidate (B)", runs, index=runs.index(current.run_b)
                                 if current and current.run_b in runs else 1)
        k = third.number_input("Depth k", 1, 100, current.k if current else 10)
        first, second, third = st.columns(3, vertical_alignment="bottom")
        overlap = first.number_input("Judges per query", 1, 20,
                                     current.overlap if current else 1)
        lease = second.number_input("Lease (idle minutes)", 1, 120,
                                    (current.lease_seconds // 60) if current else 5,
                                    help="How long a query stays with the judge who opened "
                                         "it, idle, before it goes to another judge.")
        blind = third.toggle("Blind", value=current.blind if current else True,
                             help="Judges see neither the run names nor other judges' grades.")
        stop = third.toggle("Stop when decided", value=current.stop_when_decided if current
                            else False, help="Stop serving this pair once the labels decide "
                            "it (as `sxs decide` does) and tell the judges it is done")
        if st.form_submit_button("Start this round", type="primary"):
            with user_errors():
                judging.start_round(store, dataset, run_a, run_b, int(k), int(overlap),
                                    bool(blind), int(lease),
                                    by=str(st.session_state.get(state.JUDGE)),
                                    stop_when_decided=bool(stop))
            st.success("Round saved: judges now vote with these settings.")

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
