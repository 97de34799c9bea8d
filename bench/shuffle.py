"""The cost of the shuffled release (``[output] order = "shuffle"``) beside its floor, at ADULT x40
and at 100 M rows.

The data: ADULT replicated with the ages moved per replica (``datasets.replicated``: Parquet, generated
once into ``bench/.cache``, never committed), every column text; the nine QIs of the ADULT job.
Per size, one DuckDB session prepares the data once (untimed) and checks one node (untimed:
``--node``, by default Flash's optimum on ADULT for k = 5, s = 0.02, found first); then, alternating,
each of ``--repeat`` rounds times:

* ``sqlanon input``: the engine's write of that node's release in input order (the streamed
  projection, ``engines/duckdb/release.py``), as a run writes it, the verification left out;
* ``sqlanon shuffle``: the same write shuffled (the row number, and the ORDER BY of its keyed
  hash and then the number, ``compiler.shuffle_order``);
* ``COPY``: the floor, DuckDB alone copying the same file's columns to the same format;
* ``COPY ORDER BY key``: the same COPY sorted by the same key (60 bits of SHA-256 of a secret
  and the row number, then the row number), the floor of a shuffle;
* ``COPY ORDER BY random()``: sorted by DuckDB's own (not cryptographic) random(): what the
  keyed hash costs beyond the sort.

The floors run on a connection of their own with the same ``threads`` and ``memory_limit``.
Printed: medians (seconds, output MiB: a shuffled Parquet file may compress less well), the ratios
shuffle / input, sorted COPY / COPY and shuffle / sorted COPY, and ``uptime`` before and after.

    python -m bench.shuffle                                   # ADULT x40 and 100 M rows, Parquet out
    python -m bench.shuffle --times 4 --rows 0 --repeat 1     # a quick run of the script itself
    python -m bench.shuffle --format csv --threads 4 --memory-limit 8GB --json bench/results/shuffle.json
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import os
import secrets
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import duckdb

from bench.common import uptime, write_json
from bench.datasets import ADULT_ROWS, dataset_job, replicated, times_for
from sqlanon import sql as c
from sqlanon.config.job import Output
from sqlanon.session import Session

RUNS = ("sqlanon input", "sqlanon shuffle", "COPY", "COPY ORDER BY key", "COPY ORDER BY random()")


def settings(args) -> dict:
    return {"threads": args.threads, "memory_limit": args.memory_limit, "temp_directory": args.spill}


def adult_optimum() -> tuple[int, ...]:
    """Flash's optimum on ADULT (9 QIs), k = 5, s = 0.02: the node released at every size."""
    with Session(dataset_job("adult", k=5, suppression_limit=0.02)) as session:
        outcome, _ = session.search("flash")
        return outcome.optimum.node


def floor_sql(kind: str, fmt: str) -> str:
    """The COPY of the whole file: as it is, or sorted by the shuffle's key or by random()."""
    source = "read_parquet($path)"
    if kind == "COPY ORDER BY key":
        position = c.ident("__r").sql("duckdb")
        query = (
            f"SELECT * EXCLUDE ({position}) FROM (SELECT *, row_number() OVER () - 1 AS {position} FROM {source}) "
            f"ORDER BY {', '.join(e.sql('duckdb') for e in c.shuffle_order(c.col('__r')))}"
        )
    elif kind == "COPY ORDER BY random()":
        query = f"SELECT * FROM {source} ORDER BY random()"
    else:
        query = f"SELECT * FROM {source}"
    options = "FORMAT parquet" if fmt == "parquet" else "FORMAT csv, HEADER true"
    return f"COPY ({query}) TO $target ({options})"


def measure(path: Path, node: tuple[int, ...] | None, args, scratch: Path) -> dict:
    """Every run of ``RUNS`` on ``path``, ``args.repeat`` times, alternating."""
    own = {k: v for k, v in settings(args).items() if v is not None}
    job = dataset_job(
        "adult",
        k=5,
        suppression_limit=0.02,
        engine="duckdb",
        engine_settings=own,
        output=Output(path=str(scratch / f"out.{args.format}")),
    )
    job = replace(job, input=replace(job.input, path=str(path)))
    floor = duckdb.connect()
    for key, value in own.items():
        floor.execute(f"SET {key} = '{value}'").fetchall()
    times: dict[str, list[float]] = {run: [] for run in RUNS}
    sizes: dict[str, float] = {}
    with Session(job) as session:
        checker = session.checker()
        node = node or adult_optimum()
        best = checker.check(node)
        engine = session.engine
        for _ in range(args.repeat):
            for run in RUNS:
                target = scratch / f"{run.replace(' ', '_').replace('()', '')}.{args.format}"
                target.unlink(missing_ok=True)
                started = time.perf_counter()
                if run.startswith("sqlanon"):
                    output = replace(job.output, path=str(target), order=run.split()[1])
                    engine.write(node, checker.keep, checker.params, session.output_columns, output, str(target))
                else:
                    floor.execute(
                        floor_sql(run, args.format),
                        {
                            "path": str(path),
                            "target": str(target),
                            **({c.ORDER_KEY: secrets.token_hex(32)} if run.endswith("key") else {}),
                        },
                    ).fetchall()
                times[run].append(time.perf_counter() - started)
                sizes[run] = target.stat().st_size / 2**20
                print(f"  {run}: {times[run][-1]:.3f} s, {sizes[run]:.1f} MiB", flush=True)
        rows, suppressed = session.rows, best.stats.suppressed
    floor.close()
    for written in scratch.glob(f"*.{args.format}"):  # the next size needs the room
        written.unlink()
    medians = {run: statistics.median(t) for run, t in times.items()}
    return {
        "file": str(path),
        "rows": rows,
        "node": list(node),
        "suppressed": suppressed,
        "times": times,
        "medians": medians,
        "mib": sizes,
    }


def table(result: dict, args) -> str:
    m = result["medians"]
    lines = [
        f"\n{Path(result['file']).name}: {result['rows']:,} rows, node {tuple(result['node'])} "
        f"({result['suppressed']:,} rows suppressed), {args.format} out, threads {args.threads or 'default'}, "
        f"memory_limit {args.memory_limit or 'default'}; medians of {args.repeat}",
        "| run | seconds | output MiB |",
        "|---|---|---|",
    ]
    lines += [f"| {run} | {m[run]:.3f} | {result['mib'][run]:.1f} |" for run in RUNS]
    lines += [
        f"| sqlanon shuffle / sqlanon input | {m['sqlanon shuffle'] / m['sqlanon input']:.2f} | |",
        f"| COPY ORDER BY key / COPY | {m['COPY ORDER BY key'] / m['COPY']:.2f} | |",
        f"| sqlanon shuffle / COPY ORDER BY key | {m['sqlanon shuffle'] / m['COPY ORDER BY key']:.2f} | |",
        f"| COPY ORDER BY key / COPY ORDER BY random() | {m['COPY ORDER BY key'] / m['COPY ORDER BY random()']:.2f} | |",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.shuffle", description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=40, help="ADULT x this (0: none)")
    parser.add_argument(
        "--rows", type=int, default=100_000_000, help="and ADULT replicated to this many rows (0: none)"
    )
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--node", help="the levels to release, e.g. 1,2,1,1,2,1,1,1,1 (default: Flash's on ADULT)")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--memory-limit", help="DuckDB's memory_limit (default: DuckDB's)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the runs and medians here")
    args = parser.parse_args()
    node = tuple(int(x) for x in args.node.split(",")) if args.node else None
    factors = [t for t in (args.times, times_for(args.rows) if args.rows else 0) if t]
    scratch = Path(tempfile.mkdtemp(prefix="sqlanon-shuffle-", dir=os.environ.get("SQLANON_BENCH_SCRATCH")))
    args.spill = str(scratch / "spill")
    print("load before:", uptime(), flush=True)
    results = []
    try:
        for times in factors:
            path = replicated(times)
            print(f"{path.name} ({times * ADULT_ROWS:,} rows):", flush=True)
            results.append(measure(path, node, args, scratch))
            print(table(results[-1], args), flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print("load after:", uptime())
    if args.json:
        write_json(
            args.json,
            {"format": args.format, "threads": args.threads, "memory_limit": args.memory_limit, "results": results},
        )


if __name__ == "__main__":
    main()
