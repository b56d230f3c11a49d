"""Issue 25's decompression bomb, measured by hand: a 1.1 MB ``.gz`` expanding to 1.17 GB of
zeros imported as qrels on the Import page of `sxs serve` (the demo store, the default cap)
while a signed-in judge reloads their page.  Prints the time to the refusal, the judge's page
load meanwhile (and without an import) and the bytes the server wrote.

    PYTHONPATH=$PWD python tests/bench/import_bomb_bench.py          # this checkout's code
    PYTHONPATH=$PWD python tests/bench/import_bomb_bench.py --lines  # well-formed lines

The bomb is written once to ``$TMPDIR``: zeros (the issue's), or with ``--lines`` one
well-formed qrels line repeated, which passes the first-lines check and meets the cap.
"""

from __future__ import annotations

import sys
import tempfile
import zlib
from pathlib import Path

from playwright.sync_api import sync_playwright

from judge_app.services.demo import build_demo_store
from judge_app.store import Store
from tests.app.test_browser import CHROMIUM, FLAGS, serving
from tests.app.test_import_bomb_browser import import_while_a_judge_loads

EXPANDED = 1_170_000_000


def the_bomb(lines: bool) -> Path:
    name = "sxs-bomb-1.17GB-lines.qrels.gz" if lines else "sxs-bomb-1.17GB.qrels.gz"
    path = Path(tempfile.gettempdir()) / name
    if not path.exists():
        squeezer = zlib.compressobj(9, zlib.DEFLATED, 31)
        block = b"1 0 1 1\n" * 1_250_000 if lines else bytes(10_000_000)
        with path.open("wb") as out:
            for _ in range(EXPANDED // len(block)):
                out.write(squeezer.compress(block))
            out.write(squeezer.flush())
    return path


def main() -> None:
    bomb = the_bomb("--lines" in sys.argv[1:])
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "bench.duckdb"
        with Store(db) as store:
            build_demo_store(store)
            tokens = {name: store.invite_judge(name, admin=name == "admin")
                      for name in ("admin", "judge")}
        with serving(db, open_mode=False) as (url, process), sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
            figures = import_while_a_judge_loads(browser, url, tokens, bomb, process.pid)
            browser.close()
    print(f"{bomb.stat().st_size / 2**20:.2f} MB expanding to {EXPANDED / 2**30:.2f} GiB: "
          f"{figures}")


if __name__ == "__main__":
    main()
