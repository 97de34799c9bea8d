"""What ``check`` does (its flags: sqlanon/cli/data_commands.py): it assesses a table as it is.

Imported when the command runs (``_data_actions`` beside its flags), inside the command's guard
(sqlanon/cli/guard.py): this module imports the assessment and DuckDB at its top. ``init`` is
in sqlanon/cli/init_actions.py, which needs neither the assessment nor the privacy models.
"""

from __future__ import annotations

import json

import click

from sqlanon.assess import check as assess
from sqlanon.cli.arguments import data_source, parse_model
from sqlanon.errors import EXIT_NO_SOLUTION, EXIT_OK


def check(data, quasi, k, models, delimiter, table, encoding, show, redact, as_json) -> int:
    specs = [parse_model(m) for m in models]
    found = assess(
        data_source(data, delimiter, table, encoding),
        [q.strip() for q in quasi.split(",") if q.strip()],
        k=k,
        models=specs,
        show=show,
    )
    click.echo(json.dumps(found.to_dict(redact), indent=2) if as_json else found.text(redact))
    return EXIT_OK if found.holds else EXIT_NO_SOLUTION
