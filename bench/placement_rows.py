"""What a check costs per base-class-table row, in SQL and in process: the figures behind
``checks = "auto"`` (``sqlanon/checks/placement.py``: ``SqlEngine.row_seconds``, ``KERNEL_ROW_SECONDS``).

On ADULT (9 QIs) and ADULT xN with ages moved per replica (``datasets.replicated``: more distinct
classes per copy), DuckDB prepares once per placement; then the same seeded sample of lattice
nodes is checked from the base class table (roll-up and history off, so every check reads the
whole table, as the model assumes), k = 5, s = 0.02, discernibility. Per size and placement:
the median seconds per check and that divided by the table's rows; then a least-squares line
``seconds = fixed + rows x per_row`` over the sizes for each placement, the decision the model
makes at each size and the one the measurement says. ``uptime`` before and after.

    python -m bench.placement_rows [--times 1 4 10 20 40] [--nodes 40] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from dataclasses import replace

from bench.common import uptime, write_json
from bench.datasets import ADULT_QIS, dataset_job, replicated
from sqlanon import Source
from sqlanon.checks.placement import KERNEL_ROW_SECONDS
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.engines.sql.engine import SqlEngine
from sqlanon.session import Session


def job_for(times: int, checks: str):
    job = dataset_job(
        "adult",
        ADULT_QIS,
        k=5,
        suppression_limit=0.02,
        checks=checks,
        snapshots=SnapshotSettings(rollup=False, history=False),
    )
    if times > 1:
        job = replace(job, input=Source(path=str(replicated(times))))
    return job


def measure(times: int, checks: str, nodes: int, repeat: int, seed: int = 16) -> dict:
    with Session(job_for(times, checks)) as session:
        assert session.placement == checks, session.placement_reason
        tops = [len(h.labels) - 1 for h in session.hierarchies]
        rng = random.Random(seed)
        sample = list(dict.fromkeys(tuple(rng.randint(0, t) for t in tops) for _ in range(nodes)))
        session.checker().check(tuple(tops))  # untimed: the kernel's first call, the first query
        per_node = []
        for node in sample:
            seconds = []
            for _ in range(repeat):
                checker = session.checker()  # a fresh one: the node is computed, not looked up
                started = time.perf_counter()
                checker.check(node)
                seconds.append(time.perf_counter() - started)
            per_node.append(statistics.median(seconds))
        rows = session.prepared.base_classes
        latency = session.engine.query_latency() if checks == "sql" else None
    check = statistics.mean(per_node)
    return {
        "times": times,
        "checks": checks,
        "rows": rows,
        "nodes": len(sample),
        "check_ms": round(check * 1e3, 4),
        "ns_per_row": round(check / rows * 1e9, 2),
        **({"latency_ms": round(latency * 1e3, 4)} if latency else {}),
    }


def fit(points: list[tuple[int, float]]) -> tuple[float, float]:
    """Least squares ``seconds = fixed + rows x per_row``."""
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return my - slope * mx, slope


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.placement_rows", description=__doc__.splitlines()[0])
    parser.add_argument("--times", type=int, nargs="+", default=[1, 4, 10, 20, 40])
    parser.add_argument("--nodes", type=int, default=40)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", help="write the rows here")
    args = parser.parse_args()
    print("load before:", uptime(), flush=True)
    rows = []
    for times in args.times:
        for checks in ("sql", "local"):  # alternated per size: both under the same load
            row = measure(times, checks, args.nodes, args.repeat)
            rows.append(row)
            print(json.dumps(row), flush=True)
    print("load after:", uptime())
    lines = {}
    for checks in ("sql", "local"):
        points = [(r["rows"], r["check_ms"] / 1e3) for r in rows if r["checks"] == checks]
        lines[checks] = fit(points) if len(points) > 1 else (0.0, points[0][1] / points[0][0])
        fixed, slope = lines[checks]
        print(f"{checks}: check = {fixed * 1e3:.3f} ms + rows x {slope * 1e9:.1f} ns")
    print(
        f"model: local rows x {KERNEL_ROW_SECONDS * 1e9:.0f} ns; sql latency + rows x {SqlEngine.row_seconds * 1e9:.0f} ns"
    )
    print("\n| rows | sql ms/check | local ms/check | sql ns/row | local ns/row | faster |\n|---|---|---|---|---|---|")
    for times in args.times:
        sql, local = (next(r for r in rows if r["times"] == times and r["checks"] == k) for k in ("sql", "local"))
        faster = "local" if local["check_ms"] <= sql["check_ms"] else "sql"
        print(
            f"| {sql['rows']:,} | {sql['check_ms']:.3f} | {local['check_ms']:.3f} | {sql['ns_per_row']:.1f} | "
            f"{local['ns_per_row']:.1f} | {faster} |"
        )
    if args.json:
        write_json(args.json, {"rows": rows, "lines": lines})


if __name__ == "__main__":
    main()
