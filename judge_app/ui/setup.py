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
    """Draw the set-up widgets; None until a dataset with two runs is chosen."""
    with st.sidebar:
        st.subheader("Session")
        names = store.dataset_names()
        if not names:
            st.info("No dataset yet: an admin imports one (or run `sxs demo`).")
            return None
        name = st.selectbox("Dataset", names, key=state.DATASET)
        dataset = store.dataset(name)
        runs = store.run_names(dataset)
        if len(runs) < 2:
            st.info(f"Dataset {plain(name)} needs two runs to compare.")
            return None
        run_a = st.selectbox("Baseline (A)", runs, key=state.RUN_A)
        others = [r for r in runs if r != run_a]
        run_b = st.selectbox("Candidate (B)", others, key=state.RUN_B)
        k = st.number_input("Depth k", min_value=1, max_value=100, value=10, key=state.DEPTH)
        blind = st.toggle("Blind (hide which run is which)", value=True, key=state.BLIND)
        available = field_names(store, dataset)
        fields = st.multiselect("Document fields to show", available,
                                default=available[:1], key=state.FIELDS)
        overlap = st.number_input("Judges per query", min_value=1, max_value=20, value=1,
                                  key=state.OVERLAP)
    return Setup(dataset, run_a, run_b, int(k), bool(blind), list(fields), int(overlap))


@st.cache_data(ttl=300, show_spinner=False)
def _field_names(path: str, dataset: str, _store: Store) -> list[str]:
    return _store.field_names(_store.dataset(dataset))


def field_names(store: Store, dataset: Dataset) -> list[str]:
    return _field_names(str(store.path), dataset.name, store)
