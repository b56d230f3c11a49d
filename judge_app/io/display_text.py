"""Names people see (judges, runs): no character that hides text or turns it around.

A judge named ``admin\\u202egnp.exe`` shows as ``adminexe.png`` wherever it is drawn: the
right-to-left override (U+202E) and its kin reorder what follows, and zero-width characters
make two names look alike.  A name is refused when it holds any *control* or *format*
character (Unicode categories ``Cc`` and ``Cf``: C0/C1 controls, the bidirectional embeddings,
overrides and isolates U+202A to U+202E and U+2066 to U+2069, the marks U+200E/U+200F/U+061C,
zero-width spaces and joiners, the BOM); the refusal names the first one as ``U+XXXX``.
A name stored before this rule is shown with such characters as ``U+XXXX`` text
(:func:`neutralized`), never as themselves.
"""

from __future__ import annotations

import unicodedata

from judge_app.errors import SxsError

HIDDEN = ("Cc", "Cf")
"""The Unicode categories a name may not hold."""


def hidden_character(text: str) -> str | None:
    """The first control or format character of ``text``, or None."""
    return next((c for c in text if unicodedata.category(c) in HIDDEN), None)


def refuse_hidden(text: str, what: str) -> str:
    """``text`` unchanged; SxsError naming ``what`` and the character when it holds one that
    hides or reorders text."""
    found = hidden_character(text)
    if found is not None:
        raise SxsError(f"the {what} holds the invisible character U+{ord(found):04X}, which "
                       "can hide or reverse what a name shows; type it without")
    return text


def neutralized(text: str) -> str:
    """``text`` with every control or format character written as ``U+XXXX``."""
    if hidden_character(text) is None:
        return text
    return "".join(f"U+{ord(c):04X}" if unicodedata.category(c) in HIDDEN else c
                   for c in text)
