"""Spark beside DuckDB on the same Parquet: Flash on ADULT x40 (1.2 M rows, 9 QIs,
discernibility), k = 5, s in {0, 0.02}.

Per engine: preparation (read, encode, class tables), then per configuration the search time,
the checks, and the bytes of result rows that reach Python (pickled size of every fetched
row: what the engine moves to the driver; the rest stays in the database or on the executors).
Each engine runs in its own subprocess (a fresh JVM for Spark, so its start is counted in the
preparation once). Run from the project root:

    python bench/spark.py [--times 40] [--k 5] [--limits 0 0.02] [--master local[2]]

Writes bench/results/spark.json; bench/README.md ("Spark") holds the table.
"""

from __future__ import annotations

import argparse
import json
import pickle
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
RESULTS = HERE / "results" / "spark.json"


def run_engine(spec: dict) -> dict:
    """In this process: open the engine on the Parquet file, count fetched bytes, search."""
    from replicate import replicated_job

    from sqlanon.session import Session

    options = {"master": spec["master"]} if spec["engine"] == "spark" else {}
    job = replicated_job(spec["times"], metric="discernibility", engine=spec["engine"], **options)
    started = time.perf_counter()
    moved = [0]
    with Session(job) as session:
        engine = session.engine
        fetch = engine._query  # every SQL engine fetches through this hook (engines/sql.py)

        def counted(sql, params):
            names, rows = fetch(sql, params)
            moved[0] += len(pickle.dumps(rows))
            return names, rows

        engine._query = counted
        prepare = time.perf_counter() - started
        rows = []
        for limit in spec["limits"]:
            before, queries = moved[0], engine.queries
            t = time.perf_counter()
            outcome, checker = session.search("flash", k=spec["k"], suppression_limit=limit)
            seconds = time.perf_counter() - t
            best = outcome.optimum
            rows.append({"k": spec["k"], "s": limit, "seconds": seconds, "checks": checker.checks,
                         "queries": engine.queries - queries, "bytes_to_python": moved[0] - before,
                         "node": list(best.node) if best else None, "loss": best.loss if best else None,
                         "suppressed": best.stats.suppressed if best else None})
        return {"engine": spec["engine"], "version": engine.version, "rows": session.prepared.rows,
                "base_classes": session.prepared.base_classes, "prepare_seconds": prepare, "runs": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, default=40)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--limits", type=float, nargs="+", default=[0.0, 0.02])
    parser.add_argument("--master", default="local[2]")
    parser.add_argument("--engines", nargs="+", default=["duckdb", "spark"])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_engine(json.loads(args.child))))
        return
    results = []
    for engine in args.engines:
        spec = {"engine": engine, "times": args.times, "k": args.k, "limits": args.limits, "master": args.master}
        done = subprocess.run([sys.executable, __file__, "--child", json.dumps(spec)], check=True,
                              capture_output=True, text=True)
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
        print(json.dumps(results[-1]), flush=True)
    reference = {(r["k"], r["s"]): r for r in results[0]["runs"]}
    for result in results[1:]:
        for run in result["runs"]:
            same = reference[run["k"], run["s"]]
            assert (run["node"], run["suppressed"], run["checks"]) == (same["node"], same["suppressed"], same["checks"]), run
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=1) + "\n")
    print(f"{'engine':8} {'k':>2} {'s':>5} {'prepare s':>10} {'search s':>9} {'checks':>7} {'ms/check':>9} {'bytes to Python':>16}")
    for result in results:
        for run in result["runs"]:
            print(f"{result['engine']:8} {run['k']:>2} {run['s']:>5} {result['prepare_seconds']:>10.1f} {run['seconds']:>9.1f} "
                  f"{run['checks']:>7} {1000 * run['seconds'] / max(run['checks'], 1):>9.1f} {run['bytes_to_python']:>16,}")


if __name__ == "__main__":
    main()
