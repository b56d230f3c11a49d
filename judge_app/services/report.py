"""``sxs report``: the dashboard as one self-contained HTML file (no scripts, no network).

Charts are inline SVG drawn here; every text that came from users or data is escaped.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

from judge_app.services.clicks import SessionsReplayed
from judge_app.services.dashboard import (
    Dashboard,
    delta_chart_data,
    filling_table,
    number,
    per_run_table,
    readable,
)

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px;
       color: #222; line-height: 1.45; }
h1 { margin-bottom: 0 } h2 { margin-top: 2.2rem; border-bottom: 1px solid #ddd; }
.stamp { color: #666; font-size: .9rem }
table { border-collapse: collapse; margin: .6rem 0; font-size: .92rem }
th, td { padding: .25rem .6rem; border-bottom: 1px solid #eee; text-align: right }
th:first-child, td:first-child { text-align: left }
.pass { color: #1a7f37 } .fail { color: #c62828; font-weight: 600 }
.note { color: #555; font-size: .9rem }
"""


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _number(value: object) -> str:
    """A value's text, escaped; missing values as the dashboard shows them."""
    return _e(number(value, 4))


def table(frame: pd.DataFrame, index: bool = True) -> str:
    """An HTML table of a DataFrame, every cell escaped; numbers as the dashboard shows them
    (:func:`~judge_app.services.dashboard.readable`), right-aligned."""
    if frame is None or frame.empty:
        return '<p class="note">Nothing yet.</p>'
    shown = frame.reset_index() if index else frame
    numeric = [pd.api.types.is_numeric_dtype(shown[c]) for c in shown.columns]
    text = readable(shown, 4)
    head = "".join(f"<th>{_e(c)}</th>" for c in shown.columns)
    left = ' style="text-align:left"'
    rows = "".join(
        "<tr>" + "".join(f"<td{'' if right else left}>{_e(v)}</td>"
                         for v, right in zip(row, numeric, strict=True)) + "</tr>"
        for row in text.itertuples(index=False))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def bar_chart(values: list[float], width: int = 960, height: int = 180,
              label: str = "") -> str:
    """Sorted per-query deltas as bars around a zero line (green up, red down)."""
    if not values:
        return '<p class="note">No queries.</p>'
    top = max(1e-9, max(abs(v) for v in values))
    middle = height / 2
    step = width / len(values)
    bars = []
    for i, v in enumerate(values):
        size = abs(v) / top * (middle - 4)
        y = middle - size if v > 0 else middle
        colour = "#2e7d32" if v > 0 else "#c62828" if v < 0 else "#9e9e9e"
        bars.append(f'<rect x="{i * step:.2f}" y="{y:.2f}" width="{max(step - 0.5, 0.5):.2f}" '
                    f'height="{max(size, 0.5):.2f}" fill="{colour}"/>')
    return (f'<svg role="img" aria-label="{_e(label)}" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
            f'<line x1="0" x2="{width}" y1="{middle}" y2="{middle}" stroke="#888"/>'
            f'{"".join(bars)}<text x="4" y="14" font-size="12">+{top:.3f}</text>'
            f'<text x="4" y="{height - 4}" font-size="12">-{top:.3f}</text></svg>')


def histogram(values: pd.Series, bins: int = 10, width: int = 480, height: int = 160) -> str:
    """A histogram of values in [0, 1]."""
    counts, _ = np.histogram(values.to_numpy(dtype=float), bins=bins, range=(0.0, 1.0))
    most = max(1, counts.max())
    step = width / bins
    bars = []
    for i, count in enumerate(counts):
        size = count / most * (height - 24)
        bars.append(f'<rect x="{i * step + 1:.1f}" y="{height - 16 - size:.1f}" '
                    f'width="{step - 2:.1f}" height="{size:.1f}" fill="#5c6bc0"/>'
                    f'<text x="{i * step + step / 2:.1f}" y="{height - 2}" font-size="10" '
                    f'text-anchor="middle">{i / bins:.1f}</text>')
    return (f'<svg role="img" aria-label="distribution" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">'
            f'{"".join(bars)}</svg>')


def render(board: Dashboard, replayed: SessionsReplayed | None = None) -> str:
    """The report's HTML (with the "Sessions replayed" section when ``replayed``)."""
    s = board.settings
    k = s.k
    parts = [f"<h1>sxs report: {_e(board.dataset)}</h1>",
             f'<p class="stamp">Run A (baseline) <b>{_e(board.run_a)}</b> against run B '
             f'(candidate) <b>{_e(board.run_b)}</b> · {_e(s.stamp())} · written '
             f'{datetime.now(UTC):%Y-%m-%d %H:%M} UTC</p>']
    queries = len(board.health)
    parts += [f"<h2>Per run ({_e(board.labels_name())})</h2>",
              f'<p class="note">Mean and [95% BCa bootstrap interval] over the queries '
              f"(column queries); {_e(board.labels_line())}; {_e(s.stamp())}.</p>",
              table(per_run_table(board, 4))]
    parts += ["<h2>What filling the label gaps changed</h2>",
              '<p class="note">Before: the dataset\'s judgments; after: with the labels of '
              f"{_e(s.basis)} under the label policy. NDCG bounds: the range any grading of the "
              f"top k's unlabelled results could give. Means over {queries} queries.</p>",
              table(filling_table(board, 4))]
    parts += ["<h2>Dataset health</h2>",
              f"<p>Mean best NDCG-m@{k}: <b>{_number(board.health.mean())}</b> over "
              f"{len(board.health)} queries — the share of an ideal of {k} top-grade results "
              "the labelled corpus can reach at best.</p>", histogram(board.health),
              f"<p>{len(board.low_ceiling)} of {queries} queries have a ceiling under "
              f"{s.low_ceiling:g} (\"the corpus has nothing good here\"):</p>",
              table(board.low_ceiling.head(50), index=False)]
    parts += ["<h2>A vs B</h2>",
              '<p class="note">Deltas are B - A. p-values: paired randomization (10,000 '
              "sign flips), paired t-test, Wilcoxon signed-rank; CI: BCa bootstrap of the "
              f"mean delta, over the queries in column queries. Mean RBO@{k} (ext) between the "
              f"runs: {_number(board.rbo_mean)}.</p>",
              table(board.comparison.rename(columns={"n": "queries"}))]
    for measure in board.comparison.index:
        data = delta_chart_data(board, measure)
        parts += [f"<h3>Per-query {_e(measure)} delta (sorted, {len(data)} queries)</h3>",
                  bar_chart(data["delta"].tolist(), label=f"{measure} deltas")]
    parts += ["<h2>Experts</h2>",
              '<p class="note">Win rate of B over A among decided votes, Wilson 95% interval, '
              "two-sided sign test; ties and both-bad votes are shown and left out of the "
              "test.</p>", table(board.experts),
              f'<p class="note">Stale votes (cast on a ranking since replaced, not '
              f"counted): {int(board.stale_votes)}.</p>"]
    parts += ["<h2>Metric against the experts</h2>",
              '<p class="note">On voted queries: how often the sign of the metric\'s delta '
              "matches the vote, and Kendall's tau-b between the delta and the vote.</p>",
              table(board.metric_vs_expert)]
    parts += ["<h2>Agreement between judges</h2>",
              f"<p>Krippendorff's alpha (ordinal) over {board.items_multiply_judged} results "
              f"graded by two or more judges: <b>{_number(board.alpha)}</b>. Agreement on "
              f"preferences between judges of the same query: "
              f"<b>{_number(board.preference_agreement)}</b>.</p>",
              table(board.kappas, index=False)]
    parts += llm_section(board)
    if board.checks:
        rows = "".join(
            f'<tr><td class="{"pass" if r.passed else "fail"}">'
            f'{"pass" if r.passed else "FAIL"}</td><td>{_e(r.rule.label)}</td>'
            f"<td>{_e(r.detail)}</td><td>{_e(', '.join(r.offending[:10]))}</td></tr>"
            for r in board.checks)
        parts += ["<h2>Checks</h2>", "<table><thead><tr><th>result</th><th>rule</th>"
                  "<th>detail</th><th>offending docs</th></tr></thead><tbody>"
                  f"{rows}</tbody></table>"]
    if replayed is not None:
        parts.append(sessions_replayed_html(replayed))
    body = "\n".join(parts)
    return (f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>sxs report: {_e(board.dataset)}</title><style>{STYLE}</style></head>"
            f"<body>{body}</body></html>")


def llm_section(board: Dashboard) -> list[str]:
    """The LLM judge against the experts (nothing when no LLM has judged)."""
    if board.llm is None or board.llm.empty:
        return []
    llm = board.llm
    return ["<h2>The LLM judge against the experts</h2>",
            '<p class="note">Each LLM judge (<code>llm:&lt;model&gt;</code>) against each '
            "expert and the expert consensus (lower median of the experts' grades; the "
            "experts' majority vote). Grades: quadratic weighted kappa and the share of "
            f"identical grades over the items both graded. Votes on {_e(board.run_a)} vs "
            f"{_e(board.run_b)}: agreement and Cohen's kappa over B / A / neither. Labels "
            f"counted in the figures above: {_e(board.settings.basis)}.</p>",
            "<h3>Grades</h3>", table(llm.grades, index=False),
            "<h3>Votes</h3>", table(llm.votes, index=False),
            "<h3>Position bias</h3>",
            '<p class="note">Queries the LLM answered in both side orders, and how many of '
            "those answers disagreed once put on the same sides (stored as about the "
            "same).</p>", table(llm.bias, index=False)]


def write_report(board: Dashboard, path: str | Path,
                 replayed: SessionsReplayed | None = None) -> Path:
    path = Path(path)
    path.write_text(render(board, replayed), encoding="utf-8")
    return path


# ---------------------------------------------------------------- Sessions replayed (issue 13)


def sessions_replayed_html(replayed: SessionsReplayed) -> str:
    """The "Sessions replayed" section: the replay's summary with its basis, the per-query
    ΔMRR chart and the three witnesses per query with whether their signs agree."""
    summary, basis = replayed.replay.summary, replayed.replay.basis
    counts = ", ".join(f"{_e(name)}: {n}" for name, n in replayed.counts.items())
    return "\n".join([
        "<h2>Sessions replayed</h2>",
        '<p class="note">Each logged session replayed under both runs: the weighted mean '
        "reciprocal rank of the documents the user engaged with, B - A; every query weighs "
        "the same; 95% BCa interval from a bootstrap over queries; paired randomization test "
        f"over queries. {_e(replayed.stamp)}.</p>",
        f"<p>ΔMRR <b>{_number(summary.delta)}</b> [{_number(summary.ci_low)}, "
        f"{_number(summary.ci_high)}] (A {_number(summary.mrr_a)}, B "
        f"{_number(summary.mrr_b)}; p {_number(summary.p_randomization)}); sessions improved "
        f"{summary.improved:.1%}, worsened {summary.worsened:.1%}, unchanged "
        f"{summary.unchanged:.1%}. Basis: {basis.sessions:,} sessions, {basis.queries:,} "
        f"queries, {basis.engagements:,} engagements, censored A {basis.censored_a:,} / B "
        f"{basis.censored_b:,}; {basis.skipped_sessions:,} sessions skipped (neither run "
        "answers their query).</p>",
        "<h3>Replayed ΔMRR per query (sorted)</h3>",
        bar_chart(replayed.chart["delta"].tolist(), label="replayed delta MRR per query"),
        "<h3>Three witnesses per query</h3>",
        f'<p class="note">Label metric Δ, the experts\' win rate for B among decided votes, '
        f"and the replay's ΔMRR; signs agree when every witness that speaks moves the same "
        f"way. Queries behind each figure: {counts}.</p>",
        table(replayed.witnesses, index=False)])
