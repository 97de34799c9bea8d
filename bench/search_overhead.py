"""The search's overhead beside its checks: Flash on ADULT (9 QIs, discernibility, DuckDB with
local checks), k in {2, 5}, s in {0, 0.02, 0.1}.

Per configuration: checks, search seconds (wall, around ``Session.search``), the seconds inside
the engine (its ``class_stats`` and snapshot calls — ``checked`` before the engine contract,
``keep_snapshot``/``drop_snapshot`` since — timed here the same way for any version of the code), and the overhead outside them, per check and as a share of the search. "first" is
the first search of a fresh session (it numbers the lattice), "warm" the median of the next
``--repeat``.

    python -m bench.search_overhead [--repeat 3]
    python -m bench.search_overhead --against ../main   # the same, alternating with another checkout

With ``--against``, each round runs this checkout and the other one in turn, in fresh
processes, and the table gives both side by side (medians over ``--rounds``). A checkout's
process starts in its folder, so it imports that checkout's sqlanon; the job comes from this
checkout's ``bench.datasets`` (PYTHONPATH) unless the other checkout has a ``bench`` package of
its own. The machine's load (``uptime``) is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from bench.common import RESULTS, ROOT, uptime, write_json
from bench.datasets import ADULT_QIS, dataset_job

GRID = [(k, s) for k in (2, 5) for s in (0.0, 0.02, 0.1)]


def worker(root: Path, repeat: int) -> None:
    """Measure with the sqlanon of ``root`` (``run`` starts this process there); print one JSON
    line per configuration."""
    import sqlanon
    from sqlanon.session import Session

    if Path(sqlanon.__file__).resolve().parents[1] != root:
        raise SystemExit(f"the worker for {root} imported {sqlanon.__file__}")
    for k, s in GRID:
        with Session(dataset_job("adult", ADULT_QIS, engine="duckdb", checks="local")) as session:
            inside = [0.0]
            # the checks' runner where ``root``'s version has one, else its engine; whichever of
            # these calls it has (the contract renamed the snapshot calls)
            engine = session.runner if hasattr(type(session), "runner") else session.engine
            for name in (n for n in ("class_stats", "checked", "keep_snapshot", "drop_snapshot") if hasattr(engine, n)):
                call = getattr(engine, name)

                def timed(*args, _call=call, **kwargs):
                    started = time.perf_counter()
                    try:
                        return _call(*args, **kwargs)
                    finally:
                        inside[0] += time.perf_counter() - started

                setattr(engine, name, timed)
            runs = []
            for _ in range(1 + repeat):
                inside[0] = 0.0
                started = time.perf_counter()
                outcome, checker = session.search("flash", k=k, suppression_limit=s)
                runs.append((time.perf_counter() - started, inside[0], checker.checks))
        print(json.dumps({"k": k, "s": s, "runs": runs}), flush=True)


def summary(rows: list[dict]) -> dict:
    """Per configuration: the first search and the median warm one."""
    out = {}
    for row in rows:
        first, warm = row["runs"][0], row["runs"][1:]
        checks = first[2]
        figures = {}
        for label, runs in (("first", [first]), ("warm", warm)):
            search = statistics.median(r[0] for r in runs)
            overhead = statistics.median(r[0] - r[1] for r in runs)
            figures[label] = {
                "search_s": search,
                "check_ms": 1e3 * statistics.median(r[1] for r in runs) / checks,
                "overhead_ms": 1e3 * overhead / checks,
                "share": overhead / search,
            }
        out[(row["k"], row["s"])] = {"checks": checks, **figures}
    return out


def run(root: Path, repeat: int) -> list[dict]:
    """The worker in a fresh process started in ``root``: the current folder is first on its path."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    done = subprocess.run(
        [sys.executable, "-m", "bench.search_overhead", "--worker", str(root), "--repeat", str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": path},
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def merge(rounds: list[list[dict]]) -> list[dict]:
    """One row per configuration, the runs of every round together (medians then span rounds)."""
    merged = {}
    for rows in rounds:
        for row in rows:
            entry = merged.setdefault((row["k"], row["s"]), {"k": row["k"], "s": row["s"], "firsts": [], "warm": []})
            entry["firsts"].append(row["runs"][0])
            entry["warm"] += row["runs"][1:]
    # the median first search of the rounds stands for "first"
    return [
        {"k": e["k"], "s": e["s"], "runs": [sorted(e["firsts"])[len(e["firsts"]) // 2], *e["warm"]]}
        for e in merged.values()
    ]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.search_overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="warm searches per configuration")
    parser.add_argument("--rounds", type=int, default=3, help="with --against: fresh processes per checkout")
    parser.add_argument("--against", type=Path, help="another checkout to measure alternately (e.g. main)")
    parser.add_argument("--worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        return worker(args.worker.resolve(), args.repeat)
    print("load before:", uptime(), flush=True)
    trees = {"this": ROOT} | ({"against": args.against.resolve()} if args.against else {})
    rounds = {name: [] for name in trees}
    for _ in range(args.rounds if args.against else 1):
        for name, root in trees.items():
            rounds[name].append(run(root, args.repeat))
    print("load after:", uptime())
    results = {name: summary(merge(r)) for name, r in rounds.items()}
    header = "| k | s | checks | " + " | ".join(
        f"{name} {what}"
        for name in trees
        for what in ("search s (warm)", "overhead ms/check first / warm", "share warm")
    )
    print(header + " |\n|" + "---|" * (3 + 3 * len(trees)))
    for k, s in GRID:
        cells = []
        for name in trees:
            r = results[name][(k, s)]
            cells += [
                f"{r['warm']['search_s']:.3f}",
                f"{r['first']['overhead_ms']:.3f} / {r['warm']['overhead_ms']:.3f}",
                f"{r['warm']['share']:.0%}",
            ]
        print(f"| {k} | {s} | {results['this'][(k, s)]['checks']} | " + " | ".join(cells) + " |")
    write_json(
        RESULTS / "search_overhead.json",
        {name: {f"{k},{s}": v for (k, s), v in result.items()} for name, result in results.items()},
    )


if __name__ == "__main__":
    main()
