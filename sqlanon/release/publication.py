"""One run's targets, published together or not at all, never over anything it may not replace.

When the run starts, each target is checked against the guard (``guard.py``) and locked
(``locks.py``: one lock per target for the whole run; a second run on it exits naming the
first), and its folder is opened once: every later step goes through that folder's
descriptor, so a folder renamed or swapped for a symlink mid-run cannot redirect anything
(``placement.py``). Each target folder gets a private folder of the run (``.sqlanon-<random>``,
mode 0700, created exclusively) where its files are written; nothing in it can be guessed or
planted in advance. An output table (DuckDB or PostgreSQL) is built under a temporary name in
its database.

``commit`` writes the journal (``journal.py``), keeps every file it replaces as a hard link in
the private folder, moves each file into place — a new file atomically and only if the name is
still free, so a file that appeared meanwhile is never replaced without ``overwrite`` —, renames
an output table last, then marks the journal committed. A failure on the way puts everything
back; a run killed on the way is rolled back or forward by the next run that locks one of its
targets. Nothing of a run remains after it, whichever way it ends.
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlanon.core.specs import Output, Source
from sqlanon.core.wording import overwrite_hint
from sqlanon.engines.postgres import connection as pg
from sqlanon.errors import OutputError
from sqlanon.release.journal import recover, write as write_journal
from sqlanon.release.guard import Protected, check_file
from sqlanon.release.holds import hold
from sqlanon.release.locks import TargetLock
from sqlanon.release.placement import (
    create_text,
    exists,
    identity,
    keep,
    make_staging,
    open_folder,
    place_new,
    place_over,
    refuse,
    remove,
    remove_tree,
    staging_name,
    sync,
    through,
)
from sqlanon.release.tables import drop_duckdb_table, duckdb_tables, publish_duckdb_table, remove_duckdb_database


@dataclass
class _Folder:
    """A target folder: its real path, its descriptor, the run's private folder in it."""

    path: str
    fd: int
    staging: str = field(default_factory=staging_name)
    staging_fd: int | None = None  # None until the private folder is made, and after the clean-up

    @property
    def private(self) -> int:
        """The private folder's descriptor: open from the reservation to the clean-up."""
        assert self.staging_fd is not None, f"the private folder of {self.path} is not open"
        return self.staging_fd


@dataclass
class _File:
    path: str  # as the user named it
    what: str
    folder: _Folder
    name: str
    written: bool = False
    inode: tuple[int, int] | None = None
    backup: str | None = None
    placed: bool = False


class Publication:
    """The targets of one run. Use as a context manager: leaving it by an exception (or
    without ``commit``) takes back everything it staged and releases its locks.

    ``in_process``: the output is written by this process (DuckDB, pyarrow), which can write
    through the folder's descriptor; False for writers in other processes (Spark's)."""

    def __init__(
        self,
        protected: Protected,
        overwrite: bool = False,
        url: str | None = None,
        in_process: bool = True,
        on_commit: Callable[[], None] | None = None,
        interrupted: Callable[[], bool] | None = None,
    ):
        self.protected = protected
        self.overwrite = overwrite
        self.url = url  # the PostgreSQL database of an output table
        self.in_process = in_process
        self.on_commit = on_commit  # called at the point of no return (before the clean-up)
        # asked just before that point: whether a signal came that a library swallowed (DuckDB
        # can consume one at the end of a query); then nothing is published
        self.interrupted = interrupted
        self._files: list[_File] = []
        self._folders: list[_Folder] = []
        self._locks: list[TargetLock] = []
        self._taken: dict[str, str] = {}
        self._output: Output | None = None
        self._table: str | None = None  # the output table's temporary name
        self._created_db = False
        self._pg_lock = None  # the connection holding a PostgreSQL output table's advisory lock
        self.committed = False

    # -- reserving targets (when the run starts) ---------------------------------------------
    def reserve(self, path: str | None, what: str) -> None:
        """Claim ``path`` as this run's ``what`` (report, summary, ...) or refuse it now."""
        if path is None:
            return
        try:
            real = check_file(path, what, self.protected, self._taken, self.overwrite)
            self._taken[real] = what
            folder, name = self._lock(path, what)
            self._files.append(_File(path, what, folder, name))
        except BaseException:
            self.abort()
            raise

    def reserve_output(self, output: Output, source: Source) -> None:
        """Claim the released table's target: a file, a table in a DuckDB file, or a
        PostgreSQL table."""
        if not output.writes:
            return
        self._output = output
        try:
            if output.kind == "postgres":
                table = _table_of(output)
                self._pg_lock = pg.lock_output_table(self.url, table)
                pg.check_output_table(
                    self.url, table, source.table if source.kind == "postgres" else None, self.overwrite
                )
                self._table = pg.temporary_table(table)
            elif output.kind != "duckdb":
                self.reserve(output.path, "output")
            else:
                self._reserve_database(output)
        except BaseException:
            self.abort()
            raise

    def _reserve_database(self, output: Output) -> None:
        what = "output database"
        path = _path_of(output)
        owner = self.protected.owner(path)
        if owner is not None:
            if owner.startswith("the input database"):
                raise OutputError(
                    f"the output database {output.path} is the input database: write the anonymized "
                    "table to another .duckdb file (the input is opened read-only and never modified)"
                )
            raise OutputError(f"the {what} {output.path} is {owner}, which sqlanon never writes: choose another path")
        real = check_file(path, what, Protected(), self._taken, overwrite=True)
        self._taken[real] = what
        self._table = f"__sqlanon_tmp_{secrets.token_hex(8)}"
        self._lock(path, what, table=real)
        if os.path.exists(real) and not self.overwrite and output.table in duckdb_tables(real):
            raise OutputError(f"table '{output.table}' already exists in {output.path}: {overwrite_hint()}")

    def _lock(self, path: str, what: str, table: str | None = None) -> tuple[_Folder, str]:
        """Lock ``path``, finish what a killed run left there, and stage its folder; with
        ``table`` (the real path of a DuckDB database), the database file is the target."""
        absolute = os.path.abspath(os.path.expanduser(path))
        name = os.path.basename(absolute)
        folder = self._folder(os.path.realpath(os.path.dirname(absolute)), what, path)
        lock = TargetLock(folder.fd, name)
        try:
            stale = lock.acquire(what, path)
        except OSError as error:
            if isinstance(error, OutputError):
                raise
            raise refuse(what, path, error) from None
        self._locks.append(lock)
        if stale:
            recover(folder.fd, stale)
        if table is None and not self.overwrite and exists(folder.fd, name):
            raise OutputError(f"the {what} {path} already exists: {overwrite_hint()}")
        record: dict = {"pid": os.getpid(), "staging": folder.staging}
        if table is not None:
            self._created_db = not os.path.exists(table)
            record["tables"] = [{"kind": "duckdb", "database": table, "temp": self._table, "created": self._created_db}]
        # the record first, then the folder it names: a run killed between the two leaves a
        # record pointing at nothing, never a private folder nobody knows of
        try:
            lock.record(record)
            if folder.staging_fd is None:
                folder.staging_fd = make_staging(folder.fd, folder.staging)
        except OSError as error:
            raise refuse(what, path, error) from None
        return folder, name

    def _folder(self, real: str, what: str, path: str) -> _Folder:
        for folder in self._folders:
            if folder.path == real:
                return folder
        try:
            fd = open_folder(real)
        except OSError as error:
            raise refuse(what, path, error, "open the folder of") from None
        folder = _Folder(real, fd)
        self._folders.append(folder)
        return folder

    # -- staging (during the run) ------------------------------------------------------------
    @property
    def _reserved(self) -> Output:
        """The output ``reserve_output`` claimed."""
        assert self._output is not None, "no output was reserved"
        return self._output

    @property
    def output_target(self) -> str:
        """Where the engine writes the released table: a temporary file or table name."""
        if self._table is not None:
            return self._table
        target = self._file(_path_of(self._reserved))
        staging = target.folder.private
        if self.in_process and (path := through(staging, target.name)) is not None:
            return path
        return os.path.join(target.folder.path, target.folder.staging, target.name)

    @property
    def staged_output(self) -> Output:
        """The output as staged, for the verification to read before anything is published."""
        if self._table is not None:
            return replace(self._reserved, table=self._table)
        return replace(self._reserved, path=self.output_target)

    def output_written(self) -> None:
        if self._table is None:
            self._file(_path_of(self._reserved)).written = True

    def put_text(self, path: str, text: str) -> None:
        """Write a reserved text target's content (in the run's private folder)."""
        target = self._file(path)
        try:
            remove(target.folder.private, target.name)
            create_text(target.folder.private, target.name, text)
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
        hold("publish:staged")
        decided = False  # past the point of no return: the publication stands whatever follows
        try:
            for f in staged:
                f.inode = identity(f.folder.private, f.name)
                if f.inode is None:
                    raise OutputError(f"the staged {f.what} of {f.path} is missing from its private folder")
                if exists(f.folder.fd, f.name):
                    if not self.overwrite:
                        raise OutputError(
                            f"the {f.what} {f.path} appeared while the run worked: nothing was "
                            f"published; {overwrite_hint()}"
                        )
                    f.backup = f"{f.name}.backup"
            record = self._journal(staged) if self._folders else {}
            for folder in self._folders:
                write_journal(
                    folder.private, {**record, "role": "primary" if folder is self._folders[0] else "secondary"}
                )
            hold("publish:journal")
            for f in staged:
                if f.backup:
                    keep(f.folder.fd, f.name, f.folder.private, f.backup)
            hold("publish:backup")
            for i, f in enumerate(staged):
                if f.backup:
                    place_over(f.folder.private, f.name, f.folder.fd, f.name)
                else:
                    try:
                        place_new(f.folder.private, f.name, f.folder.fd, f.name)
                    except FileExistsError:
                        raise OutputError(
                            f"the {f.what} {f.path} appeared while the run worked: nothing was "
                            f"published; {overwrite_hint()}"
                        ) from None
                f.placed = True
                sync(f.folder.fd)
                hold(f"publish:place-{i}")
            if self.interrupted is not None and self.interrupted():
                raise KeyboardInterrupt
            if self._table is not None:
                self._publish_table()
                decided = True  # the renamed table cannot be taken back (a recovery sees its name gone)
                hold("publish:table")
            if self._folders:
                write_journal(self._folders[0].private, {**record, "role": "primary", "state": "committed"})
            decided = True
            if self.on_commit is not None:
                self.on_commit()
            hold("publish:committed")
        except BaseException as error:
            if decided:  # an interrupt after the point of no return: finish forward, then let it go on
                self.committed = True
                self._close()
                raise
            self._restore(staged)
            if isinstance(error, OSError) and not isinstance(error, OutputError):
                raise OutputError(
                    f"cannot publish {error.filename or 'the output'}: {error.strerror or error}; "
                    "nothing of this run was kept"
                ) from None
            raise
        self.committed = True
        self._close()

    def _journal(self, staged: list[_File]) -> dict:
        table = None
        if self._table is not None and self._output is not None and self._output.kind == "duckdb":
            table = {
                "kind": "duckdb",
                "database": os.path.realpath(_path_of(self._output)),
                "temp": self._table,
                "created": self._created_db,
            }
        return {
            "state": "committing",
            "primary": os.path.join(self._folders[0].path, self._folders[0].staging),
            "places": [[f.path, f.staging] for f in self._folders],
            "files": [
                {
                    "folder": f.folder.path,
                    "staging": f.folder.staging,
                    "name": f.name,
                    "backup": f.backup,
                    "inode": list(f.inode) if f.inode else None,
                }
                for f in staged
            ],
            "table": table,
        }

    def _publish_table(self) -> None:
        output = self._reserved
        assert self._table is not None, "no output table was staged"
        if output.kind == "postgres":
            pg.publish_table(self.url, self._table, _table_of(output), self.overwrite)
        else:
            publish_duckdb_table(_path_of(output), self._table, _table_of(output), self.overwrite)

    def _restore(self, staged: list[_File]) -> None:
        """Undo the placements of a commit that failed, through the folders' descriptors: a
        replaced file comes back from its backup, a new one goes (only if it is still ours)."""
        for f in reversed(staged):
            if f.placed:
                if f.backup:
                    place_over(f.folder.private, f.backup, f.folder.fd, f.name)
                elif identity(f.folder.fd, f.name) == f.inode:
                    remove(f.folder.fd, f.name)
            f.placed = False
            f.backup = None

    def abort(self) -> None:
        """Take back everything staged (nothing was published) and release the locks."""
        if self._table is not None and self._output is not None:
            try:
                if self._output.kind == "postgres":
                    pg.drop_table(self.url, self._table)
                elif self._created_db:
                    remove_duckdb_database(_path_of(self._output))
                else:
                    drop_duckdb_table(_path_of(self._output), self._table)
            except Exception:  # the table's database may be unreachable: the next run drops it
                pass
        self._close()

    def _close(self) -> None:
        """Remove the private folders (the journal's primary last) and release the locks."""
        for folder in self._folders[1:] + self._folders[:1]:
            if folder.staging_fd is not None:
                os.close(folder.staging_fd)
                folder.staging_fd = None
                try:
                    remove_tree(folder.fd, folder.staging)
                except OSError:
                    pass
        for lock in self._locks:
            lock.release()
        self._locks = []
        if self._pg_lock is not None:
            self._pg_lock.close()
            self._pg_lock = None
        for folder in self._folders:
            os.close(folder.fd)
        self._folders = []

    def __enter__(self) -> "Publication":
        return self

    def __exit__(self, kind, error, trace) -> None:
        if not self.committed:
            self.abort()


def _path_of(output: Output) -> str:
    """The file of an output that writes one (a file, or a DuckDB database)."""
    assert output.path is not None, "the output names no file"
    return output.path


def _table_of(output: Output) -> str:
    """The table of an output that writes one (PostgreSQL, or a table in a DuckDB database)."""
    assert output.table is not None, "the output names no table"
    return output.table


def _pause_for_tests() -> None:
    """Test hook: SQLANON_TEST_PAUSE_BEFORE_PUBLISH=seconds holds the written temporaries before
    their renames, so a test can kill the process in the middle of the output phase."""
    pause = os.environ.get("SQLANON_TEST_PAUSE_BEFORE_PUBLISH")
    if pause:
        time.sleep(float(pause))
