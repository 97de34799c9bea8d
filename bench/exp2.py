"""ARX's experiment 2 in sqlanon: ADULT, the eight QIs besides `occupation`, occupation
sensitive; distinct-3-, entropy-3- and recursive-(4,3)-diversity, equal-distance and
hierarchical 0.2-closeness, each alone and with 5-anonymity, s in {0, 0.1}, loss: 20 jobs,
each end to end (``sqlanon.anonymize(sqlanon.load_job(path))``: read, encode, search, write,
verify, risk) on the default engine (DuckDB, ``checks = "auto"``), in one process after one
untimed warm-up job (imports, the compiled kernel's cache).

    python -m bench.exp2 [--repeat 3] [--engine duckdb] [--checks auto] [--only tequal]

Prints per job: checks, the report's phases (prepare, search, output, risk), the end-to-end
median of ``--repeat``, ms per check, the optimum, and ``uptime`` before and after; writes
bench/results/exp2.json.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

import sqlanon
from bench.common import RESULTS, uptime, write_json
from bench.datasets import ADULT_CSV, adult_hierarchy

QIS8 = ["age", "education", "marital-status", "native-country", "race", "salary-class", "sex", "workclass"]
MODELS = {
    "distinct:3": {"type": "distinct-l-diversity", "l": 3},
    "entropy:3": {"type": "entropy-l-diversity", "l": 3},
    "recursive:4:3": {"type": "recursive-cl-diversity", "c": 4, "l": 3},
    "tequal:0.2": {"type": "t-closeness", "t": 0.2},
    "thier:0.2": {
        "type": "t-closeness",
        "t": 0.2,
        "distance": "hierarchical",
        "hierarchy": str(adult_hierarchy("occupation")),
    },
}


def toml_value(value) -> str:
    return json.dumps(value) if isinstance(value, str) else str(value)


def job_file(folder: Path, name: str, model: dict, k: int | None, s: float, engine: str, checks: str) -> Path:
    lines = ["[input]", f"path = {toml_value(str(ADULT_CSV))}", 'delimiter = ";"']
    for q in QIS8:
        lines += [f'[attributes."{q}"]', 'role = "quasi"', f"hierarchy = {toml_value(str(adult_hierarchy(q)))}"]
    lines += ['[attributes."occupation"]', 'role = "sensitive"', "[privacy]", f"suppression_limit = {s}"]
    if k:
        lines.append(f"k = {k}")
    lines += [
        "[[privacy.models]]",
        *(f"{key} = {toml_value(v)}" for key, v in {**model, "attribute": "occupation"}.items()),
    ]
    lines += ["[search]", 'algorithm = "flash"', 'metric = "loss"', "[engine]", f'name = "{engine}"']
    if engine != "memory":
        lines.append(f'checks = "{checks}"')
    lines += [
        "[output]",
        f"path = {toml_value(str(folder / (name + '.csv')))}",
        f"report = {toml_value(str(folder / (name + '.json')))}",
    ]
    path = folder / f"{name}.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(path: Path) -> tuple[float, dict]:
    for stale in (path.with_suffix(".csv"), path.with_suffix(".json"), path.with_suffix(".html")):
        stale.unlink(missing_ok=True)
    started = time.perf_counter()
    result = sqlanon.anonymize(sqlanon.load_job(str(path)))
    return time.perf_counter() - started, result.report


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.exp2", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--engine", default="duckdb")
    parser.add_argument("--checks", default="auto")
    parser.add_argument("--only", help="run only the models whose key starts with this")
    args = parser.parse_args()
    print("load before:", uptime(), flush=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run(job_file(folder, "warm", MODELS["recursive:4:3"], 5, 0.1, args.engine, args.checks))
        for key, model in MODELS.items():
            if args.only and not key.startswith(args.only):
                continue
            for k in (None, 5):
                for s in (0.0, 0.1):
                    name = f"{key.replace(':', '-')}_k{k or 0}_s{s}"
                    path = job_file(folder, name, model, k, s, args.engine, args.checks)
                    runs = [run(path) for _ in range(args.repeat)]
                    wall = statistics.median(r[0] for r in runs)
                    report = runs[0][1]
                    phases = {
                        p: round(statistics.median(r[1]["seconds"][p] for r in runs), 3) for p in report["seconds"]
                    }
                    checks = report["checks"]
                    row = {
                        "model": key,
                        "k": k,
                        "s": s,
                        "end_to_end_s": round(wall, 3),
                        **phases,
                        "checks": checks,
                        "ms_per_check": round(1e3 * phases["search"] / checks, 3) if checks else None,
                        "placement": report.get("checks_placement"),
                        "optimum": report.get("transformation"),
                        "loss": report.get("loss"),
                        "suppressed": report.get("suppressed"),
                    }
                    rows.append(row)
                    print(row, flush=True)
    print("load after:", uptime())
    print(
        "| model | k | s | checks | prepare s | search s | output s | end to end s | ms/check |\n|---|---|---|---|---|---|---|---|---|"
    )
    for r in rows:
        print(
            f"| {r['model']} | {r['k'] or '–'} | {r['s']} | {r['checks']:,} | {r['prepare']} | {r['search']} | "
            f"{r['output']} | {r['end_to_end_s']} | {r['ms_per_check']} |"
        )
    write_json(RESULTS / "exp2.json", {"engine": args.engine, "checks": args.checks, "rows": rows})


if __name__ == "__main__":
    main()
