"""ADULT replicated N times with a deterministic perturbation of age, as Parquet (bench-only).

Replica 0 is ADULT as it is; replica r > 0 moves each row's age cyclically through the
hierarchy's domain 1..100, by (7 r + row) mod 100 years, so replicas add new classes instead
of only multiplying counts (a replicated row keeps its other values). With ``plain`` the
replicas are ADULT unchanged, one after the other (the plain concatenation of ARX's
experiment 3: the same classes, every count times N), as Parquet or as CSV in ADULT's own
format (``;``, header). Every column is text, as the CSV reads. Files are generated once
into a cache folder (never committed): ``$SQLANON_BENCH_CACHE`` or ``bench/.cache``.

    python bench/replicate.py 40                # ADULT x40 (1.2 M rows), perturbed ages
    python bench/replicate.py 40 --plain --csv  # the plain concatenation, Parquet and CSV
    python bench/replicate.py --rows 50000000
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import math
import os
from pathlib import Path

import duckdb

from datasets import SHARED, dataset_job

ADULT = SHARED / "adult" / "adult.csv"
ADULT_ROWS = 30162
CACHE = Path(os.environ.get("SQLANON_BENCH_CACHE", Path(__file__).resolve().parent / ".cache"))


def replicated(times: int, plain: bool = False, kind: str = "parquet") -> Path:
    """The Parquet (or, with ``kind = "csv"``, CSV) file of ADULT x ``times`` (generated on
    first use); ``plain``: the replicas unchanged, in order (replica by replica)."""
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
        columns = [d[0] for d in con.execute("SELECT * FROM read_csv($p, delim = ';', header = true, all_varchar = true) LIMIT 0",
                                             {"p": str(ADULT)}).description]
        quoted = {c: '"' + c.replace('"', '""') + '"' for c in columns}
        age = ("CASE WHEN r.r = 0 THEN a.age ELSE CAST(1 + (CAST(a.age AS INTEGER) - 1 + 7 * r.r + a.row) % 100 "
               "AS VARCHAR) END AS age")
        select = ", ".join(age if c == "age" and not plain else f"a.{quoted[c]}" for c in columns)
        order = " ORDER BY r.r, a.row" if plain else ""
        options = "FORMAT csv, DELIMITER ';', HEADER true" if kind == "csv" else "FORMAT parquet, ROW_GROUP_SIZE 1000000"
        if plain:  # in order: replica by replica, rows as in ADULT
            con.execute("SET preserve_insertion_order = true").fetchall()
        con.execute(
            f"COPY (SELECT {select} FROM (SELECT *, row_number() OVER () AS row "
            f"FROM read_csv($p, delim = ';', header = true, all_varchar = true)) AS a, range($n) AS r(r){order}) "
            f"TO '{partial}' ({options})",
            {"p": str(ADULT), "n": times},
        ).fetchall()
    finally:
        con.close()
    partial.rename(path)
    return path


def replicated_job(times: int, plain: bool = False, kind: str = "parquet", **kwargs):
    """The ADULT job (9 QIs) over the replicated file."""
    job = dataset_job("adult", **kwargs)
    job = replace(job, input=replace(job.input, path=str(replicated(times, plain, kind))))
    return job


def times_for(rows: int) -> int:
    return math.ceil(rows / ADULT_ROWS)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("times", nargs="?", type=int, default=40)
    parser.add_argument("--rows", type=int, help="at least this many rows instead of a factor")
    parser.add_argument("--plain", action="store_true", help="the plain concatenation (ages unchanged)")
    parser.add_argument("--csv", action="store_true", help="with --plain: the CSV file too")
    args = parser.parse_args()
    n = times_for(args.rows) if args.rows else args.times
    print(replicated(n, args.plain), f"{n * ADULT_ROWS:,} rows")
    if args.csv and args.plain:
        print(replicated(n, True, "csv"), f"{n * ADULT_ROWS:,} rows")
