"""Progress of a run, for code (a callback) and for people (a bar on a terminal).

The protocol: a callable taking one ``Progress``. ``anonymize(job, on_progress=...)`` calls it
when each phase starts (prepare, search, write, verify), after every check of the search and
once when the search ends (``done``). During the search it carries:

* optimal searches (flash, ola, incognito, exhaustive): the lattice's size and ``percent`` of
  it *decided*, the nodes whose anonymity is known (checked, tagged by a check's
  implications, or pruned by a bound); it never decreases and is 100 when the search ends.
  Flash and OLA read their tags, exhaustive its checks; incognito (which searches subsets of
  the QIs first) reports none until it ends. When the metric is not monotonic, 100 % can come
  before the last checks (the anonymous nodes that may still beat the optimum are checked
  after every node's anonymity is known).
* heuristics: ``checks`` and ``best_loss``; ``percent`` is the share of the budget used
  (``step_limit`` checks or ``time_limit`` seconds, whichever is further), None without one.

``Display`` is the ready-made callback: a tqdm bar (``pip install 'sqlanon[progress]'``) or,
without tqdm, one self-overwriting line, drawn only when its stream is a terminal (a pipe, a
log file or CI get nothing) unless asked for with ``force``. The library prints nothing
otherwise: ``progress_callback`` turns the API's ``progress=`` argument into a callback.
"""

from __future__ import annotations

import shutil
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Protocol, TextIO, Union

PHASES = {
    "prepare": "reading and encoding the input",
    "search": "searching",
    "write": "writing the output",
    "verify": "verifying the output",
}


@dataclass(frozen=True)
class Progress:
    """Where a run stands.

    Attributes:
        phase: prepare | search | write | verify.
        checks: nodes checked so far (search).
        best_loss: the lowest loss of an anonymous node so far, None before one is found.
        lattice_size: the number of nodes of the generalization lattice (search).
        decided: optimal searches: nodes whose anonymity is known; None where not counted.
        percent: 0..100 (see the module's text), None when not known.
        seconds: since the phase started.
        done: True on the search's last report.
    """

    phase: str
    checks: int = 0
    best_loss: float | None = None
    lattice_size: int | None = None
    decided: int | None = None
    percent: float | None = None
    seconds: float = 0.0
    done: bool = False


class ProgressCallback(Protocol):
    def __call__(self, progress: Progress, /) -> None: ...


class SearchTracker:
    """Turns the checker's per-check calls into ``Progress`` reports for one search."""

    def __init__(self, algorithm: Any, callback: ProgressCallback, on_check: Callable[[Any], None] | None = None):
        self.algorithm = algorithm
        self.callback = callback
        self.on_check = on_check
        self.size = algorithm.lattice.size
        self.best: float | None = None
        self.started = time.perf_counter()
        self.percent = 0.0

    def __call__(self, result: Any) -> None:
        if self.on_check is not None:
            self.on_check(result)
        if result.anonymous and (self.best is None or result.loss < self.best):
            self.best = result.loss
        self.callback(self._progress(self.algorithm.checker.checks))

    def finish(self) -> None:
        """The search's last report: an optimal search has decided every node."""
        checks = self.algorithm.checker.checks
        progress = self._progress(checks)
        if self.algorithm.optimal:
            progress = Progress("search", checks, self.best, self.size, self.size, 100.0, progress.seconds, done=True)
        else:
            progress = Progress(
                "search", checks, self.best, self.size, None, progress.percent, progress.seconds, done=True
            )
        self.callback(progress)

    def _progress(self, checks: int) -> Progress:
        seconds = time.perf_counter() - self.started
        decided = self._decided(checks) if self.algorithm.optimal else None
        if decided is not None:
            percent: float | None = 100.0 * decided / self.size
        elif not self.algorithm.optimal:
            percent = self._budget(checks, seconds)
        else:
            percent = None
        if percent is not None:  # never backwards (a budget's clock and a count only grow; this is cheap insurance)
            self.percent = percent = min(100.0, max(self.percent, percent))
        return Progress("search", checks, self.best, self.size, decided, percent, seconds)

    def _decided(self, checks: int) -> int | None:
        tags = self.algorithm.tags
        if tags is not None:  # one byte per node and a sentinel, nonzero once tagged
            return int(self.size - tags.state.count(0, 0, self.size))
        if self.algorithm.name == "exhaustive":
            return checks
        return None

    def _budget(self, checks: int, seconds: float) -> float | None:
        shares = []
        step_limit, time_limit = self.algorithm.step_limit, self.algorithm.time_limit
        if step_limit:
            shares.append(100.0 * checks / step_limit)
        if time_limit:
            shares.append(100.0 * seconds / time_limit)
        return max(shares) if shares else None


class Display:
    """A progress display for people: a tqdm bar when tqdm is installed, else one line that
    overwrites itself; nothing at all unless ``stream`` (stderr by default) is a terminal or
    ``force`` is set. At most ten redraws a second. Call ``close`` at the end."""

    def __init__(self, stream: TextIO | None = None, force: bool = False, use_tqdm: bool = True):
        self.stream = stream or sys.stderr
        isatty = getattr(self.stream, "isatty", None)
        self.active = force or bool(isatty and isatty())
        self._bar: Any = None
        self._tqdm: Any = None
        if self.active and use_tqdm:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                pass
            else:
                self._tqdm = tqdm
        self._drawn = 0.0
        self._width = 0

    def __call__(self, progress: Progress) -> None:
        if not self.active:
            return
        if self._tqdm is not None:
            self._draw_tqdm(progress)
        else:
            self._draw_line(progress)

    def phase(self, name: str) -> None:
        """A phase starts (the anonymizer's ``on_phase`` hook)."""
        self(Progress(name))

    def _draw_tqdm(self, progress: Progress) -> None:
        if progress.phase != "search":
            self._close_bar()
            self.stream.write(f"{PHASES.get(progress.phase, progress.phase)}...\n")
            self.stream.flush()
            return
        if self._bar is None and progress.checks == 0 and not progress.done:
            return  # the phase's start: the bar appears with the first check, when its kind is known
        if self._bar is None:
            self._bar = self._tqdm(
                total=100.0 if progress.percent is not None else None,
                desc="searching",
                unit="%",
                file=self.stream,
                leave=False,
                mininterval=0.1,
                # tqdm draws nothing on a terminal that reports no size (0 x 0,
                # e.g. a fresh pty): shutil's fallback is 80 x 24
                ncols=min(100, shutil.get_terminal_size().columns),
                nrows=shutil.get_terminal_size().lines,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {elapsed}{postfix}"
                if progress.percent is not None
                else "{desc}: {elapsed}{postfix}",
            )
        if progress.percent is not None:
            self._bar.n = round(progress.percent, 1)
        self._bar.set_postfix_str(_search_text(progress), refresh=False)
        if progress.done:
            self._bar.refresh()
        else:
            self._bar.update(0)  # redraws when mininterval has passed

    def _draw_line(self, progress: Progress) -> None:
        if progress.phase == "search":
            percent = (
                ""
                if progress.percent is None
                else f"{progress.percent:.0f}% of the lattice, "
                if progress.decided is not None
                else f"{progress.percent:.0f}% of the budget, "
            )
            text, force = f"searching: {progress.seconds:.0f}s, {percent}{_search_text(progress)}", progress.done
        else:
            text, force = f"{PHASES.get(progress.phase, progress.phase)}...", True
        now = time.monotonic()
        if force or now - self._drawn >= 0.1:
            self._drawn = now
            self._width = max(self._width, len(text))
            self.stream.write(f"\r{text:<{self._width}}")
            self.stream.flush()

    def _close_bar(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def close(self) -> None:
        """Take the display off the terminal."""
        self._close_bar()
        if self.active and self._tqdm is None and self._width:
            self.stream.write("\r" + " " * self._width + "\r")
            self.stream.flush()
            self._width = 0


def _search_text(progress: Progress) -> str:
    best = "none yet" if progress.best_loss is None else f"{progress.best_loss:g}"
    return f"{progress.checks} checks, best loss so far {best}"


ProgressArgument = Union[bool, str, ProgressCallback, None]


def progress_callback(progress: ProgressArgument) -> tuple[ProgressCallback | None, Callable[[], None]]:
    """The API's ``progress=`` argument as a callback and its closing function: "auto" (a
    display only on a terminal), True (a display even elsewhere, e.g. a notebook), False or
    None (nothing), or a callable taking ``Progress``."""
    if progress is None or progress is False:
        return None, lambda: None
    if progress is True or progress == "auto":
        display = Display(force=progress is True)
        return (display if display.active else None), display.close
    if callable(progress):
        return progress, lambda: None
    raise TypeError(
        f"progress must be True, False, 'auto' or a callable taking sqlanon.progress.Progress, got {progress!r}"
    )
