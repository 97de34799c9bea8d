"""Around every command's work: a sqlanon error becomes one clear line and its documented exit
code, an interrupt the one line and 130 (sqlanon/cli/interrupts.py)."""

from __future__ import annotations

import sys
from typing import Callable

import click

from sqlanon.cli.deferred import load
from sqlanon.cli.interrupts import install_signal_handlers, interrupted, received
from sqlanon.errors import SqlanonError


def run(actions: str, name: str, **options) -> None:
    """Run the function ``name`` of the actions module ``actions`` (see sqlanon/cli/deferred.py)
    with the command's options, inside the guard: the module, and with it the engines, DuckDB
    and SciPy, loads there, so a Ctrl-C or an error while it loads is answered like any other."""
    guard(lambda: getattr(load(actions), name)(**options))


def guard(action: Callable[[], int]) -> None:
    """Turn sqlanon errors into one clear line and the documented exit code, an interrupt
    into the one-line message and 130; exit with the action's code."""
    # Installed by the entry point already; again here for `python -m sqlanon.cli.commands` and code
    # calling `main` itself. SIGTERM is handled like Ctrl-C, so temporary outputs are removed
    # on the way out.
    install_signal_handlers()
    try:
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
