"""Around every command's work: a sqlanon error becomes one clear line and its documented exit
code, an interrupt the one line and 130 (sqlanon/cli/interrupts.py)."""

from __future__ import annotations

import sys
from typing import Callable

import click

from sqlanon.cli.interrupts import checkpoint, install_signal_handlers, interrupted, received
from sqlanon.errors import SqlanonError


def guard(action: Callable[[], int]) -> None:
    """Run a command's ``action`` (which imports the command's work: the engines, DuckDB and
    SciPy load inside this guard) and exit with its code: sqlanon errors become one clear line
    and the documented exit code, an interrupt the one-line message and 130."""
    # Installed by the entry point already; again here for `python -m sqlanon.cli.commands` and code
    # calling `main` itself. SIGTERM is handled like Ctrl-C, so temporary outputs are removed
    # on the way out.
    install_signal_handlers()
    try:
        checkpoint("load")  # test hook: a command's work, with the engines, about to load
        code = action()
    except KeyboardInterrupt:
        interrupted()
    except Exception as error:
        if received():  # a library's error made of the signal (DuckDB's "Query interrupted")
            interrupted()
        if not isinstance(error, SqlanonError):
            raise
        click.echo(f"error: {error}", err=True)
        sys.exit(error.exit_code)
    if received():  # a signal a library swallowed while the work went on to its end
        interrupted()
    sys.exit(code)
