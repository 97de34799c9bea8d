"""Anonymizing where the data lives: Flash on ADULT xN (9 QIs, discernibility, k = 5,
s in {0, 0.02}) inside PostgreSQL, beside DuckDB reading the same rows from Parquet and the
in-memory engine.

Per engine and configuration: preparation (once), search time, checks, and the bytes the
search moved into Python: the length of the text of every value fetched (``bytes_fetched``,
``sqlanon/engines/sql.py``; a check fetches one row of figures). The in-memory engine holds
everything in Python, so it has no such figure.

PostgreSQL: ``--url`` (or the PG* variables) names a server; without either, a throwaway
cluster is started as the tests start it (``tests/pg.py``). The replicated ADULT
(``replicate.py``) is loaded into it once per run as text columns, in file order.

    python bench/warehouses.py [--times 40] [--limits 0 0.02] [--engines duckdb postgres memory spark]

Spark reads the Parquet file itself (``--master``, default local[2]).

Prints a table and writes bench/results/warehouses.json. An engine is one entry of RUNNERS: a
function (times, configurations, options) -> rows; add one to compare another warehouse.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

RESULTS = HERE / "results" / "warehouses.json"
TABLE = "public.adult_bench"


def search_all(job, configs) -> tuple[float, list[dict]]:
    """Open the job once, run Flash for each (k, s): the rows of the table."""
    from sqlanon.session import Session

    started = time.perf_counter()
    rows = []
    with Session(job) as session:
        prepare = time.perf_counter() - started
        engine = session.engine
        for k, limit in configs:
            fetched = getattr(engine, "bytes_fetched", None)
            t = time.perf_counter()
            outcome, checker = session.search("flash", k=k, suppression_limit=limit)
            seconds = time.perf_counter() - t
            best = outcome.optimum
            rows.append({
                "k": k, "s": limit, "seconds": seconds, "checks": checker.checks,
                "bytes": None if fetched is None else engine.bytes_fetched - fetched,
                "node": list(best.node) if best else None, "loss": best.loss if best else None,
                "suppressed": best.stats.suppressed if best else None,
                "base_classes": session.prepared.base_classes, "rows": session.prepared.rows,
            })
    for row in rows:
        row["prepare"] = prepare
    return prepare, rows


def run_duckdb(times: int, configs, options) -> list[dict]:
    from replicate import replicated_job

    return search_all(replicated_job(times, metric="discernibility"), configs)[1]


def run_memory(times: int, configs, options) -> list[dict]:
    from replicate import replicated_job

    return search_all(replicated_job(times, metric="discernibility", engine="memory"), configs)[1]


def run_postgres(times: int, configs, options) -> list[dict]:
    from replicate import replicated_job

    from sqlanon import Source

    job = replicated_job(times, metric="discernibility", engine="postgres")
    job.input = Source(table=TABLE)
    job.url = options["url"]
    return search_all(job, configs)[1]


def run_spark(times: int, configs, options) -> list[dict]:
    """Spark reading the same Parquet file itself (``options["master"]``, default local[2])."""
    from replicate import replicated_job

    return search_all(replicated_job(times, metric="discernibility", engine="spark", master=options.get("master")), configs)[1]


#: engine name -> runner(times, [(k, s)], options) -> rows; options["url"] is the PostgreSQL server,
#: options["master"] Spark's
RUNNERS = {"duckdb": run_duckdb, "postgres": run_postgres, "memory": run_memory, "spark": run_spark}


def load_postgres(url: str, times: int) -> float:
    """ADULT x times into TABLE (text columns, file order): seconds taken."""
    import duckdb
    from pg import load_csv
    from replicate import CACHE, replicated

    parquet = replicated(times)
    csv = CACHE / f"adult_x{times}.csv"
    if not csv.exists():
        duckdb.connect().execute(f"COPY (SELECT * FROM read_parquet('{parquet}')) TO '{csv}' (FORMAT csv, HEADER true)")
    started = time.perf_counter()
    load_csv(url, TABLE, csv)
    return time.perf_counter() - started


def table(results: list[dict]) -> str:
    lines = ["| engine | k | s | checks | search s | ms/check | prepare s | bytes to Python | optimum |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        moved = "all (in-process)" if r["bytes"] is None else f"{r['bytes']:,}"
        lines.append(f"| {r['engine']} | {r['k']} | {r['s']} | {r['checks']:,} | {r['seconds']:.1f} | "
                     f"{1000 * r['seconds'] / max(r['checks'], 1):.1f} | {r['prepare']:.1f} | {moved} | "
                     f"{' '.join(map(str, r['node'] or []))} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=40)
    parser.add_argument("--k", type=int, nargs="+", default=[5])
    parser.add_argument("--limits", type=float, nargs="+", default=[0.0, 0.02])
    parser.add_argument("--engines", nargs="+", default=list(RUNNERS), choices=list(RUNNERS))
    parser.add_argument("--url", help="PostgreSQL server (default: PG* variables, else a throwaway cluster)")
    parser.add_argument("--master", help="Spark master URL (default local[2])")
    parser.add_argument("--results", default=str(RESULTS), help="where to write the JSON results")
    args = parser.parse_args()
    configs = [(k, s) for k in args.k for s in args.limits]
    options, server = {"url": args.url, "master": args.master}, None
    if "postgres" in args.engines:
        if args.url is None and not os.environ.get("PGHOST"):
            from pg import Server, bindir

            server = Server(bindir()).start()
            options["url"] = server.url
        options["load_seconds"] = load_postgres(options["url"] or "", args.times)
        print(f"loaded ADULT x{args.times} into PostgreSQL in {options['load_seconds']:.1f} s", file=sys.stderr)
    results = []
    try:
        for name in args.engines:
            for row in RUNNERS[name](args.times, configs, options):
                results.append({"engine": name, "times": args.times, **row})
                print(f"{name} k={row['k']} s={row['s']}: {row['seconds']:.1f} s, {row['checks']} checks", file=sys.stderr)
    finally:
        if server is not None:
            server.stop()
    reference = {(r["k"], r["s"]): (r["node"], r["suppressed"]) for r in results if r["engine"] == args.engines[0]}
    for r in results:  # every engine finds the same optimum
        assert reference[r["k"], r["s"]] == (r["node"], r["suppressed"]), r
    Path(args.results).parent.mkdir(exist_ok=True)
    Path(args.results).write_text(json.dumps({"results": results, "load_seconds": options.get("load_seconds")}, indent=2) + "\n")
    print(table(results))


if __name__ == "__main__":
    main()
