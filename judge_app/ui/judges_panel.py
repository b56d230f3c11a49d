"""The dashboard's Judges section (admins only): the per-judge figures of
:func:`judge_app.services.judge_report.judge_report`, two charts — gold accuracy with its
Wilson interval, and the share of blind votes for the left side with its interval around the
0.5 that randomised sides imply — who is excluded, and the forms that act on them (exclude or
restore a judge; settle a disputed item, :mod:`judge_app.services.disputes`).

A judge named in the page's ``judge`` query parameter (the Judges page links each judge here)
is shown first, with every figure and flag of theirs."""

from __future__ import annotations

import altair as alt
import pandas as pd
import streamlit as st

from judge_app.policies import LabelPolicy
from judge_app.services import disputes, judge_report, judge_standing
from judge_app.store import Dataset, Store
from judge_app.ui.components import plain, user_errors

# excluded and flags first: on a narrow screen the table scrolls, and they are the headline
TABLE = {"excluded": "excluded", "flags": "flags", "gold_items": "gold items",
         "gold_exact": "gold exact", "gold_within_one": "gold ±1", "gold_pairs": "gold pairs",
         "gold_pair_agree": "gold pairs agree",
         "consensus_items": "consensus items", "consensus_kappa": "κ with consensus",
         "decided_votes": "blind votes", "left_share": "left share", "side_p": "side p",
         "timed": "timed", "median_seconds": "median s", "share_fast": "too fast"}
QUERY_PARAM = "judge"


def _interval_chart(frame: pd.DataFrame, value: str, low: str, high: str, title: str,
                    axis: str, reference: float | None = None) -> alt.LayerChart:
    data = frame.reset_index()[["judge", value, low, high, "status"]].dropna(subset=[value])
    base = alt.Chart(data).encode(alt.Y("judge:N", title=None, sort=None))
    scale = alt.Scale(domain=[0, 1])
    status = alt.Color("status:N", title=None,
                       scale=alt.Scale(domain=["counted", "flagged", "excluded"],
                                       range=["#1565c0", "#ef6c00", "#9e9e9e"]))
    rules = base.mark_rule(strokeWidth=2).encode(alt.X(f"{low}:Q", scale=scale, title=axis),
                                                 alt.X2(f"{high}:Q"), status)
    points = base.mark_point(filled=True, size=80).encode(
        alt.X(f"{value}:Q", scale=scale), status,
        tooltip=["judge", alt.Tooltip(f"{value}:Q", format=".2f"),
                 alt.Tooltip(f"{low}:Q", format=".2f"), alt.Tooltip(f"{high}:Q", format=".2f")])
    layers = [rules, points]
    if reference is not None:
        layers.append(alt.Chart(pd.DataFrame({"x": [reference]})).mark_rule(
            strokeDash=[4, 4], color="#616161").encode(x="x:Q"))
    return alt.layer(*layers).properties(title=title, height=_height(len(data)))


def _height(judges: int) -> int:
    """Room for every judge's name on the axis."""
    return max(120, 30 * judges + 40)


def _status(figures: pd.DataFrame) -> pd.Series:
    return pd.Series(["excluded" if ex else "flagged" if flags else "counted"
                      for ex, flags in zip(figures["excluded"], figures["flags"], strict=True)],
                     index=figures.index)


def show(store: Store, dataset: Dataset, admin: str, policy: str = "median") -> None:
    """Draw the section for ``dataset``; ``admin`` is who acts on the forms; ``policy``, the
    label policy in force, orders the disputes (:func:`disputes.dispute_table`)."""
    st.header("Judges", anchor="judges")
    with user_errors():
        figures, raised = judge_report.judge_report(store, dataset)
    left_out = judge_standing.left_out_line(store, dataset)
    st.caption("Per judge: accuracy on gold items (exact and within one grade, Wilson 95% "
               "interval), quadratic-weighted kappa with the consensus of the other judges, "
               "the share of decided blind votes for the left side (binomial test against "
               "0.5), speed; each figure with the items it stands on")
    if not left_out:
        st.caption("No judge is excluded.")
    if left_out:
        st.warning(plain(left_out.replace("left out: ", "Left out of every figure: ")))
    if figures.empty:
        st.info("No labels or votes yet on this dataset.")
        return
    figures = figures.assign(status=_status(figures))
    focus = st.query_params.get(QUERY_PARAM)
    if focus is not None and focus in figures.index:
        st.subheader(f"Figures of {plain(focus)}")
        row = figures.loc[focus].drop("status")
        st.dataframe(row.rename("value").to_frame().astype(str), width="stretch")
        mine = raised[raised["judge"] == focus]
        for flag in mine.itertuples():
            st.caption(f"flag {plain(flag.flag)}: {plain(flag.figure)} {flag.value:.3g} "
                       f"against {flag.threshold:.3g}, over {int(flag.items)} items")
    shown = figures[[c for c in TABLE if c in figures.columns]].rename(columns=TABLE)
    share = st.column_config.NumberColumn(format="%.2f")
    st.dataframe(shown, width="stretch", column_config={
        "excluded": st.column_config.CheckboxColumn("excluded"),
        **{TABLE[c]: share for c in ("gold_exact", "gold_within_one", "gold_pair_agree",
                                     "consensus_kappa", "left_share", "share_fast")},
        "side p": st.column_config.NumberColumn(format="%.3g"),
        "median s": st.column_config.NumberColumn(format="%.1f"),
        "flags": st.column_config.TextColumn(width="medium")})
    charts = st.columns(2)
    if "gold_exact" in figures.columns and figures["gold_exact"].notna().any():
        charts[0].altair_chart(_interval_chart(
            figures, "gold_exact", "gold_exact_low", "gold_exact_high",
            "Gold accuracy (exact), Wilson 95%", "share of gold items graded as expected"),
            width="stretch", height=_height(len(figures)) + 60)
    else:
        charts[0].caption("No judge has graded a gold item yet: mark some with `sxs gold`.")
    if "left_share" in figures.columns and figures["left_share"].notna().any():
        charts[1].altair_chart(_interval_chart(
            figures, "left_share", "left_share_low", "left_share_high",
            "Side bias: share of blind votes for the left", "share left (0.5: no bias)",
            reference=0.5), width="stretch", height=_height(len(figures)) + 60)
    else:
        charts[1].caption("No decided blind vote yet, so no side bias to show.")
    _standing_form(store, dataset, figures, admin)
    _settle_form(store, dataset, admin, policy)


def _standing_form(store: Store, dataset: Dataset, figures: pd.DataFrame, admin: str) -> None:
    with st.form("judge-standing", border=True):
        st.markdown("**Exclude or restore a judge** — recorded with who and why; restoring "
                    "brings their labels and votes back")
        row = st.container(horizontal=True, vertical_alignment="bottom")
        with row:
            who = st.selectbox("Judge", figures.index.tolist(), width=240)
            reason = st.text_input("Why", max_chars=300, width=320)
            excluded = st.form_submit_button("Exclude")
            restored = st.form_submit_button("Restore")
    if excluded or restored:
        act = judge_standing.exclude if excluded else judge_standing.restore
        with user_errors():
            said = act(store, who.removesuffix(" (unverified)"), dataset, by=admin,
                       reason=reason or None)
        st.success(plain(said))
        st.rerun()


def _settle_form(store: Store, dataset: Dataset, admin: str, policy: str) -> None:
    table = disputes.dispute_table(store, dataset, policy)
    st.subheader("Disputes")
    if table.empty:
        st.caption("No item whose judges disagree.")
        return
    measure = ("the Dawid-Skene posterior entropy" if policy == LabelPolicy.DAWID_SKENE
               else "the entropy of the grades given")
    st.caption(f"{len(table):,} items whose judges disagree, most disputed first (by "
               f"{plain(measure)}); a settled item takes the admin's grade in every label set.")
    st.dataframe(table.head(20), hide_index=True, width="stretch")
    scale = dataset.scale
    with st.form("settle", border=True):
        st.markdown("**Settle an item** — your grade fills it under every label policy")
        row = st.container(horizontal=True, vertical_alignment="bottom")
        with row:
            keys = list(zip(table["query_id"], table["doc_id"], strict=True))[:50]
            item = st.selectbox("Item", keys, format_func=lambda k: f"{k[0]} / {k[1]}",
                                width=260)
            grade = st.selectbox("Grade", scale.values, format_func=scale.name_of,
                                 width=180)
            gold = st.checkbox("Also a gold item")
            settled = st.form_submit_button("Settle")
    if settled:
        with user_errors():
            said = disputes.adjudicate(store, dataset, item[0], item[1], int(grade), by=admin,
                                       gold=gold)
        st.success(plain(said))
