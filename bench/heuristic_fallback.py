"""A heuristic that runs out of budget without an anonymous node (issue 19, item 4): on
creditcard (every column a QI, 24), k = 5, s = 0, Loss, Lightning with a time budget against
DataFly, the loss each returns, its checks and how many of them the fallback took
(``HeuristicSearch.fall_back``: the top, then a binary search of DataFly's path from the best
non-anonymous node).

    python -m bench.heuristic_fallback [--budget 20]
"""

from __future__ import annotations

import argparse
import time

from bench.common import uptime
from bench.datasets import dataset_job
from sqlanon.session import Session


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.heuristic_fallback", description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=20.0, help="Lightning's time limit in seconds (default 20)")
    args = parser.parse_args()
    print(uptime())
    with Session(dataset_job("creditcard", None, k=5, metric="loss", algorithm="lightning")) as session:
        print(f"creditcard: {len(session.qis)} QIs, {session.lattice.size:.3g} nodes, k = 5, s = 0, loss")
        for algorithm, options in (("lightning", {"time_limit": args.budget}), ("datafly", {})):
            started = time.perf_counter()
            outcome, checker = session.search(algorithm, suppression_limit=0.0, **options)
            loss = "none" if outcome.optimum is None else f"{outcome.optimum.loss:.4f}"
            print(
                f"{algorithm:<10} loss {loss}, {checker.checks} checks ({outcome.counters.get('fallback_checks', 0)} "
                f"by the fallback), stopped: {outcome.counters['stopped']}, {time.perf_counter() - started:.1f} s"
            )


if __name__ == "__main__":
    main()
