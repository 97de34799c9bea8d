"""K-Optimize and hill climbing on ADULT coded as in Bayardo & Agrawal (ICDE 2005).

* ``adult_fine``: one value per age (160 alphabet values with the 9 QIs incl. salary-class;
  157 here, since 72 ages occur);
* ``adult_coarse``: age pre-generalized to the 5-year ranges of ADULT's age hierarchy (about 100).

DM runs use the 9 QIs; CM runs use the 8 others as QIs and salary-class as the label. For each
k in {1000, 500, 250, 100, 50, 25, 10, 5} and suppression limit 0, 100 rows and unlimited, a run
capped at ``--cap`` seconds (seeded with Flash's optimum mapped to cuts) gives the time to the
proven optimum (or "cap" and the best cost found), and Flash's optimum beside it (for CM: the
CM cost of Flash's DM optimum, an upper bound, since Flash has no CM metric here). Also: seeded
versus unseeded, and hill climbing against K-Optimize, best cost over time (PNG, the paper's
Figure 7b). With ``--pool`` each run is seeded with the cheapest of Flash's cuts and the best cuts
of every earlier run on the same coding and metric, each re-costed for this run's k and limit (a
cut set is an upper bound once costed for the setting; the paper's Figure 7b seeds the
100-suppression runs with the no-suppression optimum the same way). Run from the project root:

    python -m bench.koptimize [--cap 60] [--threads 1] [--k 1000 500 ...] [--limits 0 100 unlimited]
        [--metrics discernibility classification] [--datasets adult_coarse adult_fine]
        [--pool [--pool-from JSON ...]] [--seeding] [--climb SECONDS] [--plot bench/koptimize.png] [--json FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import time
from pathlib import Path

import pyarrow as pa

from bench.common import write_json
from bench.datasets import ADULT_CSV, adult_hierarchy, columns
from sqlanon import Attribute, Hierarchy, Job, Source
from sqlanon.core.options import KOptimizeOptions
from sqlanon.koptimize.runner import interval_model, search_intervals
from sqlanon.session import Session

LABEL = "salary-class"


def adult_job(coarse: bool, metric: str) -> Job:
    """ADULT in memory; with ``coarse`` each age is replaced by its 5-year range (level 1 of the
    age hierarchy) and the age hierarchy starts there."""
    names = columns("adult")
    with open(ADULT_CSV, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    hierarchies = {}
    for name in names:
        with open(adult_hierarchy(name), newline="", encoding="utf-8") as handle:
            hierarchies[name] = [r for r in csv.reader(handle, delimiter=";") if r]
    if coarse:
        level1 = {r[0]: r[1] for r in hierarchies["age"]}
        for row in rows:
            row["age"] = level1[row["age"]]
        hierarchies["age"] = list(dict.fromkeys(tuple(r[1:]) for r in hierarchies["age"]))
    qis = [n for n in names if metric == "discernibility" or n != LABEL]
    attributes = [Attribute(n, "quasi", Hierarchy.from_rows(n, hierarchies[n])) for n in qis]
    attributes += [Attribute(n, "sensitive") for n in names if n not in qis]
    table = pa.table({n: [r[n] for r in rows] for n in names})
    return Job(
        input=Source(arrow=table),
        attributes=attributes,
        algorithm="k-optimize",
        metric=metric,
        label=LABEL if metric == "classification" else None,
    )


def limit_value(text: str):
    return text if text == "unlimited" else int(text)


class FlashNodes:
    """Flash's DM optimum per (k, suppression fraction), computed once. The unlimited setting
    reuses the s = 0 node as its seed: Flash with every node anonymous checks most of the
    lattice (73 s on adult_fine), and any feasible cut set is a valid upper bound."""

    def __init__(self, session, model):
        self.session, self.model, self.memo = session, model, {}

    def seed(self, k: int, limit) -> tuple[list[int] | None, dict]:
        from sqlanon.koptimize.model import cuts_of_levels

        rows = self.session.rows
        fraction = 0.0 if limit == "unlimited" else min(1.0, limit / rows)
        if (k, fraction) not in self.memo:
            started = time.perf_counter()
            outcome, _ = self.session.search("flash", k=k, suppression_limit=fraction, metric="discernibility")
            node = outcome.optimum.node if outcome.optimum else None
            cuts = cuts_of_levels(self.model, self.session.hierarchies, node) if node else None
            self.memo[(k, fraction)] = (
                cuts,
                {"node": node, "seconds": round(time.perf_counter() - started, 3), "flash_s": fraction},
            )
        return self.memo[(k, fraction)]


def run_grid(args, rows_out: list) -> None:
    from sqlanon.koptimize.costs import INFEASIBLE, evaluate, make_cost
    from sqlanon.koptimize.search import KOptimize

    header = (
        f"{'data':<12} {'metric':<14} {'k':>5} {'supp':>9} {'alphabet':>8} {'proven':>6} {'time s':>8} "
        f"{'nodes':>8} {'cost':>12} {'best at s':>9} {'Flash cost':>12} {'Flash s':>8} {'cpu s':>8} {'load':>5}"
    )
    print(header)
    print("-" * len(header))
    for dataset in args.datasets:
        for metric in args.metrics:
            job = adult_job(dataset == "adult_coarse", metric)
            with Session(job) as session:
                model = interval_model(session)
                flash = FlashNodes(session, model)
                # (setting, cuts) of earlier runs, for --pool; also those of --pool-from's files
                pool: list[tuple[str, list[int]]] = [
                    (f"k={r['k']} s={r['suppression']} ({Path(name).name})", r["cuts"])
                    for name in args.pool_from
                    for r in json.loads(Path(name).read_text())["grid"]
                    if r["dataset"] == dataset and r["metric"] == metric and r.get("cuts") is not None
                ]
                for limit in map(limit_value, args.limits):
                    for k in args.k:
                        cost = make_cost(metric, model, k, session.rows if limit == "unlimited" else limit)
                        cuts, info = flash.seed(k, limit)
                        flash_cost = evaluate(cost, cuts)[0] if cuts is not None else None
                        seed, seed_cost, seed_from = (cuts, flash_cost, "flash") if args.flash else (None, None, None)
                        if args.pool:
                            for origin, earlier in pool:
                                value = evaluate(cost, earlier)[0]
                                if value < (INFEASIBLE if seed_cost is None else seed_cost):
                                    seed, seed_cost, seed_from = earlier, value, origin
                        load = os.getloadavg()[0]
                        cpu = time.process_time()
                        s = KOptimize(cost, time_limit=args.cap, upper_bound=seed, threads=args.threads).run()
                        cpu = time.process_time() - cpu
                        if s.cuts is not None:
                            pool.append((f"k={k} s={limit}", s.cuts))
                        found_at = next((h["seconds"] for h in s.history if h["cost"] == s.cost), None)
                        row = {
                            "dataset": dataset,
                            "metric": metric,
                            "k": k,
                            "suppression": limit,
                            "alphabet": len(model.alphabet),
                            "proven": s.proven,
                            "seconds": round(s.seconds, 3),
                            "nodes": s.counters["nodes"],
                            "cost": s.cost,
                            "found_at": found_at,
                            "cuts": None if s.cuts is None else [int(c) for c in s.cuts],
                            "flash_cost": flash_cost,
                            "flash_seconds": info["seconds"],
                            "flash_node": info["node"],
                            "seed_cost": seed_cost,
                            "seed_from": seed_from,
                            "cap": args.cap,
                            "cpu_seconds": round(cpu, 3),
                            "threads": args.threads,
                            "load_before": load,
                            "load_after": os.getloadavg()[0],
                        }
                        rows_out.append(row)
                        if args.json:  # after every run: a long grid that is stopped keeps what finished
                            write_json(args.json, {"grid": rows_out}, indent=2)
                        print(
                            f"{dataset:<12} {metric:<14} {k:>5} {limit:>9} {len(model.alphabet):>8} "
                            f"{'yes' if s.proven else 'cap':>6} {s.seconds:>8.2f} {row['nodes']:>8} {s.cost!s:>12} "
                            f"{found_at!s:>9} {flash_cost!s:>12} {info['seconds']!s:>8} {cpu:>8.1f} {load:>5.1f}",
                            flush=True,
                        )


def run_seeding(args, rows_out: list) -> None:
    """Seeded (Flash's optimum) against unseeded, DM, no suppression."""
    print("\nseeded vs unseeded (discernibility, suppression 0)")
    for dataset in args.datasets:
        job = adult_job(dataset == "adult_coarse", "discernibility")
        with Session(job) as session:
            model = interval_model(session)
            for k in args.k:
                line = {"dataset": dataset, "k": k}
                for bound in ("flash", "none"):
                    out = search_intervals(
                        session,
                        model=model,
                        k=k,
                        time_limit=args.cap,
                        koptimize=KOptimizeOptions(suppression_rows=0, upper_bound=bound),
                    )
                    s = out.solution
                    line[bound] = {
                        "proven": s.proven,
                        "seconds": round(s.seconds, 3),
                        "nodes": s.counters["nodes"],
                        "cost": s.cost,
                    }
                rows_out.append(line)
                f, n = line["flash"], line["none"]
                print(
                    f"{dataset:<12} k={k:>5}  seeded: {f['seconds']:>7.2f} s {f['nodes']:>7} nodes "
                    f"{'proven' if f['proven'] else 'cap'} {f['cost']}   unseeded: {n['seconds']:>7.2f} s "
                    f"{n['nodes']:>7} nodes {'proven' if n['proven'] else 'cap'} {n['cost']}",
                    flush=True,
                )


def run_climb(args) -> dict:
    """Best cost over time: hill climbing against K-Optimize (unseeded), adult_fine, DM."""
    k, limit = args.climb_k, limit_value(args.climb_limit)
    job = adult_job(False, "discernibility")
    curves = {}
    with Session(job) as session:
        model = interval_model(session)
        for name, extra in (("k-optimize", {}), ("hill-climb", {"algorithm": "hill-climb", "seed": 2005})):
            out = search_intervals(
                session,
                model=model,
                k=k,
                time_limit=args.climb,
                **extra,
                koptimize=KOptimizeOptions(suppression_rows=limit),
            )
            curves[name] = [(h["seconds"], h["cost"]) for h in out.solution.history]
            print(
                f"{name:<11} k={k} suppression={limit}: best {out.solution.cost} after "
                f"{curves[name][-1][0] if curves[name] else '-'} s (run {args.climb} s, proven {out.solution.proven})"
            )
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(7, 4))
        for name, points in curves.items():
            if points:
                xs = [max(p[0], 1e-3) for p in points] + [args.climb]
                ys = [p[1] for p in points] + [points[-1][1]]
                ax.step(xs, ys, where="post", label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("seconds")
        ax.set_ylabel("best DM cost found")
        ax.set_title(f"adult_fine, k = {k}, suppression {limit}: best cost over time")
        ax.legend()
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"wrote {args.plot}")
    return curves


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.koptimize", description=__doc__.splitlines()[0])
    parser.add_argument("--cap", type=float, default=60.0, help="seconds per run")
    parser.add_argument("--threads", type=int, default=1, help="threads for K-Optimize (search.koptimize.threads)")
    parser.add_argument("--k", type=int, nargs="+", default=[1000, 500, 250, 100, 50, 25, 10, 5])
    parser.add_argument("--limits", nargs="+", default=["0", "100", "unlimited"])
    parser.add_argument("--metrics", nargs="+", default=["discernibility", "classification"])
    parser.add_argument("--datasets", nargs="+", default=["adult_coarse", "adult_fine"])
    parser.add_argument("--no-flash", dest="flash", action="store_false", help="grid without the Flash seed")
    parser.add_argument(
        "--pool",
        action="store_true",
        help="seed each run with the cheapest of Flash's and earlier runs' cuts, re-costed",
    )
    parser.add_argument(
        "--pool-from",
        nargs="*",
        default=[],
        metavar="JSON",
        help="with --pool: also the cuts of the runs in these --json files",
    )
    parser.add_argument("--skip-grid", action="store_true")
    parser.add_argument("--seeding", action="store_true", help="also compare seeded and unseeded runs")
    parser.add_argument("--climb", type=float, default=0, help="seconds for the hill-climb comparison (0: skip)")
    parser.add_argument("--climb-k", type=int, default=10)
    parser.add_argument("--climb-limit", default="0")
    parser.add_argument("--plot", help="PNG of the best cost over time")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args()
    if args.json and any(Path(args.json).resolve() == Path(name).resolve() for name in args.pool_from):
        # the rows are written after every run: the seeds' file would be gone after the first
        parser.error(f"--json {args.json} is also a --pool-from file; write the rows to another file")
    started = time.perf_counter()
    grid, seeding, curves = [], [], {}
    if not args.skip_grid:
        run_grid(args, grid)
    if args.seeding:
        run_seeding(args, seeding)
    if args.climb:
        curves = run_climb(args)
    print(f"total {time.perf_counter() - started:.0f} s")
    if args.json:
        write_json(args.json, {"grid": grid, "seeding": seeding, "climb": curves}, indent=2)


if __name__ == "__main__":
    main()
