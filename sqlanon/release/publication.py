"""One run's targets, published together or not at all.

Every file a run writes (the output, the report, the Markdown summary and its picture) is
checked against the guard when the run starts, written under a temporary name beside its
final place, and renamed into place only when everything of the run is written and the output
is verified. An output table (DuckDB or PostgreSQL) is built under a temporary name in its
database and renamed in one transaction, last. If anything fails — a write, the verification,
a rename — the files already moved into place are put back as they were (a hard link keeps
each replaced file until the end), the temporaries are removed and nothing of the run remains.

A run killed outright (SIGKILL, power loss) cannot clean up: its temporary files carry its
process id, and the next run for the same target sweeps them.
"""

from __future__ import annotations

import glob
import os
import shutil
import time
from dataclasses import dataclass, replace
from pathlib import Path

from sqlanon.config.job import Output, Source
from sqlanon.errors import OutputError
from sqlanon.engines import pg_connection as pg
from sqlanon.release.tables import drop_duckdb_table, duckdb_tables, publish_duckdb_table
from sqlanon.release.guard import Protected, check_file
from sqlanon.config.wording import overwrite_hint

TEMP_PREFIX = "sqlanon-"


def temporary_name(path: str, kind: str = "tmp") -> str:
    """``.out.csv.sqlanon-<pid>.tmp.csv``: hidden, beside the target (a rename stays on one
    file system), the process id for the sweep, and the target's suffix, which tells readers
    and writers the format."""
    p = Path(path)
    return str(p.with_name(f".{p.name}.{TEMP_PREFIX}{os.getpid()}.{kind}{p.suffix}"))


def sweep_stale(path: str) -> list[str]:
    """Remove temporary files and backups of ``path`` left by runs that were killed (their
    process is gone)."""
    p = Path(path)
    stem = f".{p.name}.{TEMP_PREFIX}"
    removed = []
    for candidate in p.parent.glob(f"{glob.escape(stem)}*"):
        pid, kind = (candidate.name[len(stem):].split(".") + [""])[:2]
        if pid.isdigit() and kind in ("tmp", "bak") and not _alive(int(pid)):
            candidate.unlink(missing_ok=True)
            removed.append(str(candidate))
    return removed


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class _File:
    path: str
    what: str
    temp: str
    written: bool = False
    backup: str | None = None
    placed: bool = False


class Publication:
    """The targets of one run. Use as a context manager: leaving it by an exception (or
    without ``commit``) takes back everything it staged."""

    def __init__(self, protected: Protected, overwrite: bool = False, url: str | None = None):
        self.protected = protected
        self.overwrite = overwrite
        self.url = url  # the PostgreSQL database of an output table
        self._files: list[_File] = []
        self._taken: dict[str, str] = {}
        self._output: Output | None = None
        self._table: str | None = None  # the output table's temporary name
        self._created_db = False
        self.committed = False

    # -- reserving targets (when the run starts) ---------------------------------------------
    def reserve(self, path: str | None, what: str) -> None:
        """Claim ``path`` as this run's ``what`` (report, summary, ...) or refuse it now."""
        if path is None:
            return
        real = check_file(path, what, self.protected, self._taken, self.overwrite)
        self._taken[real] = what
        sweep_stale(path)
        self._files.append(_File(path, what, temporary_name(path)))

    def reserve_output(self, output: Output, source: Source) -> None:
        """Claim the released table's target: a file, a table in a DuckDB file, or a
        PostgreSQL table."""
        if not output.writes:
            return
        self._output = output
        if output.kind == "postgres":
            pg.check_output_table(self.url, output.table, source.table if source.kind == "postgres" else None,
                                  self.overwrite)
            self._table = pg.temporary_table(output.table)
            return
        if output.kind != "duckdb":
            self.reserve(output.path, "output")
            return
        what = "output database"
        owner = self.protected.owner(output.path)
        if owner is not None:
            if owner.startswith("the input database"):
                raise OutputError(f"the output database {output.path} is the input database: write the anonymized "
                                  "table to another .duckdb file (the input is opened read-only and never modified)")
            raise OutputError(f"the {what} {output.path} is {owner}, which sqlanon never writes: choose another path")
        real = check_file(output.path, what, Protected(), self._taken, overwrite=True)
        if os.path.exists(real) and not self.overwrite and output.table in duckdb_tables(real):
            raise OutputError(f"table '{output.table}' already exists in {output.path}: {overwrite_hint()}")
        self._taken[real] = what
        self._created_db = not os.path.exists(real)
        self._table = f"__sqlanon_tmp_{os.getpid()}"

    # -- staging (during the run) ------------------------------------------------------------
    @property
    def output_target(self) -> str:
        """Where the engine writes the released table: a temporary file or table name."""
        if self._table is not None:
            return self._table
        return self._file(self._output.path).temp

    @property
    def staged_output(self) -> Output:
        """The output as staged, for the verification to read before anything is published."""
        if self._table is not None:
            return replace(self._output, table=self._table)
        return replace(self._output, path=self.output_target)

    def output_written(self) -> None:
        if self._table is None:
            self._file(self._output.path).written = True

    def put_text(self, path: str, text: str) -> None:
        """Write a reserved text target's content (under its temporary name)."""
        target = self._file(path)
        try:
            with open(target.temp, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
        except OSError as error:
            raise OutputError(f"cannot write the {target.what} {path}: {error.strerror or error}") from None
        target.written = True

    def _file(self, path: str) -> _File:
        return next(f for f in self._files if f.path == path)

    # -- publishing --------------------------------------------------------------------------
    def commit(self) -> None:
        """Move every staged file into place, then rename the output table; all or nothing."""
        staged = [f for f in self._files if f.written]
        _pause_for_tests()
        try:
            for f in staged:
                if os.path.lexists(f.path):
                    f.backup = temporary_name(f.path, "bak")
                    _keep(f.path, f.backup)
            for f in staged:
                os.replace(f.temp, f.path)
                f.placed = True
            if self._table is not None:
                self._publish_table()
        except BaseException as error:
            self._restore(staged)
            if isinstance(error, OSError):
                raise OutputError(f"cannot publish {error.filename or 'the output'}: {error.strerror or error}; "
                                  "nothing of this run was kept") from None
            raise
        for f in staged:
            if f.backup:
                _remove(f.backup)
        self.committed = True

    def _publish_table(self) -> None:
        output = self._output
        if output.kind == "postgres":
            pg.publish_table(self.url, self._table, output.table, self.overwrite)
        else:
            publish_duckdb_table(output.path, self._table, output.table)

    def _restore(self, staged: list[_File]) -> None:
        for f in reversed(staged):
            if f.placed:
                if f.backup:
                    os.replace(f.backup, f.path)
                    f.backup = None
                else:
                    _remove(f.path)
            f.placed = False
        for f in staged:
            if f.backup:
                _remove(f.backup)

    def abort(self) -> None:
        """Take back everything staged (nothing was published)."""
        for f in self._files:
            _remove(f.temp)
        if self._table is not None and self._output is not None:
            if self._output.kind == "postgres":
                pg.drop_table(self.url, self._table)
            elif self._created_db:
                for suffix in ("", ".wal"):
                    _remove(self._output.path + suffix)
            else:
                drop_duckdb_table(self._output.path, self._table)

    def __enter__(self) -> "Publication":
        return self

    def __exit__(self, kind, error, trace) -> None:
        if not self.committed:
            self.abort()


def _pause_for_tests() -> None:
    """Test hook: SQLANON_TEST_PAUSE_BEFORE_PUBLISH=seconds holds the written temporaries before
    their renames, so a test can kill the process in the middle of the output phase."""
    pause = os.environ.get("SQLANON_TEST_PAUSE_BEFORE_PUBLISH")
    if pause:
        time.sleep(float(pause))


def _keep(path: str, backup: str) -> None:
    """Keep the file about to be replaced under ``backup`` (a hard link: no copy, same bytes)."""
    try:
        os.link(path, backup)
    except OSError:
        shutil.copy2(path, backup)


def _remove(path: str) -> None:
    try:
        os.remove(path)
    except FileNotFoundError:
        pass
