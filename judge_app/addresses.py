"""Store addresses as messages show them: the one rule that keeps a PostgreSQL password out
of every output.

A store address is a DuckDB file's path or a ``postgresql://user:password@host:port/db``
URL.  The password may sit in the URL's user part or in its query string
(``?password=…``); every message, page, log line or error that names a store — or that
might quote one, like a driver's error — goes through :func:`redact` (or
:func:`describe_address` for an address object).  Light on purpose: the CLI's error boundary
imports it before any store is loaded.
"""

from __future__ import annotations

import re
from pathlib import Path

ADDRESS_PREFIXES = ("postgresql://", "postgres://")

# user:password@ after the scheme (the password runs to the last @ before the host), and
# password=… in a query string or a key=value connection string
_USER_PASSWORD = re.compile(r"(postgres(?:ql)?://[^:/@\s]*):[^\s]*@(?=[^@\s]*(?:\s|$))")
_PASSWORD_PARAMETER = re.compile(r"(\bpassword\s*=\s*)('[^']*'|[^&\s]+)", re.IGNORECASE)


def is_postgres(address: object) -> bool:
    """Whether a store address names a PostgreSQL database (else it is a DuckDB file)."""
    return isinstance(address, str) and address.startswith(ADDRESS_PREFIXES)


def redact(text: str) -> str:
    """``text`` with every PostgreSQL password in it replaced by ``***``: the user part's
    (``postgresql://sxs:***@host/db``) and a ``password=…`` parameter's.  Anything else,
    a DuckDB path included, is returned unchanged."""
    text = _USER_PASSWORD.sub(r"\1:***@", text)
    return _PASSWORD_PARAMETER.sub(r"\1***", text)


def describe_address(address: Path | str) -> str:
    """The store address as messages show it (a PostgreSQL password hidden)."""
    return redact(str(address))
