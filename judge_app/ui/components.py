"""Small rendering helpers.  User-supplied text (queries, titles, fields, names) is always
shown as text: markdown characters are escaped and HTML is never allowed."""

from __future__ import annotations

import re

import streamlit as st

from judge_app.services.judging import ResultRow

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(text: object) -> str:
    """Text with every markdown character escaped, safe to pass to st.markdown."""
    return _MARKDOWN.sub(r"\\\1", str(text)).replace("\n", " ")


def grade_badge(row: ResultRow) -> None:
    if row.grade is None:
        st.badge("unlabelled", icon=":material/help:", color="orange")
    elif row.label_source == "expert":
        st.badge(f"{plain(row.grade_name)} (expert)", icon=":material/person:", color="violet")
    else:
        st.badge(plain(row.grade_name or row.grade), icon=":material/label:",
                 color="green" if row.grade and row.grade > 0 else "gray")


def result_card(row: ResultRow, fields: list[str], other_side: str) -> None:
    """Rank, title, chosen fields, the label badge and the shared mark of one result."""
    st.markdown(f"**{int(row.rank)}.** {plain(row.title)}")
    badges = st.container(horizontal=True, gap="small")
    with badges:
        grade_badge(row)
        if row.other_rank is not None:
            st.badge(f"shared: #{int(row.other_rank)} on the {plain(other_side)}",
                     icon=":material/link:", color="blue")
    for name in fields:
        value = row.fields.get(name)
        if value:
            shown = value if len(value) <= 300 else value[:300] + "…"
            st.caption(f"{plain(name)}: {plain(shown)}")
