"""Test hook: hold the run at a named moment so a test's signal or kill lands exactly there.

With ``SQLANON_TEST_HOLD_AT=<moment>`` the run prints ``ready: <moment>`` on stderr when it
reaches that moment and waits there, up to 60 s or until it receives SIGUSR1 (then it goes
on: a test can make a second run meet the first one at that moment). The publication's
moments are ``publish:staged`` (everything written, nothing placed), ``publish:journal``,
``publish:backup``, ``publish:place-<i>``, ``publish:table`` and ``publish:committed``
(sqlanon/release/publication.py); the start's are in cli/interrupts.py.
"""

from __future__ import annotations

import os
import signal
import sys
import time


def hold(moment: str) -> None:
    if os.environ.get("SQLANON_TEST_HOLD_AT") != moment:
        return
    released = []
    previous = signal.signal(signal.SIGUSR1, lambda signum, frame: released.append(signum))
    try:
        sys.stderr.write(f"ready: {moment}\n")
        sys.stderr.flush()
        deadline = time.monotonic() + 60
        while not released and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        signal.signal(signal.SIGUSR1, previous)
