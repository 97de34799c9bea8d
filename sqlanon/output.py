"""Write the released table atomically: a temporary name, then a rename.

Never over the input, never over an existing output without ``overwrite``, and on any
failure nothing is left behind: no partial file, no temporary file or table.
"""

from __future__ import annotations

import glob
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import duckdb

from sqlanon.compiler import ident
from sqlanon.config import Output, Source
from sqlanon.errors import OutputError


TEMP_PREFIX = "sqlanon-"


def temporary_name(path: str) -> str:
    p = Path(path)
    return str(p.with_name(f".{p.name}.{TEMP_PREFIX}{os.getpid()}.tmp"))


def sweep_stale(path: str) -> list[str]:
    """Remove temporary files of ``path`` left by runs that were killed (their process is gone).

    A run stopped by SIGINT or SIGTERM cleans up after itself; one killed outright (SIGKILL,
    power loss) cannot, so the next run for the same output does it.
    """
    p = Path(path)
    removed = []
    for candidate in p.parent.glob(f".{glob.escape(p.name)}.{TEMP_PREFIX}*.tmp"):
        pid = candidate.name[len(f".{p.name}.{TEMP_PREFIX}"):-len(".tmp")]
        if pid.isdigit() and not _alive(int(pid)):
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


def check_target(output: Output, source: Source, url: str | None = None) -> None:
    """Refuse to write over the input or (without overwrite) over an existing output.
    ``url``: the PostgreSQL connection, for an output table there."""
    if output.kind == "postgres":
        from sqlanon.pg_connection import check_output_table

        check_output_table(url, output.table, source.table if source.kind == "postgres" else None, output.overwrite)
        return
    if source.path is not None and _same_file(output.path, source.path):
        if output.kind != "duckdb":
            raise OutputError(f"output {output.path} is the input file: choose another output path")
        raise OutputError(
            f"output database {output.path} is the input database: write the anonymized table to "
            "another .duckdb file (the input is opened read-only and never modified)"
        )
    if output.overwrite:
        return
    if output.kind == "duckdb":
        if os.path.exists(output.path) and output.table in _tables(output.path):
            raise OutputError(f"table '{output.table}' already exists in {output.path}: use --overwrite to replace it")
    elif os.path.exists(output.path):
        raise OutputError(f"output {output.path} already exists: use --overwrite to replace it")


@contextmanager
def atomic_target(output: Output, url: str | None = None) -> Iterator[str]:
    """Yield a temporary target for the writer; publish it only if the block succeeds."""
    if output.kind == "postgres":
        from sqlanon.pg_connection import atomic_table

        with atomic_table(url, output.table, output.overwrite) as temp:
            yield temp
        return
    parent = Path(output.path).parent
    if not parent.exists():
        raise OutputError(f"output folder {parent} does not exist")
    if output.kind == "duckdb":
        temp = f"__sqlanon_tmp_{os.getpid()}"
        try:
            yield temp
            _swap_table(output.path, temp, output.table)
        except BaseException:
            _drop_table(output.path, temp)
            raise
        return
    sweep_stale(output.path)
    temp = temporary_name(output.path)
    try:
        yield temp
        _pause_for_tests()
        os.replace(temp, output.path)
    except BaseException:
        if os.path.exists(temp):
            os.remove(temp)
        raise


def _pause_for_tests() -> None:
    """Test hook: SQLANON_TEST_PAUSE_BEFORE_PUBLISH=seconds holds a written temporary output
    before its rename, so a test can kill the process in the middle of the output phase."""
    pause = os.environ.get("SQLANON_TEST_PAUSE_BEFORE_PUBLISH")
    if pause:
        import time

        time.sleep(float(pause))


def write_text_atomically(path: str, text: str) -> None:
    temp = temporary_name(path)
    try:
        with open(temp, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(temp, path)
    except OSError as error:
        if os.path.exists(temp):
            os.remove(temp)
        raise OutputError(f"cannot write {path}: {error.strerror or error}") from None


def remove_output(output: Output, url: str | None = None) -> None:
    """Take back a published output that failed verification."""
    if output.kind == "postgres":
        from sqlanon.pg_connection import drop_table

        drop_table(url, output.table)
    elif output.kind == "duckdb":
        _drop_table(output.path, output.table)
    elif os.path.exists(output.path):
        os.remove(output.path)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.exists(a) and os.path.samefile(a, b)
    except OSError:
        return False


def _with_db(path: str, action: Callable[[duckdb.DuckDBPyConnection], object]):
    con = duckdb.connect(path)
    try:
        return action(con)
    finally:
        con.close()


def _tables(path: str) -> set[str]:
    return _with_db(path, lambda con: {r[0] for r in con.execute("SELECT table_name FROM duckdb_tables()").fetchall()})


def _swap_table(path: str, temp: str, table: str) -> None:
    def swap(con):
        con.execute("BEGIN").fetchall()
        con.execute(f"DROP TABLE IF EXISTS {ident(table).sql('duckdb')}").fetchall()
        con.execute(f"ALTER TABLE {ident(temp).sql('duckdb')} RENAME TO {ident(table).sql('duckdb')}").fetchall()
        con.execute("COMMIT").fetchall()

    _with_db(path, swap)


def _drop_table(path: str, table: str) -> None:
    if os.path.exists(path):
        _with_db(path, lambda con: con.execute(f"DROP TABLE IF EXISTS {ident(table).sql('duckdb')}").fetchall())
