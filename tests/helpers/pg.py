"""A throwaway PostgreSQL server for the tests: initdb + pg_ctl in a temp dir, on a free port.

The binaries come from ``pg_config --bindir`` or /usr/lib/postgresql/*/bin (``.ci/run``
installs the Debian package when none is there). PostgreSQL refuses to run as root, so as root
the cluster belongs to the ``postgres`` OS user. Without binaries the tests fail loudly;
only SQLANON_SKIP_POSTGRES=1 skips them (CI never sets it).
"""

from __future__ import annotations

from dataclasses import replace
import csv
import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest

from bench.datasets import pg_bindir
from sqlanon import Source

SKIP = "SQLANON_SKIP_POSTGRES"


def bindir() -> Path | None:
    """The folder of initdb and pg_ctl (the benchmarks' finder, ``bench.datasets.pg_bindir``)."""
    return pg_bindir()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A cluster in ``folder``; ``url`` reaches its ``postgres`` database as the ``postgres`` role."""

    def __init__(self, binaries: Path):
        self.binaries = binaries
        self.folder = Path(tempfile.mkdtemp(prefix="sqlanon-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.folder, "postgres", "postgres")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *command: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        done = subprocess.run([*prefix, *command], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> Server:
        self._run(
            str(self.binaries / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--locale=C",
            "--no-sync",
        )
        options = (
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off"
        )
        self._run(
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )
        return self

    def stop(self) -> None:
        try:
            self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def _ordered_table(url: str, table: str, columns: list[tuple[str, str]], options: str, feed) -> str:
    """Create ``table`` with ``columns`` (name, type) holding the rows that ``feed(copy)``
    writes to ``COPY ... FROM STDIN <options>``, physically in that order. COPY's batched
    inserts may put a later row into room left on an earlier page, and a PostgreSQL table is
    read in physical order: so the rows go through a staging table numbered as they arrive,
    then into the table sorted by that number."""
    import psycopg
    from psycopg import sql

    name = sql.Identifier(*table.split("."))
    names = sql.SQL(", ").join(sql.Identifier(n) for n, _ in columns)
    definitions = sql.SQL(", ").join(sql.SQL("{} {}").format(sql.Identifier(n), sql.SQL(t)) for n, t in columns)
    with psycopg.connect(url, autocommit=True) as con:
        con.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(name))
        con.execute(sql.SQL("CREATE TEMP TABLE staging (__line bigserial, {})").format(definitions))
        copy = sql.SQL("COPY staging ({}) FROM STDIN " + options).format(names)
        with con.cursor() as cursor, cursor.copy(copy) as writer:
            feed(writer)
        con.execute(sql.SQL("CREATE TABLE {} AS SELECT {} FROM staging ORDER BY __line").format(name, names))
    return table


def load_csv(url: str, table: str, path: str | Path, delimiter: str = ",") -> str:
    """A CSV file as a table of text columns (as DuckDB's all_varchar reads it), in file order."""
    from psycopg import sql

    with open(path, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle, delimiter=delimiter))

    def feed(writer):
        with open(path, "rb") as data:
            while chunk := data.read(1 << 20):
                writer.write(chunk)

    options = sql.SQL("WITH (FORMAT csv, HEADER true, DELIMITER {})").format(sql.Literal(delimiter)).as_string()
    return _ordered_table(url, table, [(h, "text") for h in header], options, feed)


@pytest.fixture(scope="session")
def postgres_url():
    """The server's URL; PG* variables point at it too (jobs without engine.url use them)."""
    if os.environ.get(SKIP):
        pytest.skip(f"{SKIP} is set")
    binaries = bindir()
    if binaries is None:
        pytest.fail(
            "no PostgreSQL binaries (pg_config --bindir or /usr/lib/postgresql/*/bin): install the "
            "Debian package postgresql (.ci/run does), or set SQLANON_SKIP_POSTGRES=1 to skip these tests"
        )
    server = Server(binaries).start()
    saved = {k: os.environ.get(k) for k in ("PGHOST", "PGPORT", "PGUSER", "PGDATABASE")}
    os.environ.update(PGHOST="127.0.0.1", PGPORT=str(server.port), PGUSER="postgres", PGDATABASE="postgres")
    try:
        yield server.url
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        server.stop()


_PG_TYPES = {
    "string": "text",
    "large_string": "text",
    "int64": "bigint",
    "int32": "integer",
    "int16": "smallint",
    "double": "double precision",
    "float": "real",
    "bool": "boolean",
    "date32[day]": "date",
    "null": "text",
    "timestamp[us]": "timestamp",
    "timestamp[us, tz=UTC]": "timestamptz",
    "time64[us]": "time",
}


def _pg_type(kind) -> str:
    """The PostgreSQL type of an Arrow type (decimal128(p, s): numeric(p, s))."""
    import pyarrow as pa

    if pa.types.is_decimal(kind):
        return f"numeric({kind.precision},{kind.scale})"
    return _PG_TYPES[str(kind)]


_LOADED: dict[tuple, str] = {}


def load_arrow(url: str, table: str, data) -> str:
    """A pyarrow Table as a PostgreSQL table, rows in order, types mapped one to one."""

    def feed(writer):
        for row in zip(*(column.to_pylist() for column in data.columns)):
            writer.write_row(row)

    return _ordered_table(url, table, [(f.name, _pg_type(f.type)) for f in data.schema], "", feed)


def on_postgres(job, url: str):
    """The job with its input (a CSV file or a pyarrow Table) loaded into the server once, as a
    table named by its content, read by the postgres engine."""

    source = job.input
    if source.kind == "csv":
        stat = os.stat(source.path)
        key = ("csv", source.path, stat.st_size, stat.st_mtime_ns, source.delimiter)
    elif source.kind == "arrow":
        key = ("arrow", hashlib.sha1(repr((source.arrow.schema, source.arrow.to_pydict())).encode()).hexdigest())
    else:
        return job
    if key not in _LOADED:
        table = f"public.input_{hashlib.sha1(repr(key).encode()).hexdigest()[:12]}"
        if source.kind == "csv":
            load_csv(url, table, source.path, source.delimiter)
        else:
            load_arrow(url, table, source.arrow)
        _LOADED[key] = table
    job = replace(job, input=Source(table=_LOADED[key], drop=source.drop))
    job = replace(job, engine="postgres")
    return job
