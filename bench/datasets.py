"""The benchmarks' data: the reference datasets of ../shared/data as jobs, ADULT replicated N
times, and a throwaway PostgreSQL server with ADULT loaded into it.

* ``dataset_job(name, qis)``: adult, creditcard or mach2019 with the first N columns (or the
  named ones, or all) as QIs, each with its hierarchy file; the other columns insensitive.
  ``ADULT_QIS`` are ADULT's nine columns in the file's order, ``ADULT_SUBSET`` six of them
  (720 nodes).
* ``replicated(times)``: ADULT x ``times`` as Parquet. Replica 0 is ADULT as it is; replica
  r > 0 moves each row's age cyclically through the hierarchy's domain 1..100, by (7 r + row)
  mod 100 years, so replicas add new classes instead of only multiplying counts (a replicated
  row keeps its other values). With ``plain`` the replicas are ADULT unchanged, one after the
  other (the plain concatenation of ARX's experiment 3: the same classes, every count times N),
  as Parquet or as CSV in ADULT's own format (``;``, header). Every column is text, as the CSV
  reads. Files are generated once into a cache folder, never committed: ``$SQLANON_BENCH_CACHE``
  or ``bench/.cache``.
* ``PgServer``: initdb + pg_ctl in a temporary folder on a free port (the binaries from
  ``pg_config --bindir`` or /usr/lib/postgresql/*/bin; as root the cluster belongs to the
  ``postgres`` OS user); ``load_csv`` puts a CSV file into it as a table of text columns, rows
  in file order.

As a command, it writes the replicated files and prints their paths:

    python -m bench.datasets 40                # ADULT x40 (1.2 M rows), perturbed ages
    python -m bench.datasets 40 --plain --csv  # the plain concatenation, Parquet and CSV
    python -m bench.datasets --rows 50000000
"""

from __future__ import annotations

import argparse
import csv
import glob
import math
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import replace
from pathlib import Path

from sqlanon import Attribute, Job, Source
from sqlanon.core.options import gathered

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
FILES = {
    "adult": ("adult/adult.csv", "adult/adult_hierarchy_{}.csv"),
    "creditcard": ("creditcard/creditcard_int.csv", "creditcard/creditcard_int_hierarchy_{}.csv"),
    "mach2019": ("mach2019/mach2019_int.csv", "mach2019/mach2019_int_hierarchy_{}.csv"),
}
ADULT = SHARED / "adult"
ADULT_CSV = ADULT / "adult.csv"
ADULT_ROWS = 30162
ADULT_QIS = [
    "sex",
    "age",
    "race",
    "marital-status",
    "education",
    "native-country",
    "workclass",
    "occupation",
    "salary-class",
]
ADULT_SUBSET = ["sex", "age", "race", "marital-status", "education", "workclass"]  # 720 nodes
CACHE = Path(os.environ.get("SQLANON_BENCH_CACHE", Path(__file__).resolve().parent / ".cache"))


# -- the reference datasets as jobs --------------------------------------------------------------
def columns(name: str) -> list[str]:
    with open(SHARED / FILES[name][0], newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle, delimiter=";"))


def adult_hierarchy(name: str) -> Path:
    return ADULT / f"adult_hierarchy_{name}.csv"


def dataset_job(name: str, qis: int | list[str] | None = None, **kwargs) -> Job:
    """``qis``: the first N columns, a list of names, or None for all. Others are insensitive."""
    data, hierarchy = FILES[name]
    names = columns(name)
    chosen = names if qis is None else names[:qis] if isinstance(qis, int) else list(qis)
    attributes = [Attribute(c, "quasi", str(SHARED / hierarchy.format(c))) for c in chosen]
    attributes += [Attribute(c, "insensitive") for c in names if c not in chosen]
    return Job(input=Source(path=str(SHARED / data), delimiter=";"), attributes=attributes, **gathered(kwargs))


# -- ADULT replicated ----------------------------------------------------------------------------
def replicated(times: int, plain: bool = False, kind: str = "parquet") -> Path:
    """The Parquet (or, with ``kind = "csv"``, CSV) file of ADULT x ``times`` (generated on
    first use); ``plain``: the replicas unchanged, in order (replica by replica)."""
    import duckdb

    if kind not in ("parquet", "csv"):
        raise ValueError(f"kind must be parquet or csv, got {kind!r}")
    if kind == "csv" and not plain:
        raise ValueError("only the plain concatenation is written as CSV")
    path = CACHE / f"adult_x{times}{'_plain' if plain else ''}.{kind}"
    if path.exists():
        return path
    CACHE.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    con = duckdb.connect()
    try:
        con.execute("SET preserve_insertion_order = false").fetchall()
        names = [
            d[0]
            for d in con.execute(
                "SELECT * FROM read_csv($p, delim = ';', header = true, all_varchar = true) LIMIT 0",
                {"p": str(ADULT_CSV)},
            ).description
        ]
        quoted = {c: '"' + c.replace('"', '""') + '"' for c in names}
        age = (
            "CASE WHEN r.r = 0 THEN a.age ELSE CAST(1 + (CAST(a.age AS INTEGER) - 1 + 7 * r.r + a.row) % 100 "
            "AS VARCHAR) END AS age"
        )
        select = ", ".join(age if c == "age" and not plain else f"a.{quoted[c]}" for c in names)
        order = " ORDER BY r.r, a.row" if plain else ""
        options = (
            "FORMAT csv, DELIMITER ';', HEADER true" if kind == "csv" else "FORMAT parquet, ROW_GROUP_SIZE 1000000"
        )
        if plain:  # in order: replica by replica, rows as in ADULT
            con.execute("SET preserve_insertion_order = true").fetchall()
        con.execute(
            f"COPY (SELECT {select} FROM (SELECT *, row_number() OVER () AS row "
            f"FROM read_csv($p, delim = ';', header = true, all_varchar = true)) AS a, range($n) AS r(r){order}) "
            f"TO '{partial}' ({options})",
            {"p": str(ADULT_CSV), "n": times},
        ).fetchall()
    finally:
        con.close()
    partial.rename(path)
    return path


def replicated_job(times: int, plain: bool = False, kind: str = "parquet", **kwargs) -> Job:
    """The ADULT job (9 QIs) over the replicated file."""
    job = dataset_job("adult", **kwargs)
    return replace(job, input=replace(job.input, path=str(replicated(times, plain, kind))))


def times_for(rows: int) -> int:
    return math.ceil(rows / ADULT_ROWS)


# -- a throwaway PostgreSQL server ---------------------------------------------------------------
def pg_bindir() -> Path | None:
    """The folder of initdb and pg_ctl, newest major version first; None without them."""
    candidates = []
    if shutil.which("pg_config"):
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=False)
        if found.returncode == 0:
            candidates.append(found.stdout.strip())
    candidates += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(Path(p).parent.name), reverse=True)
    return next((Path(f) for f in candidates if (Path(f) / "initdb").exists() and (Path(f) / "pg_ctl").exists()), None)


class PgServer:
    """A cluster in a temporary folder; ``url`` reaches its ``postgres`` database as ``postgres``."""

    def __init__(self, binaries: Path | None = None):
        self.binaries = binaries or pg_bindir()
        if self.binaries is None:
            raise SystemExit(
                "no PostgreSQL binaries (pg_config --bindir or /usr/lib/postgresql/*/bin); "
                "give a server with --url or the PG* variables"
            )
        self.folder = Path(tempfile.mkdtemp(prefix="sqlanon-bench-pg-"))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.folder, "postgres", "postgres")
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, tool: str, *args: str) -> None:
        prefix = ["runuser", "-u", "postgres", "--"] if self.as_root else []
        done = subprocess.run([*prefix, str(self.binaries / tool), *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError(f"{tool} failed ({done.returncode}): {done.stderr or done.stdout}")

    def start(self) -> PgServer:
        data = str(self.folder / "data")
        self._run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync")
        self._run(
            "pg_ctl",
            "-D",
            data,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
            "-o",
            f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c synchronous_commit=off -c full_page_writes=off",
        )
        return self

    def stop(self) -> None:
        try:
            self._run("pg_ctl", "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def load_csv(url: str, table: str, path: str | Path, delimiter: str = ",") -> str:
    """A CSV file as ``table`` of text columns (as DuckDB's all_varchar reads it), physically in
    file order: COPY may put a later row on an earlier page, so the rows go through a staging
    table numbered as they arrive and then into the table sorted by that number."""
    import psycopg
    from psycopg import sql

    with open(path, newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle, delimiter=delimiter))
    name = sql.Identifier(*table.split("."))
    names = sql.SQL(", ").join(map(sql.Identifier, header))
    with psycopg.connect(url, autocommit=True) as con:
        con.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(name))
        con.execute(
            sql.SQL("CREATE TEMP TABLE staging (__line bigserial, {})").format(
                sql.SQL(", ").join(sql.SQL("{} text").format(sql.Identifier(h)) for h in header)
            )
        )
        copy = sql.SQL("COPY staging ({}) FROM STDIN WITH (FORMAT csv, HEADER true, DELIMITER {})").format(
            names, sql.Literal(delimiter)
        )
        with con.cursor() as cursor, cursor.copy(copy) as writer, open(path, "rb") as data:
            while chunk := data.read(1 << 20):
                writer.write(chunk)
        con.execute(sql.SQL("CREATE TABLE {} AS SELECT {} FROM staging ORDER BY __line").format(name, names))
    return table


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m bench.datasets",
        description="Write ADULT replicated N times (bench/.cache) and print the paths.",
    )
    parser.add_argument("times", nargs="?", type=int, default=40)
    parser.add_argument("--rows", type=int, help="at least this many rows instead of a factor")
    parser.add_argument("--plain", action="store_true", help="the plain concatenation (ages unchanged)")
    parser.add_argument("--csv", action="store_true", help="with --plain: the CSV file too")
    args = parser.parse_args()
    n = times_for(args.rows) if args.rows else args.times
    print(replicated(n, args.plain), f"{n * ADULT_ROWS:,} rows")
    if args.csv and args.plain:
        print(replicated(n, True, "csv"), f"{n * ADULT_ROWS:,} rows")


if __name__ == "__main__":
    main()
