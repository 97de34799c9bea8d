"""Time of the risk analysis per engine: the class-size frequency table (SQL in DuckDB, numpy
bincount in memory) of the input and of a node's kept classes, and the figures computed from
it (prosecutor, Zayatz, Pitman, SNB, Dankar's rule) — on ADULT and ADULT x40 (1.2 M rows).

Each (engine, size) runs in a fresh subprocess; preparation (reading and encoding the input,
paid once per job) is reported apart; each step is timed ``--repeat`` times, median reported.
PostgreSQL reads ADULT xN loaded into a server (``--url`` or the PG* variables, else a
throwaway cluster, ``datasets.PgServer``; loading is not counted); Spark reads the Parquet file
itself (local[2]). Run from the project root:

    python -m bench.risk [--sizes 1 40] [--repeat 5] [--fraction 0.1] [--engines duckdb memory postgres spark]

The node is ADULT's k = 5 optimum (1,1,1,2,3,2,2,1,1) with k = 5, so its table is the kept
classes; the estimators run on the input's table (the larger one, where Pitman works hardest).
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from bench.common import ROOT
from bench.datasets import PgServer, dataset_job, replicated_job

NODE = (1, 1, 1, 2, 3, 2, 2, 1, 1)


def timed(repeat: int, action):
    times, value = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        value = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), value


def run(engine: str, size: int, repeat: int, fraction: float) -> dict:
    """In this process: prepare once, then time each step of the risk analysis."""
    from sqlanon.reidentification.analysis import risk_section
    from sqlanon.session import Session

    if engine == "postgres":  # the rows were loaded into the server by the parent
        from bench.warehouses import TABLE

        from sqlanon import Source

        job = replicated_job(size, engine=engine, k=5)
        job = replace(
            job,
            input=Source(table=TABLE),
            engine_settings={**job.engine_settings, "url": os.environ.get("SQLANON_BENCH_URL") or None},
        )
    elif engine == "spark":  # Spark reads Parquet itself
        job = replicated_job(size, engine=engine, k=5)
    else:
        job = dataset_job("adult", engine=engine, k=5) if size == 1 else replicated_job(size, engine=engine, k=5)
    started = time.perf_counter()
    with Session(job) as session:
        prepare = time.perf_counter() - started
        zeros = tuple(0 for _ in session.qis)
        checker = session.checker()
        input_query, before = timed(repeat, lambda: session.runner.class_sizes(zeros))
        node_query, after = timed(repeat, lambda: session.runner.class_sizes(NODE, checker.keep, checker.params))
        population = session.rows / fraction
        figures, section = timed(repeat, lambda: risk_section(before, 0.2, population))
        after_figures, _ = timed(repeat, lambda: risk_section(after, 0.2, population))
        return {
            "engine": engine,
            "size": size,
            "rows": session.rows,
            "base_classes": session.prepared.base_classes,
            "prepare": prepare,
            "input_sizes": input_query,
            "node_sizes": node_query,
            "input_figures": figures,
            "node_figures": after_figures,
            "input_classes": sum(before.values()),
            "node_classes": sum(after.values()),
            "dankar": section["population"]["dankar"]["model"],
            "pitman_evaluations": section["population"]["estimators"]["pitman"]["iterations"],
            "distinct_sizes": len(before),
        }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.risk", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 40])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--fraction", type=float, default=0.1)
    parser.add_argument(
        "--engines",
        nargs="+",
        default=["duckdb", "memory", "postgres", "spark"],
        choices=["duckdb", "memory", "postgres", "spark"],
    )
    parser.add_argument("--url", help="PostgreSQL server (default: PG* variables, else a throwaway cluster)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        engine, size = args.child.split(":")
        print(json.dumps(run(engine, int(size), args.repeat, args.fraction)))
        return
    rows, server, url = [], None, args.url
    if "postgres" in args.engines and url is None and not os.environ.get("PGHOST"):
        server = PgServer().start()
        url = server.url
    try:
        for size in args.sizes:
            for engine in args.engines:
                if engine == "postgres":
                    from bench.warehouses import load_postgres

                    load_postgres(url or "", size)
                out = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "bench.risk",
                        "--child",
                        f"{engine}:{size}",
                        "--repeat",
                        str(args.repeat),
                        "--fraction",
                        str(args.fraction),
                    ],
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=ROOT,
                    env={**os.environ, "SQLANON_BENCH_URL": url or ""},
                )
                rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
    finally:
        if server is not None:
            server.stop()
    for r in rows:  # every engine counts the same class sizes
        same = [o for o in rows if o["size"] == r["size"]]
        assert all((o["input_classes"], o["node_classes"]) == (r["input_classes"], r["node_classes"]) for o in same), r
    ms = lambda s: f"{1000 * s:,.1f}"
    print(
        "| data | rows | engine | prepare s | input sizes ms | node sizes ms | figures (input) ms | "
        "figures (node) ms | total risk ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        total = r["input_sizes"] + r["node_sizes"] + r["input_figures"] + r["node_figures"]
        label = "ADULT" if r["size"] == 1 else f"ADULT ×{r['size']}"
        print(
            f"| {label} | {r['rows']:,} | {r['engine']} | {r['prepare']:.2f} | {ms(r['input_sizes'])} | "
            f"{ms(r['node_sizes'])} | {ms(r['input_figures'])} | {ms(r['node_figures'])} | {ms(total)} |"
        )
    print()
    for r in rows:
        print(
            f"{r['engine']} x{r['size']}: {r['base_classes']:,} base classes, input {r['input_classes']:,} classes "
            f"({r['distinct_sizes']} distinct sizes), node {r['node_classes']:,} kept classes; Dankar chose "
            f"{r['dankar']} ({r['pitman_evaluations']} Pitman evaluations)"
        )


if __name__ == "__main__":
    main()
