"""The app's seams: the cached store, the configuration and who is an admin.

Tests replace the store by pointing ``SXS_DB`` at a temporary file before the first run.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import streamlit as st

from judge_app.services import backups
from judge_app.store import Store, default_db_path
from judge_app.store.serving import OPEN_ENV

MAX_UPLOAD_MB = 200


@st.cache_resource
def open_store(path: str) -> Store:
    """One store per process, shared by every session (each thread gets its own cursor)."""
    return Store(Path(path))


def store() -> Store:
    opened = open_store(str(default_db_path()))
    backup_schedule(str(opened.path))
    return opened


@st.cache_resource
def backup_schedule(path: str) -> backups.BackupSchedule | None:
    """The process's backup thread (``sxs serve --backup-every``), started with the store:
    the app process is the only one that may read a served store."""
    return backups.schedule_from_env(open_store(path))


def admins() -> set[str]:
    """OIDC users (by e-mail) allowed on the import, export and settings pages:
    ``SXS_ADMINS`` (comma separated) and ``[sxs] admins`` in the app's secrets.  Without
    OIDC, admins are the judges invited with ``sxs invite NAME --admin``; a typed name is
    never an admin."""
    names = {n.strip() for n in os.environ.get("SXS_ADMINS", "").split(",") if n.strip()}
    with contextlib.suppress(FileNotFoundError, KeyError, AttributeError):
        names |= {str(n) for n in st.secrets.get("sxs", {}).get("admins", [])}
    return names


def open_mode() -> bool:
    """``sxs serve --open``: people may also type a name (stored as unverified judges)."""
    return os.environ.get(OPEN_ENV) == "1"


def oidc_configured() -> bool:
    """Whether ``[auth]`` is in the secrets, so that judges sign in with st.login."""
    try:
        return "auth" in st.secrets
    except (FileNotFoundError, KeyError):
        return False
