"""Milliseconds per check of the histogram models in the kernel: ARX's experiment-2 jobs
(``bench.exp2``: ADULT, eight QIs, occupation sensitive, loss, Flash, s = 0.1) with hierarchical
and equal 0.2-closeness and recursive-(4,3)-diversity, each alone and with k = 5, on the
default engine (DuckDB, ``checks = "auto"``: local). Per job one session, one warm-up search,
then ``--repeat`` searches: checks, wall and process-CPU milliseconds per check (medians), the
optimum. CPU time is the figure to compare on a shared machine; to compare two versions, run
this script from each checkout one after the other. ``uptime`` before and after.

    python -m bench.histogram_checks [--repeat 3] [--only thier]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import sqlanon
from bench import exp2
from bench.common import uptime
from sqlanon.session import Session

JOBS = ["thier:0.2", "tequal:0.2", "recursive:4:3"]


def measure(key: str, k: int | None, repeat: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = exp2.job_file(Path(tmp), "job", exp2.MODELS[key], k, 0.1, "duckdb", "auto")
        with Session(sqlanon.load_job(str(path))) as session:
            session.search()
            runs = []
            for _ in range(repeat):
                wall, cpu = time.perf_counter(), time.process_time()
                outcome, checker = session.search()
                runs.append((time.perf_counter() - wall, time.process_time() - cpu, checker.checks))
            checks = runs[0][2]
            return {
                "model": key,
                "k": k,
                "checks": checks,
                "placement": session.placement,
                "wall_ms": round(1e3 * statistics.median(r[0] for r in runs) / checks, 3),
                "cpu_ms": round(1e3 * statistics.median(r[1] for r in runs) / checks, 3),
                "optimum": outcome.optimum.node if outcome.optimum else None,
            }


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.histogram_checks", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", help="run only the models whose key starts with this")
    args = parser.parse_args()
    print("load before:", uptime(), flush=True)
    for key in JOBS:
        if args.only and not key.startswith(args.only):
            continue
        for k in (None, 5):
            print(measure(key, k, args.repeat), flush=True)
    print("load after:", uptime())


if __name__ == "__main__":
    main()
