"""Anonymizing where the data lives: Flash on ADULT xN (9 QIs, discernibility, k = 5,
s in {0, 0.02}) inside PostgreSQL and Spark, beside DuckDB reading the same rows from Parquet
and the in-memory engine, with the checks in SQL or in process (``--checks sql local``).

Per engine, placement and configuration: preparation (once per placement; with local checks
it includes fetching the class table, timed apart as ``fetch``), search time (median of
``--repeat``; ``--sql-repeat`` for SQL placement on PostgreSQL and Spark, whose searches take
minutes), checks, the class table's bytes fetched once (``class_table_bytes``: the Arrow
buffers) and the bytes the search moved into Python: the length of the text of every value
fetched (``bytes_fetched``, ``sqlanon/engines/sql/fetched.py``; a check in SQL fetches one row of
figures). The in-memory engine holds everything in Python, so it has no such figure.

``--plain``: the plain concatenation of ADULT (ARX's experiment 3: the same 19,502 classes,
every count times N) instead of ages moved through the domain per replica (``datasets.replicated``).
``--max-sql-checks N``: a SQL-placement search stops after N checks and its time is
extrapolated per check to the full search's checks (the local search's count), marked so.

PostgreSQL: ``--url`` (or the PG* variables) names a server; without either, a throwaway
cluster is started (``datasets.PgServer``). The replicated ADULT is loaded into it once per run
as text columns, in file order.

    python -m bench.warehouses [--times 40] [--plain] [--k 5] [--limits 0 0.02] [--checks sql local]
        [--repeat 3] [--sql-repeat 1] [--engines duckdb postgres memory spark]

Spark reads the Parquet file itself (``--master``, default local[2]).

Prints a table (with ``uptime`` before and after) and writes bench/results/warehouses.json. An
engine is one entry of RUNNERS: a function (times, configurations, options) -> rows; add one to
compare another warehouse.
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import os
import sys
import time

from bench.common import RESULTS, uptime, write_json
from bench.datasets import CACHE, PgServer, load_csv, replicated, replicated_job

TABLE = "public.adult_bench"


class _Capped(Exception):
    """A SQL-placement search stopped at --max-sql-checks."""


def search_all(job, configs, options) -> tuple[float, list[dict]]:
    """Open the job once, run Flash ``repeat`` times for each (k, s): the rows of the table."""
    import statistics

    from sqlanon.engines.sql import local_checks
    from sqlanon.session import Session

    fetch = {"seconds": 0.0}
    fetch_kernel = local_checks.fetch_kernel

    def timed_fetch(engine):
        t = time.perf_counter()
        try:
            return fetch_kernel(engine)
        finally:
            fetch["seconds"] += time.perf_counter() - t

    local_checks.fetch_kernel = timed_fetch  # SqlEngine.runner looks it up at the call: the fetch, timed apart
    started = time.perf_counter()
    rows = []
    try:
        with Session(job) as session:
            prepare = time.perf_counter() - started
            engine = session.engine
            sql = session.placement == "sql" and engine.name in ("postgres", "spark")
            repeat = options["sql_repeat"] if sql else options["repeat"]
            cap = options.get("max_sql_checks") if sql else None
            for k, limit in configs:
                times = []
                for _ in range(repeat):
                    fetched = getattr(engine, "bytes_fetched", None)
                    done = []

                    def count(result, done=done):
                        done.append(1)
                        if cap and len(done) >= cap:
                            raise _Capped

                    t = time.perf_counter()
                    try:
                        outcome, _ = session.search("flash", on_check=count, k=k, suppression_limit=limit)
                    except _Capped:
                        outcome = None
                    times.append(time.perf_counter() - t)
                best = outcome.optimum if outcome is not None else None
                rows.append(
                    {
                        "k": k,
                        "s": limit,
                        "seconds": statistics.median(times),
                        "times": times,
                        "checks": len(done),
                        "capped": outcome is None,
                        "bytes": None if fetched is None else engine.bytes_fetched - fetched,
                        "node": list(best.node) if best else None,
                        "loss": best.loss if best else None,
                        "suppressed": best.stats.suppressed if best else None,
                        "base_classes": session.prepared.base_classes,
                        "rows": session.prepared.rows,
                        "placement": session.placement,
                        "class_table_bytes": engine.class_table_bytes,
                    }
                )
    finally:
        local_checks.fetch_kernel = fetch_kernel
    for row in rows:
        row["prepare"] = prepare - fetch["seconds"]
        row["fetch"] = fetch["seconds"]
    return prepare, rows


def _job(times: int, engine: str, options, **kwargs):
    return replicated_job(
        times, options["plain"], metric="discernibility", engine=engine, checks=options["checks"], **kwargs
    )


def run_duckdb(times: int, configs, options) -> list[dict]:
    return search_all(_job(times, "duckdb", options), configs, options)[1]


def run_memory(times: int, configs, options) -> list[dict]:
    return search_all(_job(times, "memory", options), configs, options)[1]


def run_postgres(times: int, configs, options) -> list[dict]:
    from sqlanon import Source

    job = _job(times, "postgres", options)
    job = replace(job, input=Source(table=TABLE))
    job = replace(job, engine_settings={**job.engine_settings, "url": options["url"]})
    return search_all(job, configs, options)[1]


def run_spark(times: int, configs, options) -> list[dict]:
    """Spark reading the same Parquet file itself (``options["master"]``, default local[2])."""
    return search_all(
        _job(times, "spark", options, engine_settings={"master": options.get("master")}), configs, options
    )[1]


#: engine name -> runner(times, [(k, s)], options) -> rows; options["url"] is the PostgreSQL server,
#: options["master"] Spark's, options["checks"] the placement
RUNNERS = {"duckdb": run_duckdb, "postgres": run_postgres, "memory": run_memory, "spark": run_spark}


def load_postgres(url: str, times: int, plain: bool = False) -> float:
    """ADULT x times into TABLE (text columns, file order): seconds taken."""
    import duckdb

    parquet = replicated(times, plain)
    csv = CACHE / f"adult_x{times}{'_plain' if plain else ''}_pg.csv"
    if not csv.exists():
        duckdb.connect().execute(f"COPY (SELECT * FROM read_parquet('{parquet}')) TO '{csv}' (FORMAT csv, HEADER true)")
    started = time.perf_counter()
    load_csv(url, TABLE, csv)
    return time.perf_counter() - started


def table(results: list[dict]) -> str:
    lines = [
        "| engine | checks in | k | s | checks | search s | ms/check | prepare s | fetch s | class table bytes "
        "| bytes to Python (search) | optimum |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        moved = "all (in-process)" if r["bytes"] is None else f"{r['bytes']:,}"
        per = 1000 * r["seconds"] / max(r["checks"], 1)
        search = f"{r['seconds']:.2f}" if not r.get("capped") else f"{per * r['full_checks'] / 1000:.0f} (extrapolated)"
        lines.append(
            f"| {r['engine']} | {r['placement']} | {r['k']} | {r['s']} | {r.get('full_checks', r['checks']):,} | "
            f"{search} | {per:.2f} | {r['prepare']:.1f} | {r['fetch']:.2f} | {r['class_table_bytes']:,} | {moved} | "
            f"{' '.join(map(str, r['node'] or []))} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.warehouses", description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=40)
    parser.add_argument("--plain", action="store_true", help="the plain concatenation (ARX's experiment 3)")
    parser.add_argument("--k", type=int, nargs="+", default=[5])
    parser.add_argument("--limits", type=float, nargs="+", default=[0.0, 0.02])
    parser.add_argument("--engines", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    parser.add_argument("--checks", nargs="+", default=["local", "sql"], choices=["auto", "sql", "local"])
    parser.add_argument("--repeat", type=int, default=3, help="searches per configuration (the median is shown)")
    parser.add_argument("--sql-repeat", type=int, default=1, help="the same for SQL placement on PostgreSQL and Spark")
    parser.add_argument("--max-sql-checks", type=int, help="stop a SQL-placement search there and extrapolate")
    parser.add_argument("--url", help="PostgreSQL server (default: PG* variables, else a throwaway cluster)")
    parser.add_argument("--master", help="Spark master URL (default local[2])")
    parser.add_argument("--results", default=str(RESULTS / "warehouses.json"), help="where to write the JSON results")
    args = parser.parse_args()
    configs = [(k, s) for k in args.k for s in args.limits]
    options, server = (
        {
            "url": args.url,
            "master": args.master,
            "plain": args.plain,
            "repeat": args.repeat,
            "sql_repeat": args.sql_repeat,
            "max_sql_checks": args.max_sql_checks,
        },
        None,
    )
    before = uptime()
    print("load before:", before, file=sys.stderr)
    if "postgres" in args.engines:
        if args.url is None and not os.environ.get("PGHOST"):
            server = PgServer().start()
            options["url"] = server.url
        options["load_seconds"] = load_postgres(options["url"] or "", args.times, args.plain)
        print(f"loaded ADULT x{args.times} into PostgreSQL in {options['load_seconds']:.1f} s", file=sys.stderr)
    results = []
    try:
        for name in args.engines:
            for placement in args.checks if name != "memory" else ["local"]:
                for row in RUNNERS[name](args.times, configs, {**options, "checks": placement}):
                    results.append({"engine": name, "times": args.times, "plain": args.plain, **row})
                    print(
                        f"{name} ({row['placement']}) k={row['k']} s={row['s']}: {row['seconds']:.2f} s, "
                        f"{row['checks']} checks, prepare {row['prepare']:.1f} s, fetch {row['fetch']:.2f} s, "
                        f"{row['class_table_bytes']:,} class table bytes",
                        file=sys.stderr,
                        flush=True,
                    )
    finally:
        if server is not None:
            server.stop()
    after = uptime()
    complete = {(r["k"], r["s"]): r for r in results if not r.get("capped")}
    for r in results:  # every engine and placement finds the same optimum; a capped search none
        if r.get("capped"):
            r["full_checks"] = complete[r["k"], r["s"]]["checks"]
            continue
        reference = complete[r["k"], r["s"]]
        assert (reference["node"], reference["suppressed"]) == (r["node"], r["suppressed"]), r
    write_json(
        args.results,
        {"results": results, "load_seconds": options.get("load_seconds"), "uptime": [before, after]},
        indent=2,
    )
    print("load before:", before)
    print("load after:", after)
    print(table(results))


if __name__ == "__main__":
    main()
