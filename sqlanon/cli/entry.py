"""The console entry point (``sqlanon`` and ``python -m sqlanon``), safe to interrupt from its
first line.

Ctrl-C (SIGINT) or SIGTERM at any moment, while the command line is still being imported
included, ends the run with exit code 130 and the one line "interrupted: no output was
written" on stderr, never a traceback, within a second: the signal handling
(sqlanon/cli/interrupts.py, the standard library only) is installed before the command line is
imported (in ``main``, after the handlers), every ``KeyboardInterrupt`` is caught around
the whole run, and after a signal the process ends with ``os._exit`` once its code is chosen,
never through the interpreter's shutdown (which would wait for the threads). The command line
itself loads light (``sqlanon --version`` imports neither DuckDB nor SciPy); the engines load
when a command runs, inside that guard.

Not covered: the interpreter's own start-up before this module runs (``site`` and the
installation's path hooks: some 20-100 ms), where a signal ends the process the operating
system's default way (SIGTERM) or with Python's own traceback (SIGINT).
"""

from __future__ import annotations

from sqlanon.cli.interrupts import checkpoint, ignore_signals, install_signal_handlers, interrupted, leave, received


def main() -> None:
    try:
        try:
            install_signal_handlers(process=True)
            checkpoint("start")
            import sqlanon.cli.commands as commands  # late: after the handlers, inside the try

            commands.main.main()  # click's standalone mode: always ends in SystemExit
        except KeyboardInterrupt:
            ignore_signals()  # a second Ctrl-C must not interrupt the message
            interrupted()
        except Exception:
            if received():
                ignore_signals()
                interrupted()
            raise
    except SystemExit as done:
        if received():  # whatever the code, the shutdown is skipped (see sqlanon/cli/interrupts.py)
            leave(done.code)
        raise
    finally:
        # The exit code is decided: a signal now could only interrupt the interpreter's
        # shutdown (DuckDB's and Spark's exit hooks) and print a traceback.
        ignore_signals()
