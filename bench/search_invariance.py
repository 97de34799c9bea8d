"""What the searches decide, recorded so that a change to their bookkeeping (tags, lattice,
completion pass, snapshot policy) can be shown to change nothing they decide.

For ADULT (9 QIs, the in-memory engine, every figure prepared) and each optimal algorithm,
metric, k and suppression limit of the grid: the optimum (node, loss), the number of checks,
every counter but the seconds, the trace (checks, loss), whether the optimum is proven, and the
snapshot policy's counters (roll-ups, history hits). Then the heuristics at k = 5, s = 0.02 with
a step limit and a fixed seed.

    python -m bench.search_invariance --record before.json
    python -m bench.search_invariance --compare before.json   # exit 1 on any difference

``--quick`` keeps Flash and OLA only (exhaustive and Incognito take most of the time).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from bench.common import uptime
from bench.datasets import ADULT_QIS, dataset_job
from sqlanon.search import ALGORITHMS
from sqlanon.session import ALL_NEEDS, Session

OPTIMAL = ("flash", "ola", "incognito", "exhaustive")
METRICS = ("discernibility", "loss", "aecs", "entropy")
KS = (2, 5, 10)
LIMITS = (0.0, 0.02, 0.1)
HEURISTICS = ("lightning", "datafly", "igreedy", "genetic", "random")


def record(session: Session, algorithm: str, **overrides) -> dict:
    """One search's decisions; ``seed`` goes to the algorithms that take one (and is recorded)."""
    taken = {k: v for k, v in overrides.items() if k != "seed" or "seed" in ALGORITHMS[algorithm].Options.keys()}
    outcome, checker = session.search(algorithm, **taken)
    best = outcome.optimum
    return {
        "algorithm": algorithm,
        **overrides,
        "node": list(best.node) if best else None,
        "loss": best.loss if best else None,
        "counters": {k: v for k, v in outcome.counters.items() if k != "seconds"},
        "trace": [[t["checks"], t["loss"]] for t in outcome.trace],
        "proven": outcome.proven,
        "rollups": checker.rollups,
        "snapshot_hits": checker.snapshot_hits,
    }


def runs(quick: bool) -> list[dict]:
    out = []
    algorithms = OPTIMAL[:2] if quick else OPTIMAL
    with Session(dataset_job("adult", ADULT_QIS, engine="memory"), needs=ALL_NEEDS) as session:
        for algorithm in algorithms:
            for metric in METRICS:
                for k in KS:
                    for s in LIMITS:
                        started = time.perf_counter()
                        out.append(record(session, algorithm, metric=metric, k=k, suppression_limit=s))
                        print(
                            algorithm,
                            metric,
                            k,
                            s,
                            out[-1]["counters"],
                            f"{time.perf_counter() - started:.1f} s",
                            flush=True,
                        )
        for algorithm in HEURISTICS:
            for metric in ("discernibility", "loss"):
                out.append(
                    record(session, algorithm, metric=metric, k=5, suppression_limit=0.02, step_limit=400, seed=7)
                )
                print(algorithm, metric, out[-1]["counters"], flush=True)
    return out


def key(run: dict) -> tuple:
    return tuple(str(run.get(k)) for k in ("algorithm", "metric", "k", "suppression_limit"))


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.search_invariance", description=__doc__.splitlines()[0])
    parser.add_argument("--record", type=Path)
    parser.add_argument("--compare", type=Path)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    print("load:", uptime())
    found = runs(args.quick)
    if args.record:
        args.record.write_text(json.dumps(found, indent=1))
    if args.compare:
        expected = {key(r): r for r in json.loads(args.compare.read_text())}
        differences = 0
        for run in found:
            want = expected.get(key(run))
            if want is None:
                print("not recorded:", key(run))
                differences += 1
            elif json.loads(json.dumps(run)) != want:
                print("DIFFERENT:", key(run), "\n  before:", want, "\n  after: ", run)
                differences += 1
        print(f"compared {len(found)} searches: {differences} differ")
        return 1 if differences else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
