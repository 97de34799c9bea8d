"""The ``sqlanon`` command group: it assembles the commands (their flags in
sqlanon/cli/job_commands.py and sqlanon/cli/data_commands.py, what they do in the *_actions
modules beside them) and answers an interrupt anywhere in click with the one line and 130.

Light: ``sqlanon --version`` and ``--help`` load no engine (tests/cli/test_entry.py); a command's
work is imported when it runs, inside its guard (``_actions`` in the *_commands modules). Run as a script too
(``python -m sqlanon.cli.commands``, or the file given to ``spark-submit``).

Exit codes: 0 solution written and verified, 1 no transformation satisfies the models,
2 usage, configuration or hierarchy error, 3 data or I/O error, 4 output failed verification (a bug),
130 interrupted.
"""

from __future__ import annotations

import click

from sqlanon.cli import data_commands, job_commands
from sqlanon.cli.interrupts import checkpoint, interrupted, new_run

checkpoint("import")  # test hook: a signal can be made to land here, with this module half-loaded


class _Main(click.Group):
    """click's standalone mode turns a KeyboardInterrupt into "Aborted!" and exit code 1; here
    it is the one-line message and 130 wherever it lands: while the arguments are parsed, while
    a command imports what it needs, or in a command outside its guard (sqlanon/cli/guard.py)."""

    def make_context(self, *args, **kwargs):
        new_run()
        try:
            return super().make_context(*args, **kwargs)
        except KeyboardInterrupt:
            interrupted()

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            interrupted()


@click.group(cls=_Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="sqlanon")
def main() -> None:
    """sqlanon: optimal k-anonymization of tables, pushed into DuckDB."""


for _command in (*job_commands.COMMANDS, *data_commands.COMMANDS):
    main.add_command(_command)


if __name__ == "__main__":  # pragma: no cover
    main()
