"""The commands over a data file rather than a job: ``check`` (assess a table as it is) and
``init`` (write a starting job file). Registered on the ``sqlanon`` group by sqlanon/cli/commands.py."""

from __future__ import annotations

import json
import tomllib

import click

from sqlanon.cli.commands import _absolute, _guard, main
from sqlanon.errors import EXIT_NO_SOLUTION, EXIT_OK, ConfigError


def _source(data: str, delimiter: str, table: str | None, encoding: str | None):
    from sqlanon.config.job import Source

    source = Source(path=_absolute(data), delimiter=delimiter, table=table, encoding=encoding)
    if source.kind == "duckdb" and not table:
        raise ConfigError(f"{data} is a DuckDB file: name its table with --table")
    return source


def parse_model(text: str) -> dict:
    """``--model``: ``TYPE:KEY=VALUE,...`` (values read as TOML scalars, else text) or a TOML
    inline table ``{type = "...", ...}``, as a ``[[privacy.models]]`` entry."""
    text = text.strip()
    try:
        if text.startswith("{"):
            return tomllib.loads(f"m = {text}")["m"]
        kind, _, rest = text.partition(":")
        spec: dict = {"type": kind.strip()}
        for pair in filter(None, (p.strip() for p in rest.split(","))):
            key, equals, value = pair.partition("=")
            if not equals:
                raise ConfigError(f"--model {text!r}: {pair!r} is not KEY=VALUE")
            try:
                spec[key.strip()] = tomllib.loads(f"v = {value.strip()}")["v"]
            except tomllib.TOMLDecodeError:
                spec[key.strip()] = value.strip()
        return spec
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"--model {text!r} is not a TOML inline table: {error}") from None


@main.command()
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("--quasi", required=True, help="The quasi-identifier columns, comma-separated (e.g. age,zip).")
@click.option("--k", "k", type=click.IntRange(min=1), help="k-anonymity: every class holds at least k rows.")
@click.option("--model", "models", multiple=True,
              help="A further privacy model, TYPE:KEY=VALUE,... (e.g. distinct-l-diversity:attribute=disease,l=3) "
                   "or a TOML inline table; repeatable.")
@click.option("--delimiter", default=",", show_default=True, help="The CSV's field separator.")
@click.option("--table", help="The table, when DATA is a .duckdb file.")
@click.option("--encoding", help="The CSV's text encoding (default utf-8).")
@click.option("--show", type=click.IntRange(min=0), default=10, show_default=True, help="Offending classes to list.")
@click.option("--redact", is_flag=True, help="List the offending classes' sizes without their values.")
@click.option("--json", "as_json", is_flag=True, help="Print the assessment as JSON on stdout.")
def check(data, quasi, k, models, delimiter, table, encoding, show, redact, as_json):
    """Assess DATA (CSV, Parquet or a DuckDB table) as it is: each QI at its level 0, no
    hierarchies. Prints k, l, t, delta and the risk figures achieved; exit 0 when the models
    hold, 1 when not (with the smallest offending classes)."""
    from sqlanon.assess import check as assess

    def action() -> int:
        specs = [parse_model(m) for m in models]
        found = assess(_source(data, delimiter, table, encoding), [q.strip() for q in quasi.split(",") if q.strip()],
                       k=k, models=specs, show=show)
        click.echo(json.dumps(found.to_dict(redact), indent=2) if as_json else found.text(redact))
        return EXIT_OK if found.holds else EXIT_NO_SOLUTION

    _guard(action)


@main.command()
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("--output", "-o", default="job.toml", show_default=True, type=click.Path(dir_okay=False),
              help="The job file to write.")
@click.option("--delimiter", default=",", show_default=True, help="The CSV's field separator.")
@click.option("--table", help="The table, when DATA is a .duckdb file.")
@click.option("--encoding", help="The CSV's text encoding (default utf-8).")
@click.option("--overwrite", is_flag=True, help="Replace an existing job file.")
def init(data, output, delimiter, table, encoding, overwrite):
    """Write a starting job file for DATA: every column with its type, distinct count, share of
    unique values, a suggested role and hierarchy builder, all commented out."""
    from sqlanon.cli.init_job import write_job

    def action() -> int:
        write_job(_source(data, delimiter, table, encoding), _absolute(output), overwrite)
        click.echo(f"wrote {output}: remove the '#' in front of the settings to keep, then run "
                   f"sqlanon anonymize {output}", err=True)
        return EXIT_OK

    _guard(action)
