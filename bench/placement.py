"""Check placement: Flash on ADULT (9 QIs, discernibility) with the checks in SQL, in process
over the fetched class table, and in the in-memory engine (the same kernel).

Per configuration (k in {2, 5}, s in {0, 0.02, 0.1}) and mode (DuckDB checks = "sql", DuckDB
checks = "local", memory): checks, search seconds, milliseconds per check (search seconds /
checks), the seconds inside checks (``Checker.seconds``) and the search's overhead outside
them (per check, and as a share of each search: the median of the searches' shares) —
medians of ``--repeat`` searches on one prepared session, after one search that builds the
lattice index (printed as ``first_search_s``). Then PostgreSQL (a
throwaway cluster, ``datasets.PgServer``, or ``--url``) with k = 5, s = 0.02 once per
placement, with the class table's bytes fetched. The machine's load (``uptime``) is printed
before and after.

    python -m bench.placement [--repeat 3] [--no-postgres] [--profile] [--modes duckdb:auto]

Writes bench/results/placement.json. ``--profile`` prints cProfile's top functions for the
DuckDB local search of k = 5, s = 0.02.
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import os
import statistics
import time

from bench.common import RESULTS, uptime, write_json
from bench.datasets import ADULT_CSV, ADULT_QIS, PgServer, dataset_job, load_csv
from sqlanon.session import Session

GRID = [(k, s) for k in (2, 5) for s in (0.0, 0.02, 0.1)]
MODES = [("duckdb", "sql"), ("duckdb", "local"), ("memory", "auto")]


def measure(session: Session, k: int, s: float, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        outcome, checker = session.search("flash", k=k, suppression_limit=s)
        seconds = time.perf_counter() - started
        runs.append((seconds, checker.seconds, checker.checks, outcome.optimum.node if outcome.optimum else None))
        # freed here, not when the next search's result replaces them (inside its clock)
        del outcome, checker
    search = statistics.median(r[0] for r in runs)
    inside = statistics.median(r[1] for r in runs)
    checks = runs[0][2]
    # the share of each search outside its checks, then the median: a run's two figures belong together
    share = statistics.median((r[0] - r[1]) / r[0] for r in runs)
    return {
        "k": k,
        "s": s,
        "checks_count": checks,
        "search_s": round(search, 3),
        "ms_per_check": round(1e3 * search / checks, 3),
        "check_ms": round(1e3 * inside / checks, 3),
        "overhead_ms": round(1e3 * (search - inside) / checks, 3),
        "overhead_share": round(share, 3),
        "optimum": runs[0][3],
    }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.placement", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-postgres", action="store_true")
    parser.add_argument("--url", help="a PostgreSQL server (default: a throwaway cluster)")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument(
        "--modes",
        help="engine:checks pairs to run, comma-separated (default: "
        + ",".join(f"{e}:{c}" for e, c in MODES)
        + "), e.g. duckdb:auto for the overhead target alone",
    )
    args = parser.parse_args()
    modes = [tuple(m.split(":", 1)) for m in args.modes.split(",")] if args.modes else MODES
    print("load before:", uptime())
    rows = []
    for engine, checks in modes:
        job = dataset_job("adult", ADULT_QIS, engine=engine, checks=checks)
        with Session(job) as session:
            # the session's first search also builds the lattice index (about 30 ms for ADULT's
            # 12,960 nodes), once per lattice: measured apart, beside the others
            started = time.perf_counter()
            session.search("flash", k=5, suppression_limit=0.02)
            print(
                {
                    "engine": engine,
                    "checks": session.placement,
                    "first_search_s": round(time.perf_counter() - started, 3),
                }
            )
            for k, s in GRID:
                row = {"engine": engine, "checks": session.placement, **measure(session, k, s, args.repeat)}
                rows.append(row)
                print(row, flush=True)
            if args.profile and session.placement == "local":
                import cProfile
                import pstats

                profile = cProfile.Profile()
                profile.enable()
                session.search("flash", k=5, suppression_limit=0.02)
                profile.disable()
                pstats.Stats(profile).sort_stats("tottime").print_stats(15)
    if not args.no_postgres:
        rows += postgres(args.url)
    print("load after:", uptime())
    header = [
        "engine",
        "checks",
        "k",
        "s",
        "checks#",
        "search s",
        "ms/check",
        "check ms",
        "overhead ms/check",
        "overhead",
    ]
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    for r in rows:
        print(
            f"| {r['engine']} | {r['checks']} | {r['k']} | {r['s']} | {r['checks_count']} | "
            f"{r['search_s']} | {r['ms_per_check']} | {r['check_ms']} | {r['overhead_ms']} | {r['overhead_share']:.0%} |"
        )
    # a run of some modes only does not replace the whole table's results
    write_json(RESULTS / ("placement.json" if modes == MODES else "placement_modes.json"), rows, default=str)


def postgres(url: str | None) -> list[dict]:
    from sqlanon import Source

    server = None
    if url is None:
        server = PgServer().start()
        url = server.url
    try:
        table = load_csv(url, "adult", ADULT_CSV, delimiter=";")
        rows = []
        for checks in ("sql", "local"):
            job = dataset_job("adult", ADULT_QIS, engine="postgres", checks=checks)
            job = replace(job, input=Source(table=table), engine_settings={**job.engine_settings, "url": url})
            started = time.perf_counter()
            with Session(job) as session:
                prepared = time.perf_counter() - started
                row = {
                    "engine": "postgres",
                    "checks": session.placement,
                    "prepare_s": round(prepared, 2),
                    "class_table_bytes": session.engine.class_table_bytes,
                    **measure(session, 5, 0.02, 1),
                }
            rows.append(row)
            print(row, flush=True)
        return rows
    finally:
        if server is not None:
            server.stop()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
