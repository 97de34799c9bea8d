"""The Flash paper's comparison of optimal algorithms, reproduced (Kohlmayer et al. 2012,
Figure 16 layout): Flash, OLA and Incognito on the same framework.

Datasets: ADULT (9 QIs, 12,960 nodes), creditcard and mach2019 (their first 8 columns);
k = 2..10, s in {0, 0.02, 0.04}, discernibility. For each algorithm: time and checks; then the
factor OLA/Flash and Incognito/Flash (time, min-max over k) per dataset and s; then the
stability experiment: OLA in natural order over random column permutations (checks min /
median / max) against Flash. Writes a PNG of time per k per algorithm with --plot.

    python -m bench.algorithms [--datasets adult creditcard mach2019] [--k 2 3 ...] [--limits 0 0.02 0.04]
                               [--permutations 20] [--plot bench/algorithms.png] [--json FILE]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from bench.common import write_json
from bench.datasets import columns, dataset_job
from sqlanon.search.ola import OLA
from sqlanon.session import Session

ALGORITHMS = ("flash", "ola", "incognito")
QIS = {"adult": None, "creditcard": 8, "mach2019": 8}


def run_grid(name: str, ks, limits) -> list[dict]:
    rows = []
    with Session(dataset_job(name, QIS[name])) as session:
        print(
            f"\n{name}: {session.rows} rows, {len(session.qis)} QIs, lattice {session.lattice.size} nodes, "
            f"prepare {session.prepare_seconds:.2f} s"
        )
        print(
            f"{'s':>5} {'k':>3} "
            + " ".join(f"{a + ' s':>12} {a + ' checks':>16}" for a in ALGORITHMS)
            + f" {'inc. evaluations':>16}  optimum"
        )
        for limit in limits:
            for k in ks:
                row = {"dataset": name, "k": k, "s": limit}
                nodes = set()
                for algorithm in ALGORITHMS:
                    started = time.perf_counter()
                    outcome, _ = session.search(algorithm, k=k, suppression_limit=limit)
                    seconds = time.perf_counter() - started
                    row[algorithm] = {**outcome.counters, "seconds": seconds}
                    nodes.add(outcome.optimum.node if outcome.optimum else None)
                assert len(nodes) == 1, f"algorithms disagree on {name} k={k} s={limit}: {nodes}"
                row["optimum"] = list(next(iter(nodes)) or [])
                rows.append(row)
                print(
                    f"{limit:>5} {k:>3} "
                    + " ".join(f"{row[a]['seconds']:>12.3f} {row[a]['checks']:>16}" for a in ALGORITHMS)
                    + f" {row['incognito']['evaluations']:>16}  {''.join(map(str, row['optimum']))}"
                )
    return rows


def factors(rows) -> None:
    print("\nFactor of time against Flash, min-max over k (the layout of the paper's Figure 16)")
    print(
        f"{'dataset':<11} {'s':>5}  {'OLA/Flash':>13}  {'Incognito/Flash':>15}  {'checks OLA/Flash':>16}  {'checks Inc/Flash':>16}"
    )
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        for limit in dict.fromkeys(r["s"] for r in rows):
            sel = [r for r in rows if r["dataset"] == dataset and r["s"] == limit]
            if not sel:
                continue

            def span(alg, key):
                values = [r[alg][key] / r["flash"][key] for r in sel]
                return f"{min(values):.2f}-{max(values):.2f}"

            print(
                f"{dataset:<11} {limit:>5}  {span('ola', 'seconds'):>13}  {span('incognito', 'seconds'):>15}  "
                f"{span('ola', 'checks'):>16}  {span('incognito', 'checks'):>16}"
            )


def stability(permutations: int, k: int = 5, limit: float = 0.0) -> dict:
    names = columns("adult")
    rng = random.Random(2012)
    ola_checks, flash_checks = [], []
    for _ in range(permutations):
        order = names[:]
        rng.shuffle(order)
        with Session(dataset_job("adult", order)) as session:
            ola = OLA(session.lattice, session.checker(k=k, suppression_limit=limit)).run()
            flash, _ = session.search("flash", k=k, suppression_limit=limit)
            ola_checks.append(ola.counters["checks"])
            flash_checks.append(flash.counters["checks"])
    result = {
        "ola": (min(ola_checks), statistics.median(ola_checks), max(ola_checks)),
        "flash": (min(flash_checks), statistics.median(flash_checks), max(flash_checks)),
    }
    print(f"\nStability, ADULT k={k} s={limit}, {permutations} random column orders: checks min / median / max")
    for name, (lo, mid, hi) in result.items():
        print(f"  {name:<6} {lo} / {mid} / {hi}")
    return result


def plot(rows, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    limits = list(dict.fromkeys(r["s"] for r in rows))
    fig, axes = plt.subplots(len(datasets), len(limits), figsize=(4 * len(limits), 3 * len(datasets)), squeeze=False)
    for i, dataset in enumerate(datasets):
        for j, limit in enumerate(limits):
            ax = axes[i][j]
            sel = [r for r in rows if r["dataset"] == dataset and r["s"] == limit]
            for algorithm in ALGORITHMS:
                ax.plot([r["k"] for r in sel], [r[algorithm]["seconds"] for r in sel], marker="o", label=algorithm)
            ax.set_title(f"{dataset}, s={limit}")
            ax.set_xlabel("k")
            ax.set_ylabel("seconds")
            ax.set_yscale("log")
    axes[0][0].legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"\nwrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.algorithms", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="*", default=list(QIS))
    parser.add_argument("--k", type=int, nargs="+", default=list(range(2, 11)))
    parser.add_argument("--limits", type=float, nargs="+", default=[0.0, 0.02, 0.04])
    parser.add_argument("--permutations", type=int, default=20)
    parser.add_argument("--plot", help="write a PNG of time per k per algorithm")
    parser.add_argument("--json", help="write all rows as JSON")
    args = parser.parse_args()
    rows = []
    for name in args.datasets:
        rows += run_grid(name, args.k, args.limits)
    if rows:
        factors(rows)
    stable = stability(args.permutations) if args.permutations else None
    if args.plot and rows:
        plot(rows, args.plot)
    if args.json:
        write_json(args.json, {"rows": rows, "stability": stable}, indent=2)


if __name__ == "__main__":
    main()
