"""Prepare at 50 M rows of Parquet under a DuckDB ``memory_limit``, beside its floor.

The data: ADULT replicated to at least ``--rows`` rows with the ages moved through their domain
per replica (``datasets.replicated``: deterministic, generated once into ``bench/.cache``, never
committed), every column text as ADULT's CSV reads; 9 QIs, the rest insensitive.

Each run is a fresh subprocess, so its peak RSS (``VmHWM`` of /proc/self/status, else
``ru_maxrss``) is its own:

* ``prepare``: ``Session(job)`` on DuckDB with ``[engine] memory_limit`` (and a
  ``temp_directory`` to spill into): read, encode, compress to the base class table, and place
  the checks (``auto``: at these sizes the class table is fetched for local checks), after an
  untimed ``Session`` on ADULT in the same process that pays its one-time costs (imports), as
  ``bench.end_to_end`` does; peak RSS is the process's, that run included;
* ``group by``: the floor, a bare ``GROUP BY`` of the nine QI columns over the same file with
  the same ``memory_limit``, the groups fetched as Arrow (what prepare must at least do), after
  an untimed Arrow result that pays pyarrow's import.

Runs alternate (prepare, floor, prepare, floor, ...); medians of ``--repeat``; ``uptime``
before and after.

    python -m bench.big_prepare [--rows 50000000] [--memory-limit 2GB] [--threads N] [--repeat 3] [--json FILE]
    python -m bench.big_prepare --times 40 --plain --memory-limit none   # ADULT x40, ARX's experiment 3
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import json
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import ROOT, uptime, write_json
from bench.datasets import columns, dataset_job, replicated, times_for

QIS = columns("adult")


def peak_rss_mib() -> float:
    """This process's peak resident set (VmHWM), in MiB."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_prepare(spec: dict) -> dict:
    from sqlanon.session import Session

    job = dataset_job(
        "adult",
        metric="discernibility",
        engine="duckdb",
        engine_settings={
            "memory_limit": spec["memory_limit"] or None,
            "temp_directory": spec["temp_directory"],
            "threads": spec.get("threads"),
        },
    )
    with Session(dataset_job("adult", metric="discernibility", engine="duckdb")):
        pass  # untimed: the process's one-time costs (imports: pyarrow's first array imports pandas, ~1 s)
    job = replace(job, input=replace(job.input, path=spec["path"]))
    started = time.perf_counter()
    with Session(job) as session:
        seconds = time.perf_counter() - started
        return {
            "seconds": seconds,
            "rows": session.rows,
            "base_classes": session.prepared.base_classes,
            "peak_rss_mib": peak_rss_mib(),
        }


def run_floor(spec: dict) -> dict:
    import duckdb

    con = duckdb.connect()
    if spec["memory_limit"]:
        con.execute(f"SET memory_limit = '{spec['memory_limit']}'").fetchall()
    con.execute(f"SET temp_directory = '{spec['temp_directory']}'").fetchall()
    if spec.get("threads"):
        con.execute(f"SET threads = {int(spec['threads'])}").fetchall()
    keys = ", ".join('"' + q.replace('"', '""') + '"' for q in QIS)
    con.sql("SELECT 1 AS x").to_arrow_table()  # untimed: the first Arrow result imports pyarrow (~1 s)
    started = time.perf_counter()
    groups = con.sql(
        f"SELECT {keys}, COUNT(*) AS n FROM read_parquet($path) GROUP BY {keys}", params={"path": spec["path"]}
    ).to_arrow_table()
    seconds = time.perf_counter() - started
    con.close()
    return {"seconds": seconds, "groups": groups.num_rows, "peak_rss_mib": peak_rss_mib()}


def in_subprocess(spec: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-m", "bench.big_prepare", "--run", json.dumps(spec)], capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode != 0:
        raise SystemExit(f"{spec['what']} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.big_prepare", description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000_000)
    parser.add_argument("--times", type=int, help="ADULT x this instead of --rows (e.g. 40)")
    parser.add_argument("--plain", action="store_true", help="the plain concatenation (ARX's experiment 3)")
    parser.add_argument("--memory-limit", default="2GB", help="DuckDB's memory_limit; 'none' for the default")
    parser.add_argument("--threads", type=int)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the runs and medians here")
    parser.add_argument("--run", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        spec = json.loads(args.run)
        print(json.dumps(run_prepare(spec) if spec["what"] == "prepare" else run_floor(spec)))
        return
    path = replicated(args.times or times_for(args.rows), args.plain)
    spill = tempfile.mkdtemp(prefix="sqlanon-spill-")
    limit = None if args.memory_limit.lower() == "none" else args.memory_limit
    spec = {"path": str(path), "memory_limit": limit, "temp_directory": spill, "threads": args.threads}
    print("load before:", uptime(), flush=True)
    runs: dict[str, list[dict]] = {"prepare": [], "group_by": []}
    try:
        for _ in range(args.repeat):
            runs["prepare"].append(in_subprocess({**spec, "what": "prepare"}))
            print("prepare", json.dumps(runs["prepare"][-1]), flush=True)
            runs["group_by"].append(in_subprocess({**spec, "what": "group_by"}))
            print("group by", json.dumps(runs["group_by"][-1]), flush=True)
    finally:
        shutil.rmtree(spill, ignore_errors=True)
    print("load after:", uptime())
    med = {
        what: {key: statistics.median(r[key] for r in rs) for key in ("seconds", "peak_rss_mib")}
        for what, rs in runs.items()
    }
    first = runs["prepare"][0]
    print(
        f"\n{path.name}: {first['rows']:,} rows, {first['base_classes']:,} base classes, memory_limit "
        f"{args.memory_limit}, threads {args.threads or 'default'}; medians of {args.repeat}"
    )
    print("| run | seconds | peak RSS MiB |\n|---|---|---|")
    for what, name in (("prepare", "prepare (Session)"), ("group_by", "bare GROUP BY of the 9 QIs")):
        print(f"| {name} | {med[what]['seconds']:.2f} | {med[what]['peak_rss_mib']:.0f} |")
    print(f"| prepare / GROUP BY | {med['prepare']['seconds'] / med['group_by']['seconds']:.2f} | |")
    if args.json:
        write_json(args.json, {"spec": spec, "runs": runs, "medians": med})


if __name__ == "__main__":
    main()
