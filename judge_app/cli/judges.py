"""Judges: ``sxs invite`` creates a judge and prints their sign-in link; ``--list`` and
``--revoke`` manage them; ``sxs judges exclude|restore|weight`` act on a judge's figures and
``sxs judges report`` shows them."""

from __future__ import annotations

from pathlib import Path

import click

from judge_app.cli.base import db_option, friendly, main, table_format_option
from judge_app.io.display_text import neutralized
from judge_app.policies import LabelPolicy, choices


def app_address(host: str, port: int) -> str:
    """The address ``sxs serve --host --port`` answers at, which sign-in links point to."""
    return f"http://{host}:{port}"


@main.command("invite")
@click.argument("name", required=False)
@click.option("--admin", is_flag=True, help="Let this judge use the import, export and "
              "settings pages.")
@click.option("--list", "listing", is_flag=True, help="List the judges and exit.")
@click.option("--revoke", metavar="NAME", help="End this judge's link and sessions.")
@click.option("--session-idle", metavar="DURATION", default=None,
              help="End a session after this long without use (every judge's), e.g. 2d, "
              "12h, 90m; the default is 3 days.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="The host the link points at (where sxs serve listens).")
@click.option("--port", default=8501, show_default=True, type=int)
@db_option
@friendly
def invite(name: str | None, admin: bool, listing: bool, revoke: str | None,
           session_idle: str | None, host: str, port: int, db: Path | None) -> None:
    """Invite a judge: print a sign-in link (keep it private — it is their identity).

    A link signs in one browser, once: a judge on a second device, or whose link was used,
    is invited again for a new link (their other sessions stay).  Only a hash of the token
    is stored.  A session ends after --session-idle without use.
    Example: sxs invite alice --admin --db labels.duckdb; sxs invite --session-idle 2d
    """
    from judge_app.cli.base import open_store
    from judge_app.errors import SxsError
    from judge_app.services import judges

    actions = sum(bool(x) for x in (name, listing, revoke))
    if actions > 1 or (actions == 0 and session_idle is None):
        raise SxsError("give a NAME to invite, or --list, or --revoke NAME, or --session-idle")
    idle = judges.parse_idle(session_idle) if session_idle is not None else None
    with open_store(db) as store:
        if idle is not None:
            click.echo(judges.set_session_idle(store, idle, by=None))
            if actions == 0:
                return
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
    click.echo(f"{invitation.name} is {role}; their sign-in link (send it privately; it "
               "signs in one browser, once):")
    click.echo(invitation.link)


@main.group("judges")
def judges_group() -> None:
    """Acting on the judges' figures: exclude a judge's labels and votes, restore them, weigh
    a judge's labels; and the per-judge quality report."""


scope_option = click.option(
    "--dataset", "-d", default=None,
    help="Only this dataset (default: every dataset).")
reason_option = click.option("--reason", default=None, help="Why, kept with the decision.")


def _scope(store, dataset: str | None):
    return store.dataset(dataset) if dataset is not None else None


@judges_group.command("exclude")
@click.argument("name")
@scope_option
@reason_option
@db_option
@friendly
def judges_exclude(name: str, dataset: str | None, reason: str | None, db: Path | None
                   ) -> None:
    """Leave a judge's labels and votes out of every figure (filled labels, evaluate,
    compare, exports, the win rate); recorded with the reason, undone by restore.

    Example: sxs judges exclude mallory --reason "votes left whatever is shown"
    """
    from judge_app.cli.base import open_store
    from judge_app.services import judge_standing

    with open_store(db) as store:
        click.echo(judge_standing.exclude(store, name, _scope(store, dataset), reason=reason))


@judges_group.command("restore")
@click.argument("name")
@scope_option
@reason_option
@db_option
@friendly
def judges_restore(name: str, dataset: str | None, reason: str | None, db: Path | None
                   ) -> None:
    """Count an excluded judge's labels and votes again (a new recorded decision).

    Example: sxs judges restore mallory
    """
    from judge_app.cli.base import open_store
    from judge_app.services import judge_standing

    with open_store(db) as store:
        click.echo(judge_standing.restore(store, name, _scope(store, dataset), reason=reason))


@judges_group.command("weight")
@click.argument("name")
@click.argument("weight", type=click.FloatRange(min=0))
@scope_option
@reason_option
@db_option
@friendly
def judges_weight(name: str, weight: float, dataset: str | None, reason: str | None,
                  db: Path | None) -> None:
    """Weigh a judge's labels in the weighted lower median that fills the gaps (1 is
    everyone's; 0 leaves the median to the others, unless every judge of an item weighs 0).

    Example: sxs judges weight alice 2 -d products
    """
    from judge_app.cli.base import open_store
    from judge_app.services import judge_standing

    with open_store(db) as store:
        click.echo(judge_standing.set_weight(store, name, weight, _scope(store, dataset),
                                             reason=reason))


REPORT_COLUMNS = ("gold_items", "gold_exact", "gold_exact_low", "gold_exact_high",
                  "gold_offset", "consensus_items", "consensus_kappa", "decided_votes",
                  "left_share", "side_p", "timed", "median_seconds", "excluded", "flags")


@judges_group.command("report")
@click.option("--dataset", "-d", required=True, help="Dataset name.")
@click.option("--floor-seconds", type=click.FloatRange(min=0), default=None,
              help="A judgment faster than this is too fast (default 2).")
@table_format_option
@db_option
@friendly
def judges_report(dataset: str, floor_seconds: float | None, fmt: str, db: Path | None
                  ) -> None:
    """Per-judge quality: gold accuracy (Wilson intervals), agreement with the others'
    consensus (weighted kappa), side bias in blind votes, speed, drift; the flags they
    raise and the items each figure stands on.  table: the main figures and one line a
    flag; csv/json: every figure.

    Example: sxs judges report -d products --format csv
    """
    from judge_app.cli.base import emit_table, open_store
    from judge_app.services import judge_report

    with open_store(db) as store:
        figures, raised = judge_report.judge_report(store, store.dataset(dataset),
                                                    floor_seconds)
    if fmt != "table":
        emit_table(figures, fmt)
        return
    if figures.empty:
        click.echo(f"dataset {dataset!r} has no labels or votes yet")
        return
    emit_table(figures[[c for c in REPORT_COLUMNS if c in figures.columns]], fmt)
    for row in raised.itertuples():
        click.echo(f"flag: {row.judge} {row.flag}: {row.figure} {row.value:.4g} "
                   f"(threshold {row.threshold:g}, {row.items:,} items)")


@judges_group.command("disputes")
@click.option("--dataset", "-d", required=True, help="Dataset name.")
@click.option("--policy", type=click.Choice(choices(LabelPolicy)),
              default=LabelPolicy.MEDIAN.value, show_default=True,
              help="The label policy in force: dawid-skene orders by the Dawid-Skene "
                   "posterior entropy, the others by the entropy of the grades given.")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the most disputed N items.")
@table_format_option
@db_option
@friendly
def judges_disputes(dataset: str, policy: str, limit: int | None, fmt: str,
                    db: Path | None) -> None:
    """The items whose judges disagree most, most disputed first — the re-judge queue's
    order (excluded judges and adjudicated items left out).

    Example: sxs judges disputes -d products --policy dawid-skene
    """
    from judge_app.cli.base import emit_table, open_store
    from judge_app.services import disputes

    with open_store(db) as store:
        table = disputes.dispute_table(store, store.dataset(dataset), policy)
    if table.empty and fmt == "table":
        click.echo(f"dataset {dataset!r} has no disputed item (no two judges disagree)")
        return
    emit_table(table.head(limit) if limit else table, fmt)


@judges_group.command("adjudicate")
@click.option("--dataset", "-d", required=True, help="Dataset name.")
@click.option("--query", "query_id", required=True, help="The item's query id.")
@click.option("--doc", "doc_id", required=True, help="The item's doc id.")
@click.option("--grade", required=True, type=int, help="The grade that settles it.")
@click.option("--gold", is_flag=True, help="Also mark the item a gold (known-answer) item.")
@click.option("--note", default=None, help="Why, kept with the adjudication.")
@db_option
@friendly
def judges_adjudicate(dataset: str, query_id: str, doc_id: str, grade: int, gold: bool,
                      note: str | None, db: Path | None) -> None:
    """Settle a disputed item: this grade fills it under every label policy (source
    ``adjudicated``), recorded with who and when; settling again replaces it.

    Example: sxs judges adjudicate -d products --query q7 --doc d42 --grade 2 --gold
    """
    from judge_app.cli.base import open_store
    from judge_app.services import disputes

    with open_store(db) as store:
        said = disputes.adjudicate(store, store.dataset(dataset), query_id, doc_id, grade,
                                   by=None, note=note, gold=gold)
    click.echo(said)
