"""The judging session set-up in the sidebar: dataset, the two runs, depth, blind mode, fields."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from judge_app.store import Dataset, Store
from judge_app.ui import state
from judge_app.ui.components import plain


def pick_dataset(store: Store) -> Dataset:
    """A dataset chosen in a select box; stops the page with a hint when there is none."""
    names = store.dataset_names()
    if not names:
        st.info("No dataset yet: create one on the Settings page (or run `sxs demo`).")
        st.stop()
    return store.dataset(st.selectbox("Dataset", names))


@dataclass(frozen=True)
class Setup:
    dataset: Dataset
    run_a: str
    run_b: str
    k: int
    blind: bool
    fields: list[str]
    overlap: int


def session_setup(store: Store) -> Setup | None:
    """The judging round of the chosen dataset (set by an admin on the Settings page: the
    runs, k, judges per query, blind), with the document fields to show; None until there is
    one.  Without a round, an admin may pick the runs here (a judge may not)."""
    identity = st.session_state.get(state.IDENTITY)
    admin = bool(identity is not None and identity.admin)
    with st.sidebar:
        st.subheader("Session")
        names = store.dataset_names()
        if not names:
            st.info("No dataset yet: an admin imports one (or run `sxs demo`).")
            return None
        name = st.selectbox("Dataset", names, key=state.DATASET)
        dataset = store.dataset(name)
        found = store.current_round(dataset)
        if found is not None:
            run_a, run_b, k, blind, overlap = (found.run_a, found.run_b, found.k, found.blind,
                                               found.overlap)
            judges = f"{int(overlap)} judge{'s' if overlap > 1 else ''} per query"
            if blind:
                st.caption(f"Round: top {int(k)}, {plain(judges)}, blind")
            else:
                st.caption(f"Round: top {int(k)}, {plain(judges)}, {plain(run_a)} vs "
                           f"{plain(run_b)}")
        elif not admin:
            st.info(f"No judging round on {plain(name)} yet: an admin starts one in Settings.")
            return None
        else:
            runs = store.run_names(dataset)
            if len(runs) < 2:
                st.info(f"Dataset {plain(name)} needs two runs to compare.")
                return None
            run_a = st.selectbox("Baseline (A)", runs, key=state.RUN_A)
            others = [r for r in runs if r != run_a]
            run_b = st.selectbox("Candidate (B)", others, key=state.RUN_B)
            k = st.number_input("Depth k", min_value=1, max_value=100, value=10,
                                key=state.DEPTH)
            blind = st.toggle("Blind (hide which run is which)", value=True, key=state.BLIND)
            overlap = st.number_input("Judges per query", min_value=1, max_value=20, value=1,
                                      key=state.OVERLAP)
            st.caption("No round yet: start one in Settings so judges can vote.")
        available = field_names(store, dataset)
        fields = st.multiselect("Document fields to show", available,
                                default=available[:1], key=state.FIELDS)
    return Setup(dataset, run_a, run_b, int(k), bool(blind), list(fields), int(overlap))


@st.cache_data(ttl=300, show_spinner=False)
def _field_names(path: str, dataset: str, _store: Store) -> list[str]:
    return _store.field_names(_store.dataset(dataset))


def field_names(store: Store, dataset: Dataset) -> list[str]:
    return _field_names(str(store.path), dataset.name, store)
