"""The commands over a TOML job file: ``anonymize``, ``demo``, ``apply``, ``explain``, ``risk``
and ``hierarchy build`` / ``preview``; their flags and help only. What each does is the function
of the same name in sqlanon/cli/job_actions.py, imported when the command runs (``_actions``: so
``--help`` loads no engine). Assembled into the ``sqlanon`` group by
sqlanon/cli/commands.py."""

from __future__ import annotations

import click

from sqlanon.cli.guard import guard
from sqlanon.config.job import INTERVAL_ALGORITHMS, INTERVAL_METRICS
from sqlanon.core.specs import ORDERS
from sqlanon.core.names import ALGORITHM_NAMES as ALGORITHMS, METRIC_NAMES as METRICS  # names only, for click's choices


@click.command("anonymize")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--k", "k", type=int, help="Override privacy.k (every class keeps at least k rows).")
@click.option("--suppression-limit", type=float, help="Override privacy.suppression_limit (fraction of rows, 0..1).")
@click.option("--metric", type=click.Choice(sorted({*METRICS, *INTERVAL_METRICS})), help="Override search.metric.")
@click.option("--algorithm", type=click.Choice([*ALGORITHMS, *INTERVAL_ALGORITHMS]), help="Override search.algorithm.")
@click.option(
    "--time-limit", type=float, help="Override search.time_limit (seconds; heuristics, k-optimize, hill-climb)."
)
@click.option("--step-limit", type=int, help="Override search.step_limit (checks; heuristics, k-optimize, hill-climb).")
@click.option("--seed", type=int, help="Override search.seed (genetic, random, hill-climb).")
@click.option("--output", type=click.Path(dir_okay=False), help="Override output.path (.parquet, .csv, .duckdb).")
@click.option("--report", type=click.Path(dir_okay=False), help="Override output.report (JSON file).")
@click.option(
    "--order",
    type=click.Choice(ORDERS),
    help="Override output.order: shuffle (default) releases the rows in a random order, input in the input's.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    default=None,
    help="Replace existing targets (output, report, summary); never an input, the job or a hierarchy.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout (nothing else goes there).")
@click.option("--quiet", "-q", is_flag=True, help="No progress line and no summary on stderr (errors still).")
@click.option(
    "--markdown",
    type=click.Path(dir_okay=False),
    help="Also write the one-page risk and utility summary (Markdown) here, its histogram SVG beside it.",
)
@click.option(
    "--html",
    type=click.Path(dir_okay=False),
    help="Override output.html: write the HTML report here (default: beside the JSON report).",
)
@click.option("--no-html", is_flag=True, help="Write no HTML report (output.html = false).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text: summary on stderr; json: as --json; markdown: also write the one-page summary beside "
    "the output (<output stem>_summary.md and its SVG) unless --markdown names the file.",
)
def anonymize(**options) -> None:
    """Anonymize the table described by the TOML job CONFIG."""
    guard(lambda: _actions().anonymize(**options))


@click.command("demo")
@click.argument("config", type=click.Path(dir_okay=False), required=False)
@click.option(
    "--rows", type=click.IntRange(min=1), default=4000, show_default=True, help="Rows of demo data to generate (>= 1)."
)
@click.option(
    "--overwrite",
    is_flag=True,
    help="Replace an input file that is not the demo's data (and, with CONFIG, existing outputs).",
)
@click.option("--json", "as_json", is_flag=True, help="Also print the report as JSON on stdout.")
def demo(**options) -> None:
    """Generate the demo patient data and anonymize it: with the packaged demo job into ./demo/
    (replacing the demo's earlier results there), or with the job CONFIG."""
    guard(lambda: _actions().demo(**options))


@click.command("apply")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option(
    "--manifest",
    "-m",
    required=True,
    type=click.Path(dir_okay=False),
    help="A report.json of an earlier anonymize run.",
)
@click.option("--output", type=click.Path(dir_okay=False), help="Override output.path.")
@click.option(
    "--report",
    type=click.Path(dir_okay=False),
    help="Write this run's report here (output.report of the job is not used).",
)
@click.option(
    "--order",
    type=click.Choice(ORDERS),
    help="Override output.order: shuffle (default) releases the rows in a random order, input in the input's.",
)
@click.option(
    "--overwrite",
    is_flag=True,
    default=None,
    help="Replace existing targets (output, report); never an input, the job, a hierarchy or the manifest.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON on stdout (nothing else goes there).")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stderr (errors still).")
def apply(**options) -> None:
    """Apply a saved transformation to CONFIG's data and re-check the privacy models."""
    guard(lambda: _actions().apply(**options))


@click.command("explain")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--node", required=True, help="Levels in QI order, e.g. 1,2,0.")
@click.option("--show", type=int, default=10, show_default=True, help="How many failing classes to list.")
def explain(**options) -> None:
    """Print the SQL of a node's check, its figures, and the smallest classes that fail it."""
    guard(lambda: _actions().explain(**options))


@click.command("risk")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--node", help="Levels in QI order, e.g. 1,2,0: the risk of that node's release (default: the input).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="text and json go to stdout; markdown to --output (its histogram PNG beside it) or stdout.",
)
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write to this file instead of stdout.")
@click.option("--overwrite", is_flag=True, help="Replace an existing --output file (and its histogram).")
def risk(**options) -> None:
    """Re-identification risk of CONFIG's input (or of a node): prosecutor figures, sample and
    population uniqueness, class-size histogram."""
    guard(lambda: _actions().risk(**options))


@click.group("hierarchy")
def hierarchy() -> None:
    """Build or preview a hierarchy given as a builder spec in a job."""


@hierarchy.command("build")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--attribute", "-a", required=True, help="The attribute whose hierarchy to build.")
@click.option("--output", "-o", type=click.Path(dir_okay=False), help="Write the ARX CSV here (default: stdout).")
@click.option("--overwrite", is_flag=True, help="Replace an existing output file.")
def build(**options) -> None:
    """Build ATTRIBUTE's hierarchy over its data and write it as an ARX CSV (';', no header)."""
    guard(lambda: _actions().build(**options))


@hierarchy.command("preview")
@click.argument("config", type=click.Path(dir_okay=False))
@click.option("--attribute", "-a", required=True, help="The attribute whose hierarchy to show.")
@click.option("--rows", type=int, default=10, show_default=True, help="How many rows to show.")
def preview(**options) -> None:
    """Show the first rows of ATTRIBUTE's hierarchy and the number of values per level."""
    guard(lambda: _actions().preview(**options))


#: the commands of this module, for the group (sqlanon/cli/commands.py)
COMMANDS = (anonymize, demo, apply, explain, risk, hierarchy)


def _actions():
    """sqlanon/cli/job_actions.py, imported when a command runs: inside its guard, so a Ctrl-C or
    an error while the engines load is answered like any other, and ``--help`` loads none of
    them. (Unannotated: an editor infers the module, so "go to definition" reaches each action.)"""
    import sqlanon.cli.job_actions as actions

    return actions
