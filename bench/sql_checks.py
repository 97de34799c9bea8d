"""Checks in SQL (``[engine] checks = "sql"``) on DuckDB: the lean check and the batches.

1. Flash on ADULT (9 QIs, discernibility), k in {2, 5}, s in {0, 0.02, 0.1}: milliseconds per
   check (search seconds / checks) and inside the engine (``Checker.seconds`` / checks), with
   the lean check of a size-only job as DuckDB runs it (the node's class sizes, histogram and
   verdicts in numpy: ``compiler.class_sizes_query``) and, in the same run on the same
   session, with the class-size histogram made in SQL (``compiler.size_histogram_query``) and
   with the seven filtered aggregates that came before it (``compiler.lean_stats_query``):
   medians of ``--repeat`` searches, alternated.
2. The batch ratio: exhaustive search (every node, announced before any verdict) with
   ``class_stats_many`` (``BATCH_NODES`` nodes a query) and with one query per node,
   alternated, time per node and the ratio (ADULT with 6 QIs, 720 nodes; ``--full``: 9 QIs,
   12,960 nodes). The two searches must agree (optimum, checks, trace). ``--engine postgres``
   or ``spark``: the same on that engine (PostgreSQL: a throwaway cluster, ``datasets.PgServer``).
3. ``--floor``: where a batch's time per node goes, outside the search: one grouped
   statement per node, the batch as one UNION ALL, that UNION ALL over a 10-row copy of the
   wide table (a part's cost before it reads a row), and the batch split over two
   connections at once (``floor``).

The machine's load (``uptime``) is printed before and after; CPU seconds of the process are
reported beside the wall time (on a shared machine they move less with the load).

    python -m bench.sql_checks [--repeat 3] [--full] [--skip-flash] [--floor] [--engine duckdb]
        [--grid 5:0.02,2:0]

Writes bench/results/sql_checks.json.
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import os
import random
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from bench.common import RESULTS, uptime, write_json
from bench.datasets import ADULT_CSV, ADULT_QIS, ADULT_SUBSET, PgServer, dataset_job, load_csv
from sqlanon import Source
from sqlanon import sql as c
from sqlanon.checks.checker import BATCH_NODES
from sqlanon.core.needs import Need
from sqlanon.engines.duckdb.engine import DuckDBEngine
from sqlanon.engines.sql.node_queries import NodeQueries
from sqlanon.engines.sql.runner import SqlRunner
from sqlanon.session import Session

GRID = [(k, s) for k in (2, 5) for s in (0.0, 0.02, 0.1)]


class Patched:
    """Within the block, the SQL runner checks a size-only job with ``lean_stats_query`` (the
    seven aggregates, as before the histogram), with the size histogram and verdicts made in
    SQL (``histogram``: as before DuckDB fetched the class sizes), or answers no batch (one
    query per node)."""

    def __init__(self, seven: bool = False, single: bool = False, histogram: bool = False):
        self.seven, self.single, self.histogram = seven, single, histogram

    def __enter__(self):
        self.saved = NodeQueries.check, SqlRunner.class_stats_many, DuckDBEngine.sizes_in_process
        original = NodeQueries.check
        if self.histogram or self.seven:
            DuckDBEngine.sizes_in_process = False

        def seven(queries, node, keep, needs, source, tag=None):
            shape, query, sums = original(queries, node, keep, needs, source)
            if shape != "sizes":
                return shape, query, sums
            uniques = Need.UNIQUES in needs
            return (
                "lean",
                queries.node_query(
                    ("seven", uniques, getattr(keep, "signature", "")),
                    node,
                    lambda n, lookup: c.lean_stats_query(n, keep(c.col("n")), False, uniques),
                    source,
                ),
                sums,
            )

        if self.seven:
            NodeQueries.check = seven
        if self.single:
            SqlRunner.class_stats_many = lambda *args: None
        return self

    def __exit__(self, *exc):
        NodeQueries.check, SqlRunner.class_stats_many, DuckDBEngine.sizes_in_process = self.saved


def timed(session: Session, algorithm: str, **overrides):
    wall, cpu = time.perf_counter(), time.process_time()
    outcome, checker = session.search(algorithm, **overrides)
    return outcome, checker, time.perf_counter() - wall, time.process_time() - cpu


def flash(repeat: int, grid) -> list[dict]:
    rows = []
    with Session(dataset_job("adult", ADULT_QIS, engine="duckdb", checks="sql")) as session:
        assert session.placement == "sql"
        for k, s in grid:
            runs = {"class sizes": [], "histogram": [], "seven aggregates": []}
            for _ in range(repeat):
                for name in runs:
                    with Patched(seven=name == "seven aggregates", histogram=name == "histogram"):
                        outcome, checker, wall, cpu = timed(session, "flash", k=k, suppression_limit=s)
                    runs[name].append((wall, cpu, checker.seconds, checker.checks, outcome.optimum.node))
            assert len({r[4] for rs in runs.values() for r in rs}) == 1  # both find the same optimum
            row = {"k": k, "s": s, "checks": runs["class sizes"][0][3]}
            for name, found in runs.items():
                n = found[0][3]
                row[name] = {
                    "ms_per_check": round(1e3 * statistics.median(r[0] for r in found) / n, 3),
                    "cpu_ms_per_check": round(1e3 * statistics.median(r[1] for r in found) / n, 3),
                    "engine_ms_per_check": round(1e3 * statistics.median(r[2] for r in found) / n, 3),
                }
            rows.append(row)
            print(row, flush=True)
    return rows


def batches(repeat: int, full: bool, engine: str = "duckdb", url: str | None = None) -> dict:
    qis = ADULT_QIS if full else ADULT_SUBSET
    job = dataset_job("adult", qis, engine=engine, checks="sql")
    if engine == "postgres":  # ADULT as a table of the server
        job = replace(
            job,
            input=Source(table=load_csv(url, "public.adult", ADULT_CSV, delimiter=";")),
            engine_settings={**job.engine_settings, "url": url},
        )
    with Session(job) as session:
        runs = {"batched": [], "single": []}
        for _ in range(repeat):
            for name in runs:
                queries = session.engine.queries
                with Patched(single=name == "single"):
                    outcome, checker, wall, cpu = timed(session, "exhaustive", k=5, suppression_limit=0.02)
                runs[name].append(
                    (
                        wall,
                        cpu,
                        checker.checks,
                        session.engine.queries - queries,
                        (outcome.optimum.node, [(t["checks"], t["loss"]) for t in outcome.trace]),
                    )
                )
        assert len({repr(r[4]) for rs in runs.values() for r in rs}) == 1  # same optimum and trace
        nodes = runs["batched"][0][2]
        result = {"engine": engine, "qis": len(qis), "nodes": nodes, "batch_nodes": BATCH_NODES}
        for name, found in runs.items():
            result[name] = {
                "ms_per_node": round(1e3 * statistics.median(r[0] for r in found) / nodes, 3),
                "cpu_ms_per_node": round(1e3 * statistics.median(r[1] for r in found) / nodes, 3),
                "queries": found[0][3],
            }
        result["ratio"] = round(result["batched"]["ms_per_node"] / result["single"]["ms_per_node"], 2)
        result["cpu_ratio"] = round(result["batched"]["cpu_ms_per_node"] / result["single"]["cpu_ms_per_node"], 2)
        print(result, flush=True)
        return result


def floor(repeat: int, full: bool) -> dict:
    """Where a batch's time per node goes on DuckDB, in ms per node (lean settings: optimizer
    off, one thread; nodes in batches of ``BATCH_NODES`` as the lattice lists them, 20
    batches): one grouped statement per node; the batch as one UNION ALL; the same UNION ALL
    over a 10-row copy of the wide table (what a part costs before it reads a row: binding,
    planning, a hash table); the batch split over two connections at once. Their quotients
    bound what a batch can gain over single checks here."""
    qis = ADULT_QIS if full else ADULT_SUBSET
    with Session(dataset_job("adult", qis, engine="duckdb", checks="sql")) as session:
        session.search("flash", k=5, suppression_limit=0.02)  # builds the wide table
        engine = session.engine
        con = engine.con
        con.execute("SET enable_optimizer = false").fetchall()
        con.execute("SET threads = 1").fetchall()
        con.execute("CREATE TEMP TABLE sqlanon_tiny AS SELECT * FROM sqlanon_wide LIMIT 10").fetchall()
        second = con.cursor()
        wide = con.sql("SELECT * FROM sqlanon_wide").to_arrow_table()  # noqa: F841 (DuckDB reads it by name)
        second.execute("CREATE TEMP TABLE sqlanon_wide AS SELECT * FROM wide").fetchall()
        alike = [[len(level) == 1 for level in h.labels] for h in session.hierarchies]

        def part(tag: int, node, table: str = "sqlanon_wide") -> str:
            keys = [f'"c"."q{j}_{level}"' for j, level in enumerate(node) if not alike[j][level]]
            return f'SELECT {tag} AS "t", SUM("c"."n") AS "n" FROM "{table}" AS "c"' + (
                f" GROUP BY {', '.join(keys)}" if keys else ""
            )

        nodes = list(session.lattice.nodes())
        random.seed(0)
        batches = [nodes[i : i + BATCH_NODES] for i in random.sample(range(len(nodes) - BATCH_NODES), 20)]
        pool = ThreadPoolExecutor(1)
        times: dict[str, list[float]] = {
            "one statement per node": [],
            "one UNION ALL": [],
            "one UNION ALL over 10 rows": [],
            "two connections": [],
        }
        for _ in range(repeat):
            for batch in batches:
                half = len(batch) // 2
                clock = time.perf_counter()
                for i, node in enumerate(batch):
                    con.execute(part(i, node)).fetchnumpy()
                times["one statement per node"].append((time.perf_counter() - clock) / len(batch))
                for name, table in (("one UNION ALL", "sqlanon_wide"), ("one UNION ALL over 10 rows", "sqlanon_tiny")):
                    sql = " UNION ALL ".join(part(i, node, table) for i, node in enumerate(batch))
                    clock = time.perf_counter()
                    con.execute(sql).fetchnumpy()
                    times[name].append((time.perf_counter() - clock) / len(batch))
                mine = " UNION ALL ".join(part(i, node) for i, node in enumerate(batch[:half]))
                theirs = " UNION ALL ".join(part(i, node) for i, node in enumerate(batch[half:]))
                clock = time.perf_counter()
                future = pool.submit(lambda: second.execute(theirs).fetchnumpy())
                con.execute(mine).fetchnumpy()
                future.result()
                times["two connections"].append((time.perf_counter() - clock) / len(batch))
        pool.shutdown()
        second.close()
        result = {"qis": len(qis), **{name: round(1e3 * statistics.median(found), 3) for name, found in times.items()}}
        print(result, flush=True)
        return result


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.sql_checks", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="the batch ratio on ADULT's 9 QIs (12,960 nodes)")
    parser.add_argument("--skip-flash", action="store_true")
    parser.add_argument("--floor", action="store_true", help="also where a batch's time per node goes (see floor())")
    parser.add_argument(
        "--engine",
        default="duckdb",
        choices=["duckdb", "postgres", "spark"],
        help="the batch ratio on this engine (PostgreSQL: a throwaway cluster)",
    )
    parser.add_argument("--grid", help="k:s pairs, comma-separated (default: k in {2, 5} x s in {0, 0.02, 0.1})")
    args = parser.parse_args()
    before = uptime()
    print("load before:", before, flush=True)
    grid = GRID if not args.grid else [(int(k), float(s)) for k, s in (p.split(":") for p in args.grid.split(","))]
    rows = [] if args.skip_flash else flash(args.repeat, grid)
    server = None
    if args.engine == "postgres":
        server = PgServer().start()
    try:
        batch = batches(args.repeat, args.full, args.engine, server.url if server else None)
    finally:
        if server is not None:
            server.stop()
    parts = floor(args.repeat, args.full) if args.floor else None
    after = uptime()
    print("load after:", after)
    if rows:
        print(
            "| k | s | checks | class sizes: ms/check | CPU | in engine | histogram in SQL: ms/check | CPU | in engine "
            "| seven aggregates: ms/check | CPU | in engine |\n|" + "---|" * 12
        )
        for r in rows:
            cells = [
                f"{r[name]['ms_per_check']} | {r[name]['cpu_ms_per_check']} | {r[name]['engine_ms_per_check']}"
                for name in ("class sizes", "histogram", "seven aggregates")
            ]
            print(f"| {r['k']} | {r['s']} | {r['checks']} | " + " | ".join(cells) + " |")
    b, one = batch["batched"], batch["single"]
    print(
        f"\n{batch['engine']}: exhaustive, ADULT {batch['qis']} QIs, {batch['nodes']} nodes, k = 5, s = 0.02: "
        f"batched {b['ms_per_node']} ms/node ({b['queries']} queries), single {one['ms_per_node']} ms/node "
        f"({one['queries']} queries): ratio {batch['ratio']} (CPU {batch['cpu_ratio']})"
    )
    write_json(
        RESULTS / "sql_checks.json",
        {"load_before": before, "load_after": after, "flash": rows, "batch": batch, "floor": parts},
        default=str,
    )


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    main()
