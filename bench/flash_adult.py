"""Flash on ADULT (all 9 QIs), k = 2..10, s in {0, 0.02, 0.04}, discernibility.

Prints one row per configuration: the optimum, its loss and suppressed rows, the number of
checks, nodes tagged and pruned, and the time. The data is read and encoded once (the prepare
time is printed separately; "with prepare" adds it, to compare with ARX's numbers, which
include encoding). Run from the project root:

    python -m bench.flash_adult [--k 2 5 10] [--limits 0 0.02] [--metric discernibility] [--lookup wide|join] [--json FILE]

ARX 3.9.2 on a machine of this kind (2 cores, warm JVM, encoding included), for reference:
k=5 s=0: 43 ms, 181 checks; k=5 s=0.02: 1.0 s, 1,895 checks;
k=2 s=0: 164 ms, 217 checks; k=2 s=0.02: 2.1 s, 3,136 checks; k=2 s=0.1: 5.1 s, 7,262 checks.
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import resource
import time

from bench.common import write_json
from bench.datasets import dataset_job
from sqlanon.session import Session

ARX = {
    (5, 0.0): (0.043, 181),
    (5, 0.02): (1.0, 1895),
    (2, 0.0): (0.164, 217),
    (2, 0.02): (2.1, 3136),
    (2, 0.1): (5.1, 7262),
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.flash_adult", description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, nargs="+", default=list(range(2, 11)))
    parser.add_argument("--limits", type=float, nargs="+", default=[0.0, 0.02, 0.04])
    parser.add_argument("--metric", default="discernibility")
    parser.add_argument("--lookup", default="wide", choices=["wide", "join"])
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    args = parser.parse_args()

    job = dataset_job("adult", metric=args.metric)
    job = replace(job, lookup=args.lookup)
    rows = []
    with Session(job) as session:
        prepare = session.prepare_seconds
        print(
            f"ADULT: {session.rows} rows, {session.prepared.base_classes} base classes, "
            f"lattice {session.lattice.size} nodes; prepare {prepare:.3f} s; metric {args.metric}; lookup {args.lookup}"
        )
        header = f"{'k':>3} {'s':>5} {'checks':>7} {'tagged':>7} {'pruned':>7} {'search s':>9} {'w/ prep s':>9} {'ms/check':>8}  {'loss':>14} {'supp':>5}  optimum          ARX s (checks)"
        print(header)
        print("-" * len(header))
        for limit in args.limits:
            for k in args.k:
                started = time.perf_counter()
                outcome, _ = session.search("flash", k=k, suppression_limit=limit, metric=args.metric)
                seconds = time.perf_counter() - started
                c, best = outcome.counters, outcome.optimum
                arx = ARX.get((k, limit))
                row = {
                    "k": k,
                    "s": limit,
                    "checks": c["checks"],
                    "tagged": c["tagged"],
                    "pruned": c["pruned"],
                    "seconds": seconds,
                    "with_prepare": seconds + prepare,
                    "loss": best.loss if best else None,
                    "suppressed": best.stats.suppressed if best else None,
                    "node": list(best.node) if best else None,
                }
                rows.append(row)
                print(
                    f"{k:>3} {limit:>5} {c['checks']:>7} {c['tagged']:>7} {c['pruned']:>7} {seconds:>9.3f} "
                    f"{seconds + prepare:>9.3f} {1000 * seconds / max(1, c['checks']):>8.2f}  {row['loss']!s:>14} "
                    f"{row['suppressed']!s:>5}  {''.join(map(str, best.node)) if best else '-':<15}  "
                    + (f"{arx[0]} ({arx[1]})" if arx else "")
                )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (RSS) {peak:.0f} MiB")
    if args.json:
        write_json(args.json, rows, indent=2)


if __name__ == "__main__":
    main()
