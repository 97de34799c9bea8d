"""The console entry point (``sqlanon`` and ``python -m sqlanon``), safe to interrupt from its
first line.

Ctrl-C (SIGINT) or SIGTERM at any moment, while the command line is still being imported
included, ends the run with exit code 130 and the one line "interrupted: no output was
written" on stderr, never a traceback: the signal handling is installed before anything else
is imported, and every ``KeyboardInterrupt`` is caught around the whole run. The command line
itself loads light (``sqlanon --version`` imports neither DuckDB nor SciPy); the engines load
when a command runs, inside that guard.

Not covered: the interpreter's own start-up before this module runs (a few milliseconds), where
a signal ends the process the operating system's default way.
"""

from __future__ import annotations

import os
import signal
import sys
from typing import NoReturn

EXIT_INTERRUPTED = 130
INTERRUPTED = "interrupted: no output was written"
_received: list[int] = []  # the signals received, so an exception a library made of one is known as one


def main() -> None:
    try:
        install_signal_handlers()
        checkpoint("start")
        from sqlanon.cli.commands import main as cli

        cli.main()  # click's standalone mode: always ends in SystemExit
    except KeyboardInterrupt:
        _ignore_signals()  # a second Ctrl-C must not interrupt the message
        interrupted()
    except Exception:
        if received():
            _ignore_signals()
            interrupted()
        raise
    finally:
        # The exit code is decided: a signal now could only interrupt the interpreter's
        # shutdown (DuckDB's and Spark's exit hooks) and print a traceback.
        _ignore_signals()


def install_signal_handlers() -> None:
    """SIGINT and SIGTERM both raise ``KeyboardInterrupt`` in the main thread, so every
    ``finally`` and ``except BaseException`` on the way out (temporary outputs, connections,
    a Spark session) runs before the exit with 130. SIGINT is set even when the process
    started with it ignored (a background job of a shell script): a run always stops on it."""
    try:
        signal.signal(signal.SIGINT, _terminate)
        signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread (the CLI called from a thread): signals do not reach it anyway
        pass


def interrupted() -> NoReturn:
    """An interrupt's one outcome: the line on stderr and exit code 130."""
    sys.stderr.write(INTERRUPTED + "\n")
    raise SystemExit(EXIT_INTERRUPTED)


def checkpoint(moment: str) -> None:
    """Test hook: with ``SQLANON_TEST_HOLD_AT=<moment>`` the run prints ``ready: <moment>`` on
    stderr when it reaches that moment and waits there (up to 60 s), so that a test's signal
    lands exactly then (tests/test_interrupt.py). Moments: ``start`` (signal handling
    installed, nothing else imported yet) and ``import`` (sqlanon/cli/commands.py half-loaded)."""
    if os.environ.get("SQLANON_TEST_HOLD_AT") == moment:
        import time

        sys.stderr.write(f"ready: {moment}\n")
        sys.stderr.flush()
        time.sleep(60)


def received() -> bool:
    """Whether a SIGINT or SIGTERM arrived. DuckDB runs the handler while it polls for signals
    during a query and turns its KeyboardInterrupt into its own error ("Query interrupted"), and
    a caller may wrap that once more (an OutputError): whatever exception follows a signal, the
    run was interrupted."""
    return bool(_received)


def _terminate(signum, frame) -> NoReturn:
    _received.append(signum)
    raise KeyboardInterrupt


def _ignore_signals() -> None:
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:
        pass
