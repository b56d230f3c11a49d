"""The ``sxs`` command line: a thin layer over the library that turns its errors into one line.

Each command's help ends with an example.
"""

from __future__ import annotations

import click

from metrics.measures import REGISTRY


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sxs")
def main() -> None:
    """sxs: side-by-side search judging.

    Blind side-by-side preferences, grades for the results nobody labelled, and NDCG,
    NDCG-f, NDCG-m and rank-biased overlap recomputed with the gaps filled.
    """


@main.command("measures")
def measures_command() -> None:
    """List the measures sxs computes, with their parameters.

    Example: sxs measures
    """
    for name, definition in REGISTRY.items():
        click.echo(f"{name}@k  {definition.description}")
        for pname, param in definition.params.items():
            choices = f" ({'|'.join(map(str, param.choices))})" if param.choices else ""
            click.echo(f"    {pname}={param.default!r}{choices}  {param.description}")
