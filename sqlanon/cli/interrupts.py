"""Ctrl-C and SIGTERM on the command line: one outcome wherever they land, the line
"interrupted: no output was written" on stderr and exit code 130, never a traceback.

Light on purpose (the standard library only): the entry point (sqlanon/cli/entry.py) imports
it and installs the handlers before anything else of the command line is loaded.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import NoReturn

EXIT_INTERRUPTED = 130
INTERRUPTED = "interrupted: no output was written"
_received: list[int] = []  # the signals received, so an exception a library made of one is known as one


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
        sys.stderr.write(f"ready: {moment}\n")
        sys.stderr.flush()
        time.sleep(60)


def received() -> bool:
    """Whether a SIGINT or SIGTERM arrived. DuckDB runs the handler while it polls for signals
    during a query and turns its KeyboardInterrupt into its own error ("Query interrupted"), and
    a caller may wrap that once more (an OutputError): whatever exception follows a signal, the
    run was interrupted."""
    return bool(_received)


def ignore_signals() -> None:
    """From here on a signal is ignored: the exit code is decided, and a signal could only
    interrupt the message or the interpreter's shutdown (DuckDB's and Spark's exit hooks)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    except ValueError:
        pass


def _terminate(signum, frame) -> NoReturn:
    _received.append(signum)
    raise KeyboardInterrupt
