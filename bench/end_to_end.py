"""End to end at 1.2 M rows: ADULT x40 (the plain concatenation, ARX's experiment 3), k = 200,
s = 0.02, Flash, discernibility, the default engine (DuckDB, checks = "auto"), each phase beside
its floor measured in the same run.

Per input (Parquet, CSV) and output (CSV, Parquet) a job file is written and run as a user
runs it: ``sqlanon.anonymize(sqlanon.load_job(path))``, in this process. The phases are the
report's ``seconds`` (prepare, search, output, risk; ``output`` = write + verify, split with the
``on_phase`` callback; the verification's own database, made before the write, is timed and
counted in verify) and the wall-clock time of the call (``total``). The floors, each with a
fresh DuckDB connection:

* ``group by``: a bare ``GROUP BY`` of the nine QI columns over the input file, as the engine
  reads it (the floor of prepare, which must also encode, compress and fetch the class table);
  ``connect + group by`` adds the creation of the fresh in-memory database it runs in, which
  prepare's phase includes (the engine connects inside it);
* ``copy``: a ``COPY`` of the input's rows to the output's format (the floor of write);
* ``group by output``: the same ``GROUP BY`` over the written output (what verify must read).

Medians of ``--repeat`` (runs and floors interleaved), after one untimed run that pays the
process's one-time costs (imports, the first connection), as ARX is measured in a warm JVM;
``uptime`` before and after.

    python -m bench.end_to_end [--repeat 3] [--inputs parquet csv] [--outputs csv parquet] [--json FILE]

The sqlanon measured is the one Python imports: this checkout's, run from its root. For another
checkout's, skip the current folder and name both: ``PYTHONPATH=<other checkout>:. python -P -m
bench.end_to_end`` (its sqlanon first, then this checkout's ``bench``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import duckdb

import sqlanon
from bench.common import uptime, write_json
from bench.datasets import CACHE, adult_hierarchy, columns, replicated
from sqlanon import anonymizer

QIS = columns("adult")
READERS = {
    "parquet": ("read_parquet($path)", {}),
    "csv": ("read_csv($path, delim = $delim, header = true, all_varchar = true)", {}),
}


def write_job(folder: Path, data: Path, kind: str, output: str, k: int, s: float) -> Path:
    """A job file as a user writes it (absolute paths)."""
    lines = ["[input]", f'path = "{data}"', 'delimiter = ";"' if kind == "csv" else ""]
    for q in QIS:
        lines += [f'[attributes."{q}"]', 'role = "quasi"', f'hierarchy = "{adult_hierarchy(q)}"']
    lines += [
        "[privacy]",
        f"k = {k}",
        f"suppression_limit = {s}",
        "[search]",
        'algorithm = "flash"',
        'metric = "discernibility"',
        "[output]",
        f'path = "{folder / ("out." + output)}"',
        f'report = "{folder / "report.json"}"',
    ]
    path = folder / f"job_{kind}_{output}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(job_path: Path) -> dict:
    """One run of the job; the report's phases, write and verify split, and the wall clock."""
    job = sqlanon.load_job(job_path)
    for target in (job.output.path, job.output.report, job.output.html_path):  # the html page: None when off
        if target:
            Path(target).unlink(missing_ok=True)
    marks = {}
    opened = []  # the verification's database is made before the write: its seconds go to verify
    made = anonymizer.fresh_database

    def fresh_database(*args, **kwargs):
        clock = time.perf_counter()
        database = made(*args, **kwargs)
        opened.append(time.perf_counter() - clock)
        return database

    anonymizer.fresh_database = fresh_database
    try:
        started = time.perf_counter()
        result = sqlanon.anonymize(job, on_phase=lambda name: marks.setdefault(name, time.perf_counter()))
        total = time.perf_counter() - started
    finally:
        anonymizer.fresh_database = made
    report = result.report
    assert result.success and report["verified"], report.get("reason")
    seconds = dict(report["seconds"])
    # output = write + verify: the verify phase starts when on_phase("verify") is called
    seconds["write"] = marks["verify"] - marks["write"] - sum(opened)
    seconds["verify"] = seconds["output"] - seconds["write"]
    seconds["total"] = total
    return {
        "seconds": seconds,
        "node": report["transformation"],
        "suppressed": report["suppressed"],
        "checks": report["checks"],
        "placement": report["checks_placement"],
        "base_classes": report["base_classes"],
    }


def relation(kind: str, path: str, delimiter: str) -> tuple[str, dict]:
    sql, _ = READERS[kind]
    params = {"path": path}
    if kind == "csv":
        params["delim"] = delimiter
    return sql, params


def timed(action) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def floors(data: Path, kind: str, output: str, written: Path, scratch: Path) -> dict:
    keys = ", ".join('"' + q.replace('"', '""') + '"' for q in QIS)

    def group_by(relation_sql: str, params: dict, connect: bool = False) -> float:
        started = time.perf_counter()
        con = duckdb.connect()
        opened = time.perf_counter() - started
        try:
            return timed(
                lambda: con.sql(
                    f"SELECT {keys}, COUNT(*) AS n FROM {relation_sql} GROUP BY {keys}", params=params
                ).to_arrow_table()
            ) + (opened if connect else 0.0)
        finally:
            con.close()

    def copy() -> float:
        con = duckdb.connect()
        source, params = relation(kind, str(data), ";")
        target = str(scratch / f"floor.{output}").replace("'", "''")
        options = "FORMAT parquet" if output == "parquet" else "FORMAT csv, HEADER true, DELIMITER ','"
        try:
            return timed(
                lambda: con.execute(f"COPY (SELECT * FROM {source}) TO '{target}' ({options})", params).fetchall()
            )
        finally:
            con.close()

    return {
        "group_by": group_by(*relation(kind, str(data), ";")),
        "copy": copy(),
        # the same with its fresh database's creation (~10-15 ms of DuckDB's catalog), which
        # prepare pays too: the engine's connection is opened inside the phase
        "connect_group_by": group_by(*relation(kind, str(data), ";"), connect=True),
        "group_by_output": group_by(*relation(output, str(written), ",")),
    }


def median(rows: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in rows)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.end_to_end", description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=40)
    parser.add_argument("--k", type=int, default=200)
    parser.add_argument("--s", type=float, default=0.02)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--inputs", nargs="+", default=["parquet", "csv"], choices=["parquet", "csv"])
    parser.add_argument("--outputs", nargs="+", default=["csv", "parquet"], choices=["csv", "parquet"])
    parser.add_argument("--json", help="write the medians here")
    args = parser.parse_args()
    folder = CACHE / "end_to_end"
    folder.mkdir(parents=True, exist_ok=True)
    print("load before:", uptime(), flush=True)
    warm = write_job(
        folder, replicated(args.times, plain=True, kind=args.inputs[0]), args.inputs[0], args.outputs[0], args.k, args.s
    )
    run(warm)  # untimed
    results = []
    for kind in args.inputs:
        data = replicated(args.times, plain=True, kind=kind)
        for output in args.outputs:
            job_path = write_job(folder, data, kind, output, args.k, args.s)
            runs, floor_runs = [], []
            for _ in range(args.repeat):
                outcome = run(job_path)
                runs.append(outcome["seconds"])
                floor_runs.append(floors(data, kind, output, folder / f"out.{output}", folder))
            phases = {key: median(runs, key) for key in runs[0]}
            floor = {key: median(floor_runs, key) for key in floor_runs[0]}
            row = {
                "input": kind,
                "output": output,
                "rows": 30162 * args.times,
                **{k: v for k, v in outcome.items() if k != "seconds"},
                "phases": phases,
                "floors": floor,
            }
            results.append(row)
            print(json.dumps(row), flush=True)
    print("load after:", uptime())
    for row in results:
        p, f = row["phases"], row["floors"]
        print(
            f"\n{row['input']} -> {row['output']}: node {row['node']}, {row['suppressed']} suppressed, "
            f"{row['checks']} checks ({row['placement']}), {row['base_classes']} base classes"
        )
        print("| phase | seconds | floor | floor seconds | ratio |\n|---|---|---|---|---|")
        lines = [
            ("prepare", "group by", f["group_by"]),
            ("prepare", "connect + group by", f["connect_group_by"]),
            ("search", "", None),
            ("write", "copy", f["copy"]),
            ("verify", "group by output", f["group_by_output"]),
            ("verify", "group by (input)", f["group_by"]),
            ("risk", "", None),
            ("total", "", None),
        ]
        for phase, name, value in lines:
            ratio = f"{p[phase] / value:.2f}" if value else ""
            print(f"| {phase} | {p[phase]:.3f} | {name} | {'' if value is None else f'{value:.3f}'} | {ratio} |")
    if args.json:
        write_json(args.json, results)


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
