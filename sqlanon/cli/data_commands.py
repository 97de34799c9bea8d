"""The commands over a data file rather than a job: ``check`` (assess a table as it is) and
``init`` (write a starting job file); their flags and help only. What each does is the function
of the same name in sqlanon/cli/data_actions.py (``init``: sqlanon/cli/init_actions.py), imported
when the command runs (``_data_actions``, ``_init_actions``: so ``--help`` loads no engine). Assembled into the ``sqlanon`` group by
sqlanon/cli/commands.py."""

from __future__ import annotations

import click

from sqlanon.cli.guard import guard


@click.command("check")
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("--quasi", required=True, help="The quasi-identifier columns, comma-separated (e.g. age,zip).")
@click.option("--k", "k", type=click.IntRange(min=1), help="k-anonymity: every class holds at least k rows.")
@click.option(
    "--model",
    "models",
    multiple=True,
    help="A further privacy model, TYPE:KEY=VALUE,... (e.g. distinct-l-diversity:attribute=disease,l=3) "
    "or a TOML inline table; repeatable.",
)
@click.option("--delimiter", default=",", show_default=True, help="The CSV's field separator.")
@click.option("--table", help="The table, when DATA is a .duckdb file.")
@click.option("--encoding", help="The CSV's text encoding (default utf-8).")
@click.option("--show", type=click.IntRange(min=0), default=10, show_default=True, help="Offending classes to list.")
@click.option("--redact", is_flag=True, help="List the offending classes' sizes without their values.")
@click.option("--json", "as_json", is_flag=True, help="Print the assessment as JSON on stdout.")
def check(**options) -> None:
    """Assess DATA (CSV, Parquet or a DuckDB table) as it is: each QI at its level 0, no
    hierarchies. Prints k, l, t, delta and the risk figures achieved; exit 0 when the models
    hold, 1 when not (with the smallest offending classes)."""
    guard(lambda: _data_actions().check(**options))


@click.command("init")
@click.argument("data", type=click.Path(dir_okay=False))
@click.option(
    "--output",
    "-o",
    default="job.toml",
    show_default=True,
    type=click.Path(dir_okay=False),
    help="The job file to write.",
)
@click.option("--delimiter", default=",", show_default=True, help="The CSV's field separator.")
@click.option("--table", help="The table, when DATA is a .duckdb file.")
@click.option("--encoding", help="The CSV's text encoding (default utf-8).")
@click.option("--overwrite", is_flag=True, help="Replace an existing job file.")
def init(**options) -> None:
    """Write a starting job file for DATA: every column with its type, distinct count, share of
    unique values, a suggested role and hierarchy builder, all commented out."""
    guard(lambda: _init_actions().init(**options))


#: the commands of this module, for the group (sqlanon/cli/commands.py)
COMMANDS = (check, init)


def _data_actions():
    """sqlanon/cli/data_actions.py, imported when the command runs, inside its guard (see
    ``job_commands._actions``)."""
    import sqlanon.cli.data_actions as actions

    return actions


def _init_actions():
    """sqlanon/cli/init_actions.py, imported when the command runs, inside its guard."""
    import sqlanon.cli.init_actions as actions

    return actions
