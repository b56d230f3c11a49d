"""The README tells the truth about the tree: every path it names exists, and every module of
the services, store, io and cli packages is named in its map."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def test_every_path_the_readme_names_exists() -> None:
    named = set(re.findall(r"`((?:judge_app|metrics|data|tests)/[\w./-]*)`", README))
    assert named, "the README names no path"
    missing = sorted(p for p in named if not (ROOT / p.rstrip("/")).exists())
    assert missing == []


def test_the_readme_map_names_every_package() -> None:
    section = README[README.index("## Where each concept lives"):]
    for package in ("metrics/", "judge_app/io/", "judge_app/store/", "judge_app/services/",
                    "judge_app/cli/", "judge_app/ui/", "judge_app/llm/"):
        assert package in section, package
