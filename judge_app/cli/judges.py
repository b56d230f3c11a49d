"""Judges: ``sxs invite`` creates a judge and prints their sign-in link; ``--list`` and
``--revoke`` manage them."""

from __future__ import annotations

from pathlib import Path

import click

from judge_app.cli.base import db_option, friendly, main
from judge_app.io.display_text import neutralized


def app_address(host: str, port: int) -> str:
    """The address ``sxs serve --host --port`` answers at, which sign-in links point to."""
    return f"http://{host}:{port}"


@main.command("invite")
@click.argument("name", required=False)
@click.option("--admin", is_flag=True, help="Let this judge use the import, export and "
              "settings pages.")
@click.option("--list", "listing", is_flag=True, help="List the judges and exit.")
@click.option("--revoke", metavar="NAME", help="End this judge's link and sessions.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The host the link points at (where sxs serve listens).")
@click.option("--port", default=8501, show_default=True, type=int)
@db_option
@friendly
def invite(name: str | None, admin: bool, listing: bool, revoke: str | None, host: str,
           port: int, db: Path | None) -> None:
    """Invite a judge: print a sign-in link (keep it private — it is their identity).

    Inviting a name again replaces its link.  Only a hash of the token is stored.
    Example: sxs invite alice --admin --db labels.duckdb
    """
    from judge_app.cli.base import open_store
    from judge_app.errors import SxsError
    from judge_app.services import judges

    if sum(bool(x) for x in (name, listing, revoke)) != 1:
        raise SxsError("give a NAME to invite, or --list, or --revoke NAME")
    with open_store(db) as store:
        if listing:
            for row in store.judges().itertuples():
                state = "revoked" if row.revoked_at is not None and str(row.revoked_at) != "NaT" \
                    else "active"
                role = "admin" if row.admin else "judge"
                checked = "verified" if row.verified else "unverified"
                click.echo(f"{neutralized(row.name)}\t{role}\t{checked}\t{row.via}\t{state}")
            return
        if revoke:
            judges.revoke(store, revoke, by=None)  # the operator has no judge name
            click.echo(f"revoked {revoke}: their link and sessions no longer work")
            return
        invitation = judges.invite(store, name or "", admin, app_address(host, port))
    role = "an admin" if admin else "a judge"
    click.echo(f"{invitation.name} is {role}; their sign-in link (send it privately):")
    click.echo(invitation.link)
