"""``sxs decide`` and ``sxs backfill next`` load only what they use (issue 22's speed: a
command's imports count in its time): the decision service, the labels' analysis and the
command's table reach scipy.special but not scipy.stats, scipy.optimize or Streamlit (about
half a second of CPU before the command did anything)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
UNUSED = ("scipy.stats", "scipy.optimize", "scipy.spatial", "streamlit")


def test_the_decision_commands_import_no_scipy_stats() -> None:
    code = ("import sys\n"
            "import judge_app.cli.decision, judge_app.services.decision\n"
            "import judge_app.services.analysis, judge_app.policies\n"
            f"print(' '.join(m for m in {UNUSED!r} if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=ROOT).stdout.split()
    assert loaded == []
