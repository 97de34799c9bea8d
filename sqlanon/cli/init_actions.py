"""What ``init`` does (its flags: sqlanon/cli/data_commands.py): it writes a starting job file.

Imported when the command runs (``_init_actions`` beside its flags), inside the command's guard
(sqlanon/cli/guard.py), apart from ``check``'s module: the profile needs DuckDB, not the
assessment or the privacy models, whose imports would be a third of its time on a wide file.
"""

from __future__ import annotations

import click

from sqlanon.cli.arguments import absolute, data_source
from sqlanon.cli.init_job import write_job
from sqlanon.errors import EXIT_OK, ConfigError


def init(data, output, delimiter, table, encoding, overwrite) -> int:
    target = absolute(output)
    if target is None:
        raise ConfigError("--output names the job file to write (default job.toml), got an empty path")
    write_job(data_source(data, delimiter, table, encoding), target, overwrite)
    click.echo(
        f"wrote {output}: remove the '#' in front of the settings to keep, then run sqlanon anonymize {output}",
        err=True,
    )
    return EXIT_OK
