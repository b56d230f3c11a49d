"""My work: the signed-in judge's own votes and grades on a dataset, newest first
(:func:`judge_app.services.my_work.my_work`), each with a link back to its query on the judge
page (``?query=``: :mod:`judge_app.ui.query_opening`) to change a grade or vote again."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from judge_app.services.my_work import my_work
from judge_app.services.open_query import QUERY_PARAM
from judge_app.ui import resources, state
from judge_app.ui.components import plain

SHOWN = 200  # the newest rows listed
WIDTHS = [1.5, 0.6, 3.0, 2.2, 2.4, 0.9]
LINK_CHARS = 40  # a query's link text is cut here (the whole text is its tooltip)


def link_text(query_id: str, text: str) -> str:
    """``id · text``, cut at :data:`LINK_CHARS` with an ellipsis."""
    label = f"{query_id} · {text}"
    return label if len(label) <= LINK_CHARS else label[:LINK_CHARS - 1].rstrip() + "…"


store = resources.store()
judge: str = st.session_state[state.JUDGE]
st.title("My work")
names = store.dataset_names()
if not names:
    st.info("No dataset yet: an admin imports one.")
    st.stop()
chosen = st.session_state.get(state.DATASET)
name = st.selectbox("Dataset", names, index=names.index(chosen) if chosen in names else 0,
                    width=320)
dataset = store.dataset(name)
work = my_work(store, dataset, judge)
if work.empty:
    st.info(f"Nothing yet on {plain(name)}: your votes and grades appear here, newest first.")
    st.stop()
votes, grades = int((work["kind"] == "vote").sum()), int((work["kind"] == "grade").sum())
latest = f" (the latest {SHOWN:d} shown)" if len(work) > SHOWN else ""
counts = (f"{votes} vote{'s' * (votes != 1)} and {grades} grade{'s' * (grades != 1)}, newest "
          f"first{latest}. Open a query to change a grade or vote again: the new answer is a "
          "new row, and the old one stays here.")
st.caption(plain(counts))

header = st.columns(WIDTHS, vertical_alignment="bottom")
for column, title in zip(header, ("When (UTC)", "What", "Query", "Answer", "Reason",
                                  "Status"),
                         strict=True):
    column.markdown(f"**{plain(title)}**")
for row in work.head(SHOWN).itertuples():
    when, kind, query, answer, reason, status = st.columns(WIDTHS, vertical_alignment="center")
    when.caption(plain(pd.Timestamp(row.at).tz_convert("UTC").strftime("%Y-%m-%d %H:%M")))
    kind.caption(plain(row.kind))
    query.page_link("app_pages/judge.py", label=plain(link_text(row.query_id, row.query)),
                    help=plain(row.query), query_params={QUERY_PARAM: row.query_id})
    answer.markdown(plain(row.answer))
    reason.caption(plain(row.reason) if row.reason else "—")
    status.caption(plain(row.status) if row.status == "current" else f"*{plain(row.status)}*")
