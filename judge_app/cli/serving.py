"""Serving the app: ``sxs serve`` and ``sxs demo``."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import click

from judge_app.cli.base import db_option, friendly, main
from judge_app.measure_sets import COMPARE_MEASURES, default_measures

APP = Path(__file__).resolve().parents[1] / "ui" / "app.py"

STREAMLIT_OPTIONS = ("--server.headless", "true", "--browser.gatherUsageStats", "false",
                     "--server.fileWatcherType", "none", "--server.maxUploadSize", "200",
                     "--client.toolbarMode", "viewer", "--runner.postScriptGC", "false",
                     "--theme.primaryColor", "#2563eb")
"""How ``sxs serve`` runs Streamlit. ``theme.primaryColor`` a calm blue: the vote buttons are
primary, and Streamlit's default primary is the red of a destructive action.
``runner.postScriptGC`` off: Streamlit otherwise runs a full ``gc.collect(2)`` after every
script run — a vote's rerun included — which on the app's heap (pandas, DuckDB, Streamlit) cost
more CPU than the rerun itself (~130 ms of ~235 ms a vote, tests/bench/page_bench.py) and held
the interpreter while the last deltas waited to be sent. Python's own generational collector
still runs as usual.
"""
PRIMARY_COLOR = STREAMLIT_OPTIONS[STREAMLIT_OPTIONS.index("--theme.primaryColor") + 1]


def serve_app(path: Path, host: str, port: int, open_mode: bool = False,
              backup_every: str | None = None, backup_dir: Path | None = None,
              keep: int = 10) -> int:
    """Run the Streamlit app on the store at ``path`` until interrupted; returns its exit code.

    Only invited judges (``sxs invite``) or OIDC users get in; ``open_mode`` also lets people
    type a name (stored as unverified judges, never admins).  A missing store is refused
    (``sxs demo`` or ``sxs init`` make one).  The serve lock is taken first (a second serve or
    an import then fails at once, clearly), and the store is opened and migrated before
    Streamlit starts.

    With ``backup_every`` (``15m``, …) a backup is taken into ``backup_dir`` (default
    ``<store>.backups``) at once, then by the app process every interval, keeping the
    ``keep`` newest: while served, only the app may read the store, and until a first visitor
    opens it nothing can change it.  The app's Settings page backs up on demand.
    """
    from judge_app.errors import SxsError
    from judge_app.services import backups
    from judge_app.store import Store
    from judge_app.store.model import require_store
    from judge_app.store.serving import OPEN_ENV, SERVED_ENV, serving

    every = backups.parse_interval(backup_every) if backup_every is not None else None
    if keep < 1:
        raise SxsError(f"--keep must be at least 1; got {keep}")
    folder = backup_dir if backup_dir is not None else backups.default_backup_folder(path)
    require_store(path)
    with serving(path):
        with Store(path) as store:  # migrate it first: a bad file fails here, clearly
            if every is not None:
                click.echo(f"backed up {backups.backup_into_folder(store, folder, keep)}")
        address = path if isinstance(path, str) else str(path.resolve())
        env = {**os.environ, "SXS_DB": address, OPEN_ENV: "1" if open_mode else "",
               SERVED_ENV: address, **backups.serve_env(every, folder, keep)}
        return _run_streamlit(path, host, port, env)


def _run_streamlit(path: Path, host: str, port: int, env: dict[str, str]) -> int:
    command = [sys.executable, "-m", "streamlit", "run", str(APP),
               "--server.address", host, "--server.port", str(port), *STREAMLIT_OPTIONS]
    from judge_app.addresses import describe_address

    click.echo(f"sxs is serving {describe_address(path)} at http://{host}:{port}  "
               "(Ctrl+C stops it)")
    try:
        return subprocess.run(command, env=env, check=False).returncode
    except KeyboardInterrupt:
        return 0


serve_options = [
    click.option("--host", default="127.0.0.1", show_default=True),
    click.option("--port", default=8501, show_default=True, type=int),
    click.option("--open", "open_mode", is_flag=True,
                 help="Also let people type a name to judge (marked unverified everywhere)."),
    click.option("--backup-every", default=None, metavar="TIME",
                 help="Back the store up at start and then every TIME (15m, 2h, 1d)."),
    click.option("--backup-dir", type=click.Path(file_okay=False, path_type=Path),
                 default=None, help="Folder of the backups (default: <store>.backups)."),
    click.option("--keep", default=10, show_default=True, type=int,
                 help="How many backups --backup-every keeps."),
]


def with_serve_options(fn: Callable) -> Callable:
    for option in reversed(serve_options):
        fn = option(fn)
    return fn


@main.command("serve")
@db_option
@with_serve_options
@friendly
def serve(db: Path | None, host: str, port: int, open_mode: bool,
          backup_every: str | None, backup_dir: Path | None, keep: int) -> None:
    """Start the judging app (Streamlit) on the store: judges sign in with the link
    ``sxs invite`` printed them (or the identity provider, when configured); optionally back
    the store up while it is served.

    Example: sxs invite alice --admin; sxs serve --backup-every 15m --backup-dir bak
    """
    from judge_app.cli.base import store_path

    sys.exit(serve_app(store_path(db), host, port, open_mode,
                       backup_every, backup_dir, keep))


@main.command("demo")
@db_option
@click.option("--no-serve", is_flag=True, help="Build the store and compare; do not serve.")
@click.option("--clicks", "with_clicks", is_flag=True,
              help="Also load the ESCI UBI click-log sample as dataset esci-ubi and replay it.")
@with_serve_options
@friendly
def demo(db: Path | None, no_serve: bool, with_clicks: bool, host: str, port: int,
         open_mode: bool, backup_every: str | None, backup_dir: Path | None,
         keep: int) -> None:
    """Load the shipped Cranfield collection, compare its two runs, and serve the judging app
    in open mode (anyone may type a name); prints an admin sign-in link.

    Offline and idempotent: running it again reuses the store (and the labels in it).
    Example: sxs demo --port 8502
    """
    from judge_app.addresses import describe_address
    from judge_app.cli.base import store_path
    from judge_app.cli.judges import app_address
    from judge_app.services import analysis, judges
    from judge_app.services.demo import build_demo_store
    from judge_app.store import Store

    path = store_path(db)
    with Store(path) as store:
        for line in build_demo_store(store):
            click.echo(line)
        result = analysis.compare_runs(store, store.dataset("cranfield"), "title", "bm25",
                                       default_measures(COMPARE_MEASURES),
                                       permutations=2000)
        invitation = judges.invite(store, "admin", True, app_address(host, port))
    click.echo("\nCranfield, run B = bm25 against run A = title "
               f"(store: {describe_address(path)}):")
    click.echo(str(result))
    if with_clicks:
        _clicks_demo(path)
    click.echo(f"\nAdmin sign-in link (keep it private): {invitation.link}")
    if not no_serve:
        click.echo("")
        sys.exit(serve_app(path, host, port, True, backup_every, backup_dir, keep))


def _clicks_demo(path: Path) -> None:
    """``sxs demo --clicks``: the ESCI UBI sample as dataset esci-ubi, replayed."""
    from judge_app.services import clicks
    from judge_app.services.demo import CLICKS_DEMO_DATASET, CLICKS_ORACLE_RUN, build_clicks_demo
    from judge_app.store import Store

    with Store(path) as store:
        click.echo("")
        for line in build_clicks_demo(store):
            click.echo(line)
        replayed = clicks.replay_runs(store, store.dataset(CLICKS_DEMO_DATASET),
                                      clicks.LOGGED_RUN, CLICKS_ORACLE_RUN, permutations=2000)
    click.echo(f"\n{CLICKS_DEMO_DATASET}, sessions replayed: run B = {CLICKS_ORACLE_RUN} (the "
               f"log's own engagement, an in-sample upper bound) against run A = "
               f"{clicks.LOGGED_RUN} (as users saw it):")
    click.echo(str(replayed))
