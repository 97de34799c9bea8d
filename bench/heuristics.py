"""The Lightning paper's experiments on the heuristics, reproduced on the data we have
(Prasser et al. 2016, Appendix B tables and Figure 7).

1. ADULT, 5-anonymity (9 QIs), recursive-(4,3)-diversity and 0.2-closeness (hierarchical
   distance) with occupation sensitive (8 QIs), s in {0, 0.1}, metrics aecs and loss: the relative utility loss of each heuristic against the optimum
   (Flash), (L - L_opt) / L_opt in percent (0 % = optimal). Lightning runs in its
   minimal-anonymization variant (stop = "first"), as in the paper's comparison with DataFly
   and IGreedy, and once more to the end ("lightning*") with the same budget as the others.
2. creditcard (15, 20, 24 QIs) and mach2019 (15, 16 QIs), k = 5, s in {0, 1.0}, loss: the best
   loss each heuristic has found over a time budget (default 60 s), as a table at the budget
   and as curves over time (the paper's Figure 7) in a PNG.

    python -m bench.heuristics [--budget 60] [--part adult wide] [--plot bench/heuristics.png] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

from bench.common import write_json
from bench.datasets import adult_hierarchy, columns, dataset_job
from sqlanon.core.genetic import GeneticParams
from sqlanon.session import ALL_NEEDS, Session

HEURISTICS = ("lightning", "datafly", "igreedy", "genetic", "random")
SEED = 2016
WIDE = [("creditcard", 15), ("creditcard", 20), ("creditcard", None), ("mach2019", 15), ("mach2019", None)]


OCCUPATION = str(adult_hierarchy("occupation"))
PRIVACY = {
    "5-anonymity": (5, ()),
    "recursive-(4,3)-diversity": (1, ({"type": "recursive-cl-diversity", "attribute": "occupation", "c": 4, "l": 3},)),
    "0.2-closeness": (
        1,
        (
            {
                "type": "t-closeness",
                "attribute": "occupation",
                "t": 0.2,
                "distance": "hierarchical",
                "hierarchy": OCCUPATION,
            },
        ),
    ),
}


def adult_session(privacy: str) -> Session:
    """ADULT with all 9 QIs for k-anonymity; with occupation sensitive (8 QIs) for the others."""
    if privacy == "5-anonymity":
        return Session(dataset_job("adult", None), needs=ALL_NEEDS)
    job = dataset_job("adult", [c for c in columns("adult") if c != "occupation"])
    job = replace(
        job, attributes=[replace(a, role="sensitive") if a.name == "occupation" else a for a in job.attributes]
    )
    k, models = PRIVACY[privacy]
    job = replace(job, models=models)
    return Session(job, needs=ALL_NEEDS)


def adult_tables(budget: float, privacy_models) -> list[dict]:
    rows = []
    print("\nADULT: relative utility loss against the optimum, (L - L_opt) / L_opt in %")
    columns = ["lightning(first)", "lightning*", "datafly", "igreedy", "genetic", "random"]
    print(f"{'model':<26} {'metric':<8} {'s':>4} {'optimum':>14} " + " ".join(f"{c:>16}" for c in columns))
    for privacy in privacy_models:
        k, models = PRIVACY[privacy]
        with adult_session(privacy) as session:
            for metric in ("aecs", "loss"):
                for limit in (0.0, 0.1):
                    flash, _ = session.search("flash", k=k, models=models, suppression_limit=limit, metric=metric)
                    if flash.optimum is None:
                        print(f"{privacy:<26} {metric:<8} {limit:>4} no anonymous node")
                        continue
                    best = flash.optimum.loss
                    row = {
                        "model": privacy,
                        "metric": metric,
                        "s": limit,
                        "optimum": best,
                        "node": list(flash.optimum.node),
                        "flash_checks": flash.counters["checks"],
                        "flash_seconds": flash.counters["seconds"],
                    }
                    for column in columns:
                        name, options = column.rstrip("*").replace("(first)", ""), {}
                        if column == "lightning(first)":
                            options["stop"] = "first"
                        if name in ("lightning", "genetic", "random"):
                            options["time_limit"] = budget
                        if name in ("genetic", "random"):
                            options["seed"] = SEED
                        if name == "genetic":  # the figures in bench/README.md are KGen's, as published
                            options["genetic"] = GeneticParams(variant="kgen")
                        started = time.perf_counter()
                        outcome, checker = session.search(
                            name, k=k, models=models, suppression_limit=limit, metric=metric, **options
                        )
                        found = outcome.optimum
                        row[column] = {
                            "loss": None if found is None else found.loss,
                            "relative": None if found is None else (found.loss - best) / best * 100 if best else 0.0,
                            "checks": checker.checks,
                            "seconds": time.perf_counter() - started,
                            "optimal": outcome.proven,
                        }
                    rows.append(row)
                    print(
                        f"{privacy:<26} {metric:<8} {limit:>4} {best:>14.6g} "
                        + " ".join(f"{_pct(row[c]['relative']):>16}" for c in columns)
                    )
    return rows


def _pct(value) -> str:
    return "none" if value is None else f"{value:.1f} %"


def wide_curves(budget: float, limits=(0.0, 1.0)) -> list[dict]:
    runs = []
    print(f"\nWide data, k = 5, loss: best loss after {budget:g} s (checks; loss relative to the best of the row)")
    print(f"{'dataset':<11} {'QIs':>3} {'s':>4} " + " ".join(f"{h:>24}" for h in HEURISTICS))
    for name, qis in WIDE:
        with Session(dataset_job(name, qis, k=5, metric="loss", algorithm="lightning")) as session:
            for limit in limits:
                row = {"dataset": name, "qis": len(session.qis), "s": limit, "lattice": session.lattice.size}
                for heuristic in HEURISTICS:
                    options = {"time_limit": budget}
                    if heuristic in ("genetic", "random"):
                        options["seed"] = SEED
                    if heuristic == "genetic":  # KGen as published, as bench/README.md reports it
                        options["genetic"] = GeneticParams(variant="kgen")
                    outcome, checker = session.search(heuristic, suppression_limit=limit, **options)
                    row[heuristic] = {
                        "loss": None if outcome.optimum is None else outcome.optimum.loss,
                        "checks": checker.checks,
                        "trace": outcome.trace,
                        "stopped": outcome.counters["stopped"],
                    }
                runs.append(row)
                found = [row[h]["loss"] for h in HEURISTICS if row[h]["loss"] is not None]
                least = min(found) if found else None

                def cell(h):
                    loss = row[h]["loss"]
                    rel = (
                        "none"
                        if loss is None
                        else f"{loss:.4f} (+{(loss - least) / least * 100:.0f}%)"
                        if least
                        else f"{loss:.4f}"
                    )
                    return f"{rel} {row[h]['checks']}"

                print(f"{name:<11} {row['qis']:>3} {limit:>4} " + " ".join(f"{cell(h):>24}" for h in HEURISTICS))
    return runs


def plot(runs, budget: float, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = dict(zip(HEURISTICS, plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    fig, axes = plt.subplots(2, len(WIDE), figsize=(3.4 * len(WIDE), 6), squeeze=False)
    for i, limit in enumerate(dict.fromkeys(r["s"] for r in runs)):
        for j, (name, _) in enumerate(WIDE):
            ax = axes[i][j]
            run = [r for r in runs if r["s"] == limit][j]
            for heuristic in HEURISTICS:
                trace = run[heuristic]["trace"]
                if trace:
                    xs = [t["seconds"] for t in trace] + [budget]
                    ys = [t["loss"] for t in trace] + [trace[-1]["loss"]]
                    ax.step(xs, ys, where="post", color=colors[heuristic])
            ax.set_title(f"{name} {run['qis']} QIs, s={limit:g}", fontsize=9)
            ax.set_xlabel("seconds")
            ax.set_ylabel("loss (best so far)")
            ax.set_xlim(0, budget)
    fig.legend(
        [plt.Line2D([], [], color=colors[h]) for h in HEURISTICS],
        HEURISTICS,
        loc="upper center",
        ncol=len(HEURISTICS),
        fontsize=9,
    )
    fig.tight_layout(rect=(0, 0, 1, 0.94))
    fig.savefig(path, dpi=110)
    print(f"\nwrote {path}")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.heuristics", description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=60.0, help="seconds per heuristic run (default 60)")
    parser.add_argument("--adult-budget", type=float, default=60.0, help="seconds per run on ADULT")
    parser.add_argument("--part", nargs="+", default=["adult", "wide"], choices=["adult", "wide"])
    parser.add_argument(
        "--models", nargs="+", default=list(PRIVACY), choices=list(PRIVACY), help="privacy models of the ADULT part"
    )
    parser.add_argument("--plot", default=None, help="PNG path for the anytime curves")
    parser.add_argument("--json", default=None)
    parser.add_argument("--replot", default=None, help="draw --plot from a JSON file of an earlier run, run nothing")
    args = parser.parse_args()
    if args.replot:
        plot(json.loads(Path(args.replot).read_text())["wide"], args.budget, args.plot)
        return
    result = {}
    if "adult" in args.part:
        result["adult"] = adult_tables(args.adult_budget, args.models)
    if "wide" in args.part:
        result["wide"] = wide_curves(args.budget)
        if args.plot:
            plot(result["wide"], args.budget, args.plot)
    if args.json:
        write_json(args.json, result)


if __name__ == "__main__":
    main()
