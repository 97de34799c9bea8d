"""Ctrl-C and SIGTERM on the command line: one outcome wherever they land, the line
"interrupted: no output was written" on stderr and exit code 130, never a traceback, never a
hang.

Light on purpose (the standard library only): the entry point (sqlanon/cli/entry.py) imports
it and installs the handlers before anything else of the command line is loaded.

A Python signal handler runs only in the main thread and only between two bytecodes, so it
alone cannot promise an exit: the main thread may be blocked where no handler runs (waiting
for the import lock a background thread holds: the numba warm-up of sqlanon/session.py), and
a library may swallow the ``KeyboardInterrupt`` it raises (Cython's import-time patching
prints "Exception ignored" and goes on; DuckDB can consume a signal at the end of a query).
So the C-level handler also wakes a watcher thread (``signal.set_wakeup_fd``), which
needs no bytecode of the main thread: ``REDELIVER`` seconds after the first signal it raises
the interrupt again in the main thread if nothing has answered it, and at ``DEADLINE`` it
ends the process with 130 whatever the main thread is doing. A run killed there is one
killed at any point, which the next run for the target cleans up (sqlanon/release/).
"""

from __future__ import annotations

import _thread
import os
import signal
import sys
import threading
import time
import warnings

TYPE_CHECKING = False  # typing would delay the moment the handlers are in place
if TYPE_CHECKING:
    from typing import Any, Callable, NoReturn

EXIT_INTERRUPTED = 130
INTERRUPTED = "interrupted: no output was written"
#: the line when the signal came after the run's files were all in place (the publication's
#: point of no return): the release stands, complete and verified
INTERRUPTED_PUBLISHED = "interrupted after the release was published: its files are complete and verified"
#: seconds from the first signal to the interrupt raised again in the main thread, when nothing
#: has answered it yet (a library swallowed it)
REDELIVER = 0.3
#: seconds from the first signal to the end of the process, whatever it is doing then
DEADLINE = 0.8
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []  # the signals received, so an exception a library made of one is known as one
_said = threading.Event()  # the line is on its way to stderr (written once)
_decided: list[int] = []  # after a signal: the exit code, once the main thread has chosen it
_exiting = _thread.allocate_lock()  # held by whoever says the line or ends the process
_watch: dict[str, bool] = {"started": False, "process": False}
_published: list[bool] = []  # the run's publication passed its point of no return


def install_signal_handlers(process: bool = False) -> None:
    """SIGINT and SIGTERM both raise ``KeyboardInterrupt`` in the main thread, so every
    ``finally`` and ``except BaseException`` on the way out (temporary outputs, connections,
    a Spark session) runs before the exit with 130. SIGINT is set even when the process
    started with it ignored (a background job of a shell script): a run always stops on it.

    ``process``: the caller owns the process (the entry point), so from a signal on it ends
    within ``DEADLINE`` even once its exit code is chosen (a stderr nobody reads, an exit hook
    that waits); code calling the command line in its own process keeps that process."""
    try:
        signal.signal(signal.SIGINT, _terminate)
        signal.signal(signal.SIGTERM, _terminate)
    except ValueError:  # not the main thread (the CLI called from a thread): signals do not reach it anyway
        return
    if process and not _watch["process"]:
        _watch["process"] = True
        _quiet_when_swallowed(sys.unraisablehook)
    if not _watch["started"]:
        _start_watcher()


def interrupted() -> NoReturn:
    """An interrupt's one outcome: the line on stderr and exit code 130."""
    with _exiting:
        say = not (_received and _said.is_set())  # after a signal, said once however often answered
        if _received and say:
            _said.set()
            _decided.append(EXIT_INTERRUPTED)
    if say:
        sys.stderr.write(_line() + "\n")
    raise SystemExit(EXIT_INTERRUPTED)


def published() -> None:
    """The run's files are all in place: from now on an interrupt says so (a signal cannot
    take a published release back, and "no output was written" would be untrue)."""
    _published.append(True)


def new_run() -> None:
    """A command starts: nothing of it is published yet (code calling the command line in its
    own process runs many)."""
    _published.clear()


def _line() -> str:
    return INTERRUPTED_PUBLISHED if _published else INTERRUPTED


def leave(code: object) -> NoReturn:
    """End the process after a signal with ``code`` (a ``SystemExit``'s), at once: the
    interpreter's shutdown could wait forever for a thread that holds the import lock, and
    CPython ends a process whose run saw a ``KeyboardInterrupt`` inside ``exec`` (dataclasses,
    numba) with SIGINT instead of the chosen code."""
    ignore_signals()
    number = code if isinstance(code, int) else 0 if code is None else 1
    with _exiting:
        _decided.append(number)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # closed or broken: nothing more can be said there
            pass
    os._exit(number)


def checkpoint(moment: str) -> None:
    """Test hook: with ``SQLANON_TEST_HOLD_AT=<moment>`` the run prints ``ready: <moment>`` on
    stderr when it reaches that moment and waits there (up to 60 s), so that a test's signal
    lands exactly then (tests/cli/test_interrupt.py). Moments: ``start`` (signal handling
    installed, nothing else imported yet), ``import`` (sqlanon/cli/commands.py half-loaded) and
    ``load`` (a command's work about to be imported: sqlanon/cli/guard.py); the warm-up
    thread's ``warm`` is sqlanon/session.py's."""
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


def _terminate(signum: int, frame: Any) -> None:
    _received.append(signum)
    # once the exit code is chosen, a second signal could only interrupt the exit
    if not _decided and not _in_extension_init(frame):
        raise KeyboardInterrupt


def _in_extension_init(frame: Any) -> bool:
    """Whether the interrupted Python code runs inside a compiled module's initialisation
    (DuckDB's pybind11 module builds its enums in Python at ``import duckdb``). An exception
    raised there is not passed on: the module prints it with a traceback and a "Critical native
    error", and may stay half-built. Such a signal is only recorded; the watcher raises it again
    once the module is built, or ends the process at the deadline."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "exec_module" and code.co_filename == "<frozen importlib._bootstrap_external>":
            if type(frame.f_locals.get("self")).__name__ == "ExtensionFileLoader":
                return True
        frame = frame.f_back
    return False


def _quiet_when_swallowed(previous: Callable[[Any], object]) -> None:
    """Cython's import-time patching swallows a KeyboardInterrupt by writing it out ("Exception
    ignored in: <module 'collections.abc'>", a traceback) and warning that it failed: after a
    signal that is ours, answered anyway (the watcher raises it again), so it is not shown."""

    def hook(unraisable: Any) -> None:
        if _received and issubclass(unraisable.exc_type, KeyboardInterrupt):
            warnings.filterwarnings("ignore", "Cython module failed to", RuntimeWarning)
            return
        previous(unraisable)

    sys.unraisablehook = hook


def _start_watcher() -> None:
    """The wake-up pipe: the C-level handler writes each signal's number to it before any
    bytecode runs, and the watcher thread reads it (see the module's docstring)."""
    reading, writing = os.pipe()
    os.set_blocking(writing, False)
    previous = signal.set_wakeup_fd(writing, warn_on_full_buffer=False)  # the main thread's (checked by the caller)
    if previous != -1:  # someone else's (an event loop, in a caller's process): theirs stays
        signal.set_wakeup_fd(previous)
        os.close(reading)
        os.close(writing)
        return
    _watch["started"] = True
    threading.Thread(target=_watcher, args=(reading,), name="sqlanon-interrupts", daemon=True).start()


def _watcher(reading: int) -> None:
    while True:
        numbers = os.read(reading, 64)
        signum = next((n for n in numbers if n in _SIGNALS), None)
        if signum is not None:
            break
    time.sleep(REDELIVER)
    if not _decided:
        try:  # as if the signal came again: does nothing if the main thread now ignores it
            _thread.interrupt_main(signal.Signals(signum))
        except (ValueError, RuntimeError):
            pass
    time.sleep(DEADLINE - REDELIVER)
    held = _exiting.acquire(timeout=0.1)  # only ever held for a moment; never released once had here
    if held and _decided and not _watch["process"]:
        _exiting.release()
        return  # the caller's process answered the interrupt and goes on
    if held and not _decided and not _said.is_set():
        _said.set()
        _write_soon(_line() + "\n")
    os._exit(_decided[0] if _decided else EXIT_INTERRUPTED)


def _write_soon(text: str) -> None:
    """Write to stderr from a thread of its own, waiting for it a moment only: a stderr nobody
    reads must not keep an interrupted process alive."""
    done = _thread.allocate_lock()
    done.acquire()

    def write() -> None:
        try:
            os.write(2, text.encode())
        finally:
            done.release()

    _thread.start_new_thread(write, ())
    done.acquire(timeout=0.2)
