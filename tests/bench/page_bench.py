"""Benchmark: the judge page in a real browser (Debian chromium + Playwright) on the demo store.

    python tests/bench/page_bench.py [--votes 20] [--shots DIR]

Starts ``sxs serve`` on a fresh demo store (judges signed in with invite links), then measures

* result rows per side whose top is inside the viewport on first paint, at 1920x1080 and
  1366x768 (a row is a rank number such as "3." drawn in bold at the start of a result);
* vote → next query: from the click on "Left better" until the next query is drawn: its
  caption ("query … · top k") on screen and the results grid holding the new view's rows
  with their grade buttons, timed inside the page with ``performance.now()`` (median, p90
  and max over ``--votes``; the caption's time alone is printed too);
* per vote, the CPU the server spent (``sxs serve`` and its Streamlit process, from
  ``/proc``) and the time the page's main thread was busy (Chrome's ``TaskDuration``): on a
  machine shared with other work these two are steadier than the wall-clock time, and their
  sum is about what the wall-clock time would be on an idle machine;
* the scroll position after a vote taken from the bottom of the page.

With ``--shots`` it also writes screenshots of the judge, backfill, dashboard and judges
(invite) pages at both sizes there.  Figures are wall-clock on this machine (2 cores shared
with other work).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import Page, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from judge_app.services.demo import build_demo_store
from judge_app.store import Store

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SIZES = ((1920, 1080), (1366, 768))

# The results grid is one component drawn in a shadow root (judge_app/ui/results_grid.py).
GRID = """() => document.querySelector('[data-testid="stBidiComponentIsolated"]')
    ?.shadowRoot?.querySelector('.grid') ?? null"""

ROWS_VISIBLE = """() => {
  const main = document.querySelector('[data-testid="stMain"]') || document.body;
  const middle = main.getBoundingClientRect().left + main.getBoundingClientRect().width / 2;
  const seen = {left: 0, right: 0};
  const grid = (""" + GRID + """)();
  for (const el of grid ? grid.querySelectorAll('strong') : []) {
    if (!/^\\d+\\.$/.test(el.textContent.trim())) continue;
    const box = el.getBoundingClientRect();
    if (box.height === 0 || box.top < 0 || box.top >= window.innerHeight) continue;
    seen[box.left < middle ? 'left' : 'right'] += 1;
  }
  return seen;
}"""

QUERY_CAPTION = """() => {
  for (const el of document.querySelectorAll(
      '[data-testid="stMain"] [data-testid="stCaptionContainer"]')) {
    const text = el.textContent.trim();
    if (/^query \\S+ · top/.test(text) && el.getBoundingClientRect().height > 0) return text;
  }
  return null;
}"""

VOTE_TIMED = """async (label) => {
  const grid = """ + GRID + """;
  const drawn = () => { const g = grid(); return g && g.querySelector('.rank') ? g.dataset.view
                                                                          : null; };
  const title = """ + QUERY_CAPTION + """;
  const before = title();
  const shown = drawn();
  let captionAt = null;
  const button = [...document.querySelectorAll('button')]
      .find(b => b.textContent.trim().startsWith(label));
  let first = null;
  const main = document.querySelector('[data-testid="stMain"]');
  const observer = new MutationObserver(() => {
    if (first === null) first = performance.now() - start;
  });
  observer.observe(main, {subtree: true, childList: true, attributes: true,
                          characterData: true});
  let busy = 0;
  const tasks = new PerformanceObserver(list => {
    for (const entry of list.getEntries()) busy += entry.duration;
  });
  tasks.observe({type: 'longtask'});
  const start = performance.now();
  button.click();
  while (performance.now() - start < 30000) {
    await new Promise(r => requestAnimationFrame(r));
    const now = title();
    if (now && now !== before && captionAt === null) captionAt = performance.now() - start;
    const view = drawn();
    if (captionAt !== null && view && view !== shown) {
      observer.disconnect();
      tasks.disconnect();
      return {ms: performance.now() - start, caption: captionAt, first: first, busy: busy,
              title: now};
    }
  }
  observer.disconnect();
  tasks.disconnect();
  return {ms: null, first: first, busy: busy, title: before};
}"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def serve(db: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "judge_app.cli", "serve", "--db", str(db), "--port", str(port)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
                if reply.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.3)
    os.killpg(process.pid, signal.SIGTERM)
    raise RuntimeError("sxs serve did not start")


ELEMENTS = """() => document.querySelectorAll(
  '[data-testid="stMain"] [data-testid="stElementContainer"], '
  + '[data-testid="stMain"] [data-testid="stVerticalBlock"], '
  + '[data-testid="stMain"] [data-testid="stHorizontalBlock"], '
  + '[data-testid="stMain"] [data-testid="stColumn"]').length"""


def open_judge(page: Page, url: str, token: str) -> None:
    """Sign in with an invite link, then wait until the judge page's script has finished and
    every result is drawn (grade buttons included)."""
    page.goto(f"{url}/?token={token}")
    page.get_by_role("button", name="Left better").wait_for(timeout=90_000)
    page.wait_for_function(QUERY_CAPTION, timeout=60_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=stStatusWidget]') && "
        "!document.querySelector('[data-testid=stSkeleton]') && "
        f"(({GRID})()?.querySelectorAll('.grades').length ?? 0) >= 20", timeout=90_000)


def group_cpu(group: int) -> float:
    """CPU seconds (user + system) used so far by the processes of a process group."""
    total = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def page_busy(cdp) -> float:
    """Seconds the page's main thread has spent in tasks (Chrome's TaskDuration)."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


SHOTS = (("backfill", "backfill", "Backfill labels"), ("dashboard", "dashboard", "Dashboard"),
         ("judges", "judges", "Judges"))
IDLE = ("() => !document.querySelector('[data-testid=stStatusWidget]')"
        " && !document.querySelector('[data-testid=stSpinner]')")


TABLES_DRAWN = """() => [...document.querySelectorAll('[data-testid="stDataFrame"]')]
    .every(table => table.querySelector('canvas'))"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--votes", type=int, default=20)
    parser.add_argument("--shots", type=Path, default=None)
    parser.add_argument("--votes-only", action="store_true",
                        help="Only time vote -> next query (skip first paint and screenshots).")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.duckdb"
        with Store(db) as store:
            build_demo_store(store)
            tokens = {name: store.invite_judge(name, admin=True)
                      for name in ("bench0", "bench1", "timer")}
        process, url = serve(db)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
                for n, (width, height) in enumerate(() if args.votes_only else SIZES):
                    page = browser.new_context(
                        viewport={"width": width, "height": height}).new_page()
                    open_judge(page, url, tokens[f"bench{n}"])
                    rows = page.evaluate(ROWS_VISIBLE)
                    print(f"{width}x{height}: result rows visible per side on first paint: "
                          f"left {rows['left']}, right {rows['right']} "
                          f"({page.evaluate(ELEMENTS)} elements and blocks in the page)")
                    if args.shots:
                        args.shots.mkdir(parents=True, exist_ok=True)
                        page.screenshot(path=str(args.shots / f"judge_{width}x{height}.png"))
                        for name, path, heading in SHOTS:
                            started = time.monotonic()
                            page.goto(f"{url}/{path}")
                            page.get_by_role("heading", name=heading).first.wait_for(
                                timeout=90_000)
                            page.wait_for_function(IDLE, timeout=120_000)
                            page.wait_for_function(TABLES_DRAWN, timeout=60_000)
                            if name == "dashboard":
                                print(f"{width}x{height}: dashboard drawn in "
                                      f"{time.monotonic() - started:.2f} s "
                                      f"({'cold' if n == 0 else 'warm'}; page load included)")
                            page.wait_for_timeout(2000)  # tables paint their canvas late
                            page.screenshot(
                                path=str(args.shots / f"{name}_{width}x{height}.png"))
                            page.screenshot(
                                path=str(args.shots / f"{name}_{width}x{height}_full.png"),
                                full_page=True)
                    page.close()
                width, height = SIZES[0]
                page = browser.new_context(
                    viewport={"width": width, "height": height}).new_page()
                open_judge(page, url, tokens["timer"])
                cdp = page.context.new_cdp_session(page)
                cdp.send("Performance.enable")
                page.evaluate(VOTE_TIMED, "Left better")  # warm the caches once
                times, captions, firsts, busy, server_cpu, page_cpu = [], [], [], [], [], []
                for _ in range(args.votes):
                    page.wait_for_function(IDLE, timeout=30_000)
                    page.wait_for_timeout(500)  # past the page's double-click guard (0.4 s)
                    cpu, task = group_cpu(process.pid), page_busy(cdp)
                    result = page.evaluate(VOTE_TIMED, "Left better")
                    page.wait_for_function(IDLE, timeout=30_000)
                    if result["ms"] is not None:
                        times.append(result["ms"])
                        captions.append(result["caption"])
                        firsts.append(result["first"] or 0.0)
                        busy.append(result["busy"])
                        server_cpu.append((group_cpu(process.pid) - cpu) * 1000)
                        page_cpu.append((page_busy(cdp) - task) * 1000)
                p90 = statistics.quantiles(times, n=10)[-1] if len(times) > 1 else times[0]
                print(f"vote -> next query drawn (its caption and every result with its grade "
                      f"buttons) over {len(times)} votes: median "
                      f"{statistics.median(times):.0f} ms, p90 {p90:.0f} ms, max "
                      f"{max(times):.0f} ms (caption alone: median "
                      f"{statistics.median(captions):.0f} ms; first change to the page after "
                      f"the click: median "
                      f"{statistics.median(firsts):.0f} ms; browser busy in long tasks: median "
                      f"{statistics.median(busy):.0f} ms)")
                print(f"per vote (whole rerun): server CPU median "
                      f"{statistics.median(server_cpu):.0f} ms, page main thread busy median "
                      f"{statistics.median(page_cpu):.0f} ms")
                page.wait_for_function(IDLE, timeout=30_000)
                page.mouse.move(width // 2, height // 2)
                page.mouse.wheel(0, 5000)
                page.wait_for_function("() => window.scrollY > 0 || "
                                       "document.querySelector('[data-testid=stMain]')"
                                       ".scrollTop > 0", timeout=10_000)
                page.wait_for_timeout(500)  # past the page's double-click guard (0.4 s)
                page.evaluate(VOTE_TIMED, "Left better")
                page.wait_for_function(IDLE, timeout=30_000)
                with contextlib.suppress(PlaywrightTimeout):  # the scroll runs on a next frame
                    page.wait_for_function("() => window.scrollY + document.querySelector("
                                           "'[data-testid=stMain]').scrollTop === 0",
                                           timeout=2_000)
                scroll = page.evaluate("() => [window.scrollY, document.querySelector("
                                       "'[data-testid=stMain]').scrollTop]")
                print(f"after a vote from the bottom: window.scrollY={scroll[0]}, "
                      f"main.scrollTop={scroll[1]}")
                browser.close()
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
