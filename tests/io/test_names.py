"""File names made from user-given names never leave their folder (path traversal), never
hide, and are accepted by Windows."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judge_app.io.names import MAX_BYTES, path_inside, safe_file_name

WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(10)),
                    *(f"lpt{i}" for i in range(10))}
# "full/width" in fullwidth forms
FULLWIDTH = "\uff46\uff55\uff4c\uff4c\uff0f\uff57\uff49\uff44\uff54\uff48"
HOSTILE = ["../../x", "..", ".", "../", "/etc/passwd", "a/b", "a\\b", "..\\..\\x",
           "C:\\Windows\\x", "\x00", "evil\x00.txt", ".bashrc", "...hidden", "NUL", "nul.txt",
           "Con", "COM1.csv", "lpt9", "LPT¹", FULLWIDTH,
           "\uff0e\uff0e\uff0fx", "\u202egnp.exe",
           "a\nb\r", "trailing. ", " lead", "é" * 300, "日本語/データ", "", "   ", "a:b*c?d\"<>|"]


def check(name: str, result: str) -> None:
    assert result, name
    assert not set(result) & set('/\\\x00:*?"<>|\n\r\t'), (name, result)
    assert not result.startswith((".", " ")) and not result.endswith((".", " ")), (name, result)
    assert result.split(".", 1)[0].lower() not in WINDOWS_RESERVED, (name, result)
    assert len(result.encode("utf-8")) <= MAX_BYTES, (name, result)


@pytest.mark.parametrize("name", HOSTILE)
def test_a_hostile_name_becomes_one_safe_file_in_the_folder(name: str, tmp_path: Path) -> None:
    check(name, safe_file_name(name))
    path = path_inside(tmp_path, name, ".csv")
    path.write_text("x")  # the system accepts it
    assert path.resolve().parent == tmp_path.resolve()
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_examples_written_by_hand() -> None:
    assert safe_file_name("../../x") == "x"
    assert safe_file_name("C:\\Windows\\x") == "C_Windows_x"
    assert safe_file_name("NUL") == "_NUL"
    assert safe_file_name(FULLWIDTH) == "full_width"
    assert safe_file_name("日本語/データ") == "日本語_データ"
    assert safe_file_name("cranfield-trec") == "cranfield-trec"
    assert safe_file_name("..", fallback="dataset") == "dataset"
    assert safe_file_name("é" * 300) == "é" * (MAX_BYTES // 2)


@settings(max_examples=300, deadline=None)
@given(st.text(min_size=0, max_size=80))
def test_any_text_gives_a_safe_name(name: str) -> None:
    check(name, safe_file_name(name))
