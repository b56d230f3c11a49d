"""The dashboard's per-query figures, named by their queries (issue 25): the per-query delta
chart puts each bar's query id on its axis and the query's text in its tooltip; the queries
that cannot reach the ceiling are listed with their whole text, wrapped, not cut at a
column's width."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from judge_app.services.dashboard import number
from judge_app.ui.components import plain

UP, DOWN = "#2e7d32", "#c62828"
"""Bar colours: B better than A, B worse."""
TABLE_HEIGHT = 420
"""The low-ceiling list scrolls inside a box this tall (px) once it is longer."""


def delta_chart(data: pd.DataFrame, measure: str, stamp: str) -> alt.Chart:
    """Bars of ``data`` (:func:`judge_app.services.dashboard.delta_chart_data`: position,
    query_id, text, delta), sorted by delta; the x axis names each bar's query id (labels
    that would overlap are left out, so with many queries every few are named) and hovering
    a bar shows its id, its text and its delta."""
    order = data.sort_values("position")["query_id"].astype(str).tolist()
    shown = data.assign(query_id=data["query_id"].astype(str))
    return alt.Chart(shown).mark_bar().encode(
        alt.X("query_id:N", sort=order, title="query id (sorted by B - A)",
              axis=alt.Axis(labelAngle=-90, labelOverlap="greedy", labelLimit=80)),
        alt.Y("delta:Q", title=f"{measure} B - A"),
        color=alt.condition(alt.datum.delta > 0, alt.value(UP), alt.value(DOWN)),
        tooltip=[alt.Tooltip("query_id:N", title="query"),
                 alt.Tooltip("text:N", title="text"),
                 alt.Tooltip("delta:Q", title=f"{measure} B - A", format="+.4f")],
    ).properties(title=f"{measure} per query · {len(data):,} queries · {stamp}")


def low_ceiling_rows(low: pd.DataFrame, k: int) -> pd.DataFrame:
    """The low-ceiling queries (query_id, text, best_ndcg_m) as shown: id, the ceiling to
    three decimals, and the whole text last (escaped: the table reads Markdown), where its
    wrapped lines leave no gap before another column."""
    return pd.DataFrame({
        "query": [plain(query) for query in low["query_id"]],
        f"best NDCG-m@{int(k)}": [number(value) for value in low["best_ndcg_m"]],
        "text": [plain(text) for text in low["text"]],
    })


def low_ceiling_table(low: pd.DataFrame, k: int) -> None:
    """Draw :func:`low_ceiling_rows` as a table whose text wraps, scrolling in a box of
    :data:`TABLE_HEIGHT` px when it is longer."""
    rows = low_ceiling_rows(low, k)
    box = st.container(height=TABLE_HEIGHT) if len(rows) > 8 else st.container()
    with box:
        st.table(rows.set_index("query"))
