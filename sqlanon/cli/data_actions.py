"""What the commands over a data file do (their flags: sqlanon/cli/data_commands.py): ``check``
assesses a table as it is, ``init`` writes a starting job file.

Loaded by name when a command runs (sqlanon/cli/deferred.py), inside the command's guard
(sqlanon/cli/guard.py): this module imports the assessment and DuckDB at its top.
"""

from __future__ import annotations

import json

import click

from sqlanon.assess import check as assess
from sqlanon.cli.arguments import absolute, parse_model
from sqlanon.cli.init_job import write_job
from sqlanon.config.delimiters import check_delimiter
from sqlanon.config.job import Source
from sqlanon.errors import EXIT_NO_SOLUTION, EXIT_OK, ConfigError


def check(data, quasi, k, models, delimiter, table, encoding, show, redact, as_json) -> int:
    specs = [parse_model(m) for m in models]
    found = assess(_source(data, delimiter, table, encoding), [q.strip() for q in quasi.split(",") if q.strip()],
                   k=k, models=specs, show=show)
    click.echo(json.dumps(found.to_dict(redact), indent=2) if as_json else found.text(redact))
    return EXIT_OK if found.holds else EXIT_NO_SOLUTION


def init(data, output, delimiter, table, encoding, overwrite) -> int:
    write_job(_source(data, delimiter, table, encoding), absolute(output), overwrite)
    click.echo(f"wrote {output}: remove the '#' in front of the settings to keep, then run "
               f"sqlanon anonymize {output}", err=True)
    return EXIT_OK


def _source(data: str, delimiter: str, table: str | None, encoding: str | None) -> Source:
    source = Source(path=absolute(data), delimiter=check_delimiter(delimiter, "--delimiter"), table=table,
                    encoding=encoding)
    if source.kind == "duckdb" and not table:
        raise ConfigError(f"{data} is a DuckDB file: name its table with --table")
    return source
