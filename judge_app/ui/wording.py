"""Messages speak the language of the surface they appear on (issue 25).

The services' messages name the command line's options (``--base-url``, ``--force``): that is
what a person reads in a terminal.  On a page the same message names the page's control
instead — 'check the "Base URL" field', 'ticking "Import even if degenerate" imports it
anyway' — and an option the page has no control for is named as the command's
('--value-map of the sxs import command'), so the reader knows where it lives.

A :class:`Surface` holds, per page, the options it has a control for and the command the
others belong to; :func:`on_page` rewrites a message for it.  The flag is matched whole
(``--force`` is not the start of ``--forced``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from judge_app.errors import SxsError
from judge_app.ui.components import user_errors

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*(?![\w-])")
"""A command-line option as the messages write it."""


@dataclass(frozen=True, eq=False)
class Surface:
    """A page: its controls by the option each stands for, and the command whose options
    the page has no control for."""

    name: str
    command: str
    controls: dict[str, str] = field(default_factory=dict)  # option -> how to name its control


IMPORT_PAGE = Surface("Import", "sxs import", {
    "--force": 'ticking "Import even if degenerate"',
    "--normalize-ids": 'the "Ids" choice',
})
LLM_PAGE = Surface("LLM judge", "sxs llm", {
    "--base-url": 'the "Base URL" field',
    "--max-calls": 'the "Max calls" limit',
    "--model": 'the "Model" field',
    "--concurrency": 'the "Concurrency" field',
    "--api-key-env": 'the "API key environment variable" field',
})


def on_page(message: str, surface: Surface) -> str:
    """``message`` with each command-line option named as ``surface`` shows it: its control,
    else the option of the surface's command; the first letter is kept upper case when the
    message started with the option."""

    def name(match: re.Match[str]) -> str:
        flag = match.group()
        said = surface.controls.get(flag, f"{flag} of the {surface.command} command")
        return said[0].upper() + said[1:] if match.start() == 0 else said

    return FLAG.sub(name, message)


@contextmanager
def page_errors(surface: Surface, strip: str | None = None) -> Iterator[None]:
    """:func:`judge_app.ui.components.user_errors` whose message is said in ``surface``'s
    words (:func:`on_page`)."""
    with user_errors(strip):
        try:
            yield
        except SxsError as error:
            raise SxsError(on_page(str(error), surface)) from None
