"""The genetic searches against ARX's on ADULT (issue 19 item 3).

ADULT, 9 QIs, k-anonymity with k in {2, 3, 5, 10, 20, 50} x suppression limit s in
{0, 0.02, 0.04, 0.1, 1} x ARX's six metrics (discernibility, aecs, loss, height, precision,
entropy): 180 configurations, each heuristic with a budget of 1,000 checks. For each
configuration and tool it records the loss found; a tool *reaches the optimum* when its loss
equals the true optimum's within 1e-9 relative (the comparison the ARX harness makes). The
optimum is sqlanon's Flash, and it must equal ARX's Flash (ARX's OPTIMAL) in every
configuration: the script says so or lists the disagreements.

Tools: ARX 3.9.2's BEST_EFFORT_GENETIC (deterministic: ARX's fixed seed) and BEST_EFFORT_BOTTOM_UP
(Lightning), both with setHeuristicSearchStepLimit(budget) and no time limit, through our driver
bench/ArxHeuristicGrid.java (ARX's public API only; compiled here with javac against the ARX
build's classpath, $ARX_BUILD_DIR, default /tmp/arx-build: see ../shared/arx/README.md; without
it the ARX columns are skipped with a message); sqlanon (engine = memory) genetic as KGen
published it (``variant = "kgen"``), the improved genetic search (``variant = "hybrid"``), both
seeded, and Lightning, each with ``step_limit = budget``.

    python -m bench.genetic_arx [--budget 1000] [--seeds 2016 ...] [--json bench/results/genetic_arx.json]
                                [--skip-arx] [--ks 2 5] [--limits 0 0.1] [--metrics loss aecs]

Results accumulate in the JSON file (one entry per configuration and tool, re-used when the
file already holds it: ``--fresh`` recomputes), so the sqlanon columns can be re-run alone.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import RESULTS, write_json
from bench.datasets import ADULT_CSV, adult_hierarchy, columns, dataset_job
from sqlanon.core.genetic import GeneticParams
from sqlanon.session import ALL_NEEDS, Session

HERE = Path(__file__).resolve().parent

KS = (2, 3, 5, 10, 20, 50)
LIMITS = (0.0, 0.02, 0.04, 0.1, 1.0)
#: sqlanon's metric names -> ARX's (ArxHeuristicGrid.metric)
METRICS = {
    "discernibility": "discernability",
    "aecs": "aecs",
    "loss": "loss",
    "height": "height",
    "precision": "precision",
    "entropy": "entropy",
}
ARX_TOOLS = ("arx-flash", "arx-genetic", "arx-lightning")
REL_TOL = 1e-9
BUILD = Path(os.environ.get("ARX_BUILD_DIR", Path(tempfile.gettempdir()) / "arx-build"))


def key(k: int, s: float, metric: str) -> str:
    return f"k={k} s={s:g} {metric}"


def same(a, b) -> bool:
    return a is not None and b is not None and math.isclose(a, b, rel_tol=REL_TOL, abs_tol=1e-12)


# ----------------------------------------------------------------------------- ARX
def arx_driver() -> list[str] | None:
    """The java command line of the compiled driver, or None (with a message) without ARX's build."""
    classpath = BUILD / "classpath.txt"
    if not classpath.exists() or shutil.which("javac") is None:
        print(
            f"ARX columns skipped: no ARX build at {BUILD} (classpath.txt) or no javac. "
            "Build it with `bash ../shared/arx/build.sh` (see ../shared/arx/README.md).",
            flush=True,
        )
        return None
    cp = classpath.read_text().strip()
    out = HERE / ".cache" / "arx-heuristic-grid"
    source = HERE / "ArxHeuristicGrid.java"
    target = out / "ArxHeuristicGrid.class"
    if not target.exists() or target.stat().st_mtime < source.stat().st_mtime:
        out.mkdir(parents=True, exist_ok=True)
        subprocess.run(["javac", "-nowarn", "-cp", cp, "-d", str(out), str(source)], check=True)
    qis = columns("adult")
    args = [f"data={ADULT_CSV}", f"qis={','.join(qis)}"]
    args += [f"hierarchy.{q}={adult_hierarchy(q)}" for q in qis]
    return ["java", "-Xmx2g", "-cp", f"{out}{os.pathsep}{cp}", "ArxHeuristicGrid", *args]


def run_arx(configs, budget: int, results: dict, save) -> None:
    command = arx_driver()
    if command is None:
        return
    todo = [(c, t) for c in configs for t in ARX_TOOLS if t not in results.get(key(*c), {})]
    if not todo:
        return
    with subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1) as java:
        ready = java.stdout.readline().strip()
        print(f"ARX driver: {ready}", flush=True)
        for (k, s, metric), tool in todo:
            java.stdin.write(f"{tool.removeprefix('arx-')} {k} {s!r} {METRICS[metric]} {budget}\n")
            java.stdin.flush()
            answer = json.loads(java.stdout.readline())
            if "error" in answer:
                raise SystemExit(f"ARX failed on {key(k, s, metric)} {tool}: {answer['error']}")
            entry = {
                "loss": float(answer["loss"]) if answer.get("found") else None,
                "node": answer.get("node"),
                "checks": answer["checks"],
                "seconds": answer["ms"] / 1000,
            }
            results.setdefault(key(k, s, metric), {})[tool] = entry
            print(
                f"  {key(k, s, metric):<28} {tool:<14} loss {entry['loss']!s:<22} checks {entry['checks']}", flush=True
            )
            save()
        java.stdin.write("quit\n")


# ----------------------------------------------------------------------------- sqlanon
def sqlanon_tools(seeds) -> dict:
    """tool name -> (algorithm, search options)."""
    tools = {"flash": ("flash", {}), "lightning": ("lightning", {})}
    for seed in seeds:
        tools[f"genetic-kgen-{seed}"] = ("genetic", {"seed": seed, "genetic": GeneticParams(variant="kgen")})
        tools[f"genetic-hybrid-{seed}"] = ("genetic", {"seed": seed, "genetic": GeneticParams(variant="hybrid")})
    return tools


def run_sqlanon(configs, budget: int, seeds, results: dict, save, only=None) -> None:
    tools = sqlanon_tools(seeds)
    if only:
        tools = {t: v for t, v in tools.items() if any(t.startswith(o) for o in only)}
    todo = [(c, t) for c in configs for t in tools if t not in results.get(key(*c), {})]
    if not todo:
        return
    with Session(dataset_job("adult", None, engine="memory"), needs=ALL_NEEDS) as session:
        for (k, s, metric), tool in todo:
            algorithm, options = tools[tool]
            if algorithm != "flash":
                options = {**options, "step_limit": budget}
            started = time.perf_counter()
            outcome, checker = session.search(algorithm, k=k, suppression_limit=s, metric=metric, **options)
            best = outcome.optimum
            entry = {
                "loss": None if best is None else best.loss,
                "node": None if best is None else list(best.node),
                "checks": checker.checks,
                "fallback_checks": outcome.counters.get("fallback_checks", 0),
                "seconds": time.perf_counter() - started,
            }
            results.setdefault(key(k, s, metric), {})[tool] = entry
            print(
                f"  {key(k, s, metric):<28} {tool:<20} loss {entry['loss']!s:<22} checks {entry['checks']}", flush=True
            )
            save()


# ----------------------------------------------------------------------------- tables
def table(configs, results: dict, seeds) -> str:
    """Per suppression band: configurations whose optimum each tool reaches."""
    problems = []
    columns_ = [
        "arx-genetic",
        *[f"genetic-kgen-{s}" for s in seeds],
        *[f"genetic-hybrid-{s}" for s in seeds],
        "lightning",
        "arx-lightning",
    ]
    counts = {s: {c: 0 for c in columns_} for s in LIMITS}
    present = {s: {c: 0 for c in columns_} for s in LIMITS}
    bands = {s: 0 for s in LIMITS}
    for k, s, metric in configs:
        row = results.get(key(k, s, metric), {})
        optimum = row.get("flash", {}).get("loss")
        if (
            "arx-flash" in row
            and not same(row["arx-flash"]["loss"], optimum)
            and not (row["arx-flash"]["loss"] is None and optimum is None)
        ):
            problems.append(f"{key(k, s, metric)}: ARX Flash {row['arx-flash']['loss']!r} != sqlanon Flash {optimum!r}")
        if "flash" not in row:
            continue
        bands[s] += 1
        for c in columns_:
            if c in row:
                present[s][c] += 1
                counts[s][c] += same(row[c]["loss"], optimum) or (optimum is None and row[c]["loss"] is None)
    names = {"arx-genetic": "ARX genetic", "lightning": "Lightning", "arx-lightning": "ARX Lightning"}
    head = [
        names.get(c, c.replace("genetic-kgen-", "KGen seed ").replace("genetic-hybrid-", "hybrid seed "))
        for c in columns_
    ]
    lines = ["| s | configs | " + " | ".join(head) + " |", "|---|---:|" + "---:|" * len(columns_)]
    total = {c: 0 for c in columns_}
    for s in LIMITS:
        if not bands[s]:
            continue
        cells = []
        for c in columns_:
            total[c] += counts[s][c]
            cells.append(
                str(counts[s][c]) if present[s][c] == bands[s] else "–" if not present[s][c] else f"{counts[s][c]}?"
            )
        lines.append(f"| {s:g} | {bands[s]} | " + " | ".join(cells) + " |")
    lines.append(f"| all | {sum(bands.values())} | " + " | ".join(str(total[c]) for c in columns_) + " |")
    text = "\n".join(lines)
    if any("arx-flash" in results.get(key(*c), {}) for c in configs):
        text += "\n\n" + (
            "ARX's Flash optimum equals sqlanon's in every configuration run by both."
            if not problems
            else "OPTIMA DISAGREE:\n  " + "\n  ".join(problems)
        )
    return text


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m bench.genetic_arx", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--budget", type=int, default=1000, help="checks per heuristic run (default 1000)")
    parser.add_argument("--seeds", type=int, nargs="+", default=[2016], help="seeds of sqlanon's genetic searches")
    parser.add_argument("--ks", type=int, nargs="+", default=list(KS))
    parser.add_argument("--limits", type=float, nargs="+", default=list(LIMITS))
    parser.add_argument("--metrics", nargs="+", default=list(METRICS), choices=list(METRICS))
    parser.add_argument("--json", default=str(RESULTS / "genetic_arx.json"))
    parser.add_argument("--skip-arx", action="store_true", help="sqlanon's columns only")
    parser.add_argument("--skip-sqlanon", action="store_true", help="ARX's columns only")
    parser.add_argument(
        "--only", nargs="+", help="sqlanon tools to run (name prefixes: flash lightning genetic-kgen genetic-hybrid)"
    )
    parser.add_argument("--fresh", action="store_true", help="recompute the tools run now instead of re-using the JSON")
    parser.add_argument("--table", action="store_true", help="only print the table of what the JSON holds")
    args = parser.parse_args(argv)
    configs = [(k, s, m) for s in args.limits for k in args.ks for m in args.metrics]
    path = Path(args.json)
    results = json.loads(path.read_text()) if path.exists() else {}
    if results.get("_budget", args.budget) != args.budget:
        raise SystemExit(f"{path} holds results for a budget of {results['_budget']} checks; use another --json")
    results["_budget"] = args.budget
    if args.fresh:
        for c in configs:
            row = results.get(key(*c), {})
            for tool in list(row):
                arx = tool.startswith("arx-")
                if (arx and not args.skip_arx) or (
                    not arx and not args.skip_sqlanon and (not args.only or any(tool.startswith(o) for o in args.only))
                ):
                    del row[tool]

    def save():
        write_json(path, results)

    print(f"load: {os.getloadavg()}", flush=True)
    if not args.table:
        if not args.skip_sqlanon:
            run_sqlanon(configs, args.budget, args.seeds, results, save, args.only)
        if not args.skip_arx:
            run_arx(configs, args.budget, results, save)
    print(f"load: {os.getloadavg()}", flush=True)
    print(f"\nConfigurations (of {len(configs)}) where each tool reaches the optimum, budget {args.budget} checks:\n")
    print(table(configs, results, args.seeds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
