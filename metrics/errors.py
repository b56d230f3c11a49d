"""The root of sxs's user-facing errors, and the metrics package's own.

``SxsError`` is declared here, in the bottom layer, so that ``metrics`` (which never imports
``judge_app``) and the app share one base: the CLI prints any ``SxsError`` as one line and
exits 2, the pages show it with ``st.error``; anything else is a bug and shows a traceback.
``judge_app.errors`` re-exports it.
"""

from __future__ import annotations


class SxsError(Exception):
    """A problem the user can fix: bad input, a locked store, an unknown name."""


class MetricsError(SxsError, ValueError):
    """Bad input to a metric: an unknown measure, a malformed ranking, a bad parameter.

    Also a ``ValueError``, so code that caught ``ValueError`` before keeps working.
    """
