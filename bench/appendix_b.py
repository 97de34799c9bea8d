"""The Lightning paper's Appendix B, ADULT rows (Prasser et al. 2016, Tables 1 and 2).

ADULT as in the paper's Section 6 and Table 2: the eight QIs besides `occupation` (4,320
transformations), `occupation` sensitive for recursive-(4,3)-diversity and (0.2)-closeness
(hierarchical EMD over its hierarchy); (5)-anonymity; (0.01)-uniqueness (Dankar's rule, the
population of ARX's Region.USA, 317,238,626); (0.05,0.15)-presence with a random research
subset of 10 % of the rows (seeded; the paper's file is not published). Suppression limits 0
and 10 %; metrics AECS and Loss. Each heuristic stops at its first anonymous node (minimal
anonymity): Lightning with stop = "first", DataFly and IGreedy as sqlanon implements them,
and all three as the paper's benchmark code runs them (`arx_lightning_first`, `arx_minimal`).

The figure is the paper's relative information loss, (L - L_opt) / (L_max - L_opt) in %:
0 % the optimum, 100 % the lowest utility of any anonymous transformation. Both ends come
from an exhaustive search of the lattice (its checker holds every node's loss), as the
paper's benchmark computed them (BenchmarkMetadata: min and max over the anonymous nodes).

    python -m bench.appendix_b [--models ...] [--presence-seeds 2016 1 2 ...] [--json FILE]
    python -m bench.appendix_b --rows FILE   # the subset's row numbers for bench/ArxAppendixB.java
"""

from __future__ import annotations

import argparse
import csv
import os
import time
from dataclasses import replace
from pathlib import Path

from bench.common import write_json
from bench.datasets import ADULT_CSV, CACHE, adult_hierarchy, columns, dataset_job
from sqlanon import Source
from sqlanon.session import ALL_NEEDS, Session

USA = 317_238_626  # ARX 3.x ARXPopulationModel.Region.USA, the paper's population
SUBSET_SEED = 2016
SUBSET = "in_study"
OCCUPATION = str(adult_hierarchy("occupation"))
LIMITS = (0.0, 0.1)
METRICS = ("aecs", "loss")
MODELS = {
    "(5)-anonymity": (5, ()),
    "(0.01)-uniqueness": (
        1,
        ({"type": "population-uniqueness", "threshold": 0.01, "model": "dankar", "population_size": USA},),
    ),
    "recursive-(4,3)-diversity": (1, ({"type": "recursive-cl-diversity", "attribute": "occupation", "c": 4, "l": 3},)),
    "(0.2)-closeness": (
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
    "(0.05,0.15)-presence": (1, ({"type": "delta-presence", "dmin": 0.05, "dmax": 0.15, "subset": SUBSET},)),
}
# The paper's ADULT rows, Lightning / DataFly / IGreedy in %, per metric, model and limit.
PAPER = {
    "aecs": {
        "(5)-anonymity": ((3.656, 3.656, 3.656), (0.036, 0.117, 0.117)),
        "(0.01)-uniqueness": ((0.001, 0.001, 0.001), (0.001, 0.001, 0.001)),
        "recursive-(4,3)-diversity": ((4.274, 4.274, 4.274), (0.086, 0.110, 0.110)),
        "(0.2)-closeness": ((100.0, 100.0, 100.0), (0.293, 0.000, 0.000)),
        "(0.05,0.15)-presence": ((7.895, 7.895, 7.895), (3.556, 3.556, 3.556)),
    },
    "loss": {
        "(5)-anonymity": ((30.49, 65.729, 65.729), (4.152, 26.724, 26.724)),
        "(0.01)-uniqueness": ((8.597, 8.597, 8.597), (8.597, 8.597, 8.597)),
        "recursive-(4,3)-diversity": ((0.000, 65.729, 65.729), (3.149, 28.518, 28.518)),
        "(0.2)-closeness": ((33.736, 100.0, 100.0), (12.02, 67.026, 67.026)),
        "(0.05,0.15)-presence": ((19.616, 63.135, 63.135), (0.000, 65.76, 65.76)),
    },
}
# The optimum and the lowest utility the paper's benchmark used (BenchmarkMetadata.java, ADULT).
PAPER_RANGE = {
    "aecs": {
        "(5)-anonymity": ((942.5625, 30162.0), (26.597883597883598, 30162.0)),
        "(0.01)-uniqueness": ((2.571136305515301, 30162.0), (2.571136305515301, 30162.0)),
        "recursive-(4,3)-diversity": ((754.05, 30162.0), (24.09105431309904, 30162.0)),
        "(0.2)-closeness": ((6032.4, 30162.0), (569.0943396226415, 30162.0)),
        "(0.05,0.15)-presence": ((150.8, 3016.0), (97.29032258064517, 3016.0)),
    },
    "loss": {
        "(5)-anonymity": ((0.542210825407941, 1.0000000000000004), (0.16273358184004305, 1.0000000000000004)),
        "(0.01)-uniqueness": ((0.0049634194198648895, 1.0000000000000004), (0.0049634194198648895, 1.0000000000000004)),
        "recursive-(4,3)-diversity": (
            (0.542210825407941, 1.0000000000000004),
            (0.16873621678753303, 1.0000000000000004),
        ),
        "(0.2)-closeness": ((0.749497378559133, 1.0000000000000004), (0.5603677705988503, 1.0000000000000004)),
        "(0.05,0.15)-presence": ((0.6041403987002945, 1.0000000000000004), (0.5450826720309907, 1.0000000000000004)),
    },
}
# ARX orders the QIs as the input's columns; its successors raise them in that order.
ARX_ORDER = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass", "salary-class"]
COLUMNS = ("lightning", "datafly", "igreedy", "arx-lightning", "arx-datafly", "arx-igreedy")


def relative_loss(loss: float, optimum: float, lowest: float) -> float:
    """The paper's relative information loss in %: 0 at the optimum, 100 at the lowest
    utility of any anonymous transformation (Appendix B; BenchmarkExperiment1 normalizes
    (value - min) / (max - min)). With one anonymous loss only (max = min) it is 0."""
    if lowest < optimum or not optimum <= loss <= lowest:
        raise ValueError(f"loss {loss} is not within [optimum {optimum}, lowest utility {lowest}]")
    return 0.0 if lowest == optimum else (loss - optimum) / (lowest - optimum) * 100.0


def presence_input(seed: int = SUBSET_SEED) -> Path:
    """ADULT with a boolean research-subset column: a seeded 10 % sample of the rows (3,016 of
    30,162, the paper's size), as Parquet in the benchmarks' cache (``datasets.CACHE``, never committed)."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = CACHE / f"adult_presence_{seed}.parquet"
    if path.exists():
        return path
    with open(ADULT_CSV, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter=";"))
    chosen = np.zeros(len(rows), dtype=bool)
    chosen[np.random.default_rng(seed).choice(len(rows), size=len(rows) // 10, replace=False)] = True
    table = {c: [r[c] for r in rows] for c in columns("adult")}
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({**table, SUBSET: chosen.tolist()}), path)
    return path


def adult_job(model: str, seed: int = SUBSET_SEED):
    """ADULT, the eight QIs besides occupation, occupation sensitive, the in-memory engine
    (DuckDB for delta-presence)."""
    job = dataset_job("adult", [c for c in columns("adult") if c != "occupation"], engine="memory")
    k, models = MODELS[model]  # the session prepares what the job's models read
    job = replace(
        job,
        attributes=[replace(a, role="sensitive") if a.name == "occupation" else a for a in job.attributes],
        k=k,
        models=models,
    )
    if model == "(0.05,0.15)-presence":  # the in-memory engine has no research subset: DuckDB
        job = replace(job, input=Source(path=str(presence_input(seed))), engine="duckdb")
    return job


def arx_minimal(session: Session, checker, rule: str, order: list[str]):
    """DataFly and IGreedy as the paper's benchmark ran them (AlgorithmMinimal with
    DataFlyMetric or IGreedyMetric): from the bottom, check every successor of the current
    node, raising the QIs in ARX's column order, and stop at the first anonymous one checked;
    otherwise move to the successor of lowest score (the first on ties). DataFlyMetric's score
    is -(most distinct values of any QI at the successor's levels, counted in the hierarchy
    files): lower is better, so it keeps the most distinct values, the opposite of Sweeney's
    rule. IGreedyMetric's is (-smallest class, that DataFly score)."""
    qis = session.qis
    position = [qis.index(q) for q in order]
    distinct = [hierarchy_distinct(q) for q in qis]

    def datafly(node):
        return -max(distinct[j][node[j]] for j in range(len(qis)))

    def score(node, result):
        return (datafly(node),) if rule == "datafly" else (-(result.stats.min_class or 0), datafly(node))

    node = session.lattice.bottom
    if checker.check(node).anonymous:
        return node
    while True:
        best = None
        for j in position:
            if node[j] == session.lattice.heights[j]:
                continue
            up = node[:j] + (node[j] + 1,) + node[j + 1 :]
            result = checker.check(up)
            if result.anonymous:
                return up
            if best is None or score(up, result) < best[0]:
                best = (score(up, result), up)
        if best is None:
            return None
        node = best[1]


class JavaQueue:
    """java.util.PriorityQueue's binary heap (siftUp, siftDown, removeAt) ordered by ``key``
    alone, so that equal keys leave the queue in the order Java's heap gives them: what
    decides ARX's Lightning among nodes of equal loss."""

    def __init__(self, key):
        self.key, self.heap = key, []

    def add(self, x) -> None:
        self.heap.append(x)
        self._up(len(self.heap) - 1, x)

    def poll(self):
        if not self.heap:
            return None
        first, last = self.heap[0], self.heap.pop()
        if self.heap:
            self._down(0, last)
        return first

    def remove(self, x) -> None:
        i = self.heap.index(x)
        last = self.heap.pop()
        if i < len(self.heap):
            self._down(i, last)
            if self.heap[i] is last:
                self._up(i, last)

    def _up(self, k, x) -> None:
        while k > 0:
            parent = (k - 1) >> 1
            if self.key(x) >= self.key(self.heap[parent]):
                break
            self.heap[k] = self.heap[parent]
            k = parent
        self.heap[k] = x

    def _down(self, k, x) -> None:
        n = len(self.heap)
        while k < n >> 1:
            child = 2 * k + 1
            if child + 1 < n and self.key(self.heap[child]) > self.key(self.heap[child + 1]):
                child += 1
            if self.key(x) <= self.key(self.heap[child]):
                break
            self.heap[k] = self.heap[child]
            k = child
        self.heap[k] = x


def arx_lightning_first(session: Session, checker, order: list[str]):
    """Lightning with minimal anonymity as the paper's code ran it (AlgorithmLightning, time
    limit 0): best-first from the bottom in a java.util.PriorityQueue by loss, every
    ``height``-th step a greedy descent; an expansion checks the successors not yet expanded
    (in ARX's column order) and queues each, duplicates included; the search ends at the first
    anonymous node checked."""
    position = [session.qis.index(q) for q in order]
    loss = {}

    def check(node):
        result = checker.check(node)
        loss[node] = result.loss
        return result.anonymous

    expanded, found = set(), []

    def expand(queue, node):
        best = None
        for j in position:
            if node[j] == session.lattice.heights[j]:
                continue
            up = node[:j] + (node[j] + 1,) + node[j + 1 :]
            if up not in expanded:
                if up not in loss and check(up):
                    found.append(up)
                queue.add(up)
                if best is None or loss[up] < loss[best]:
                    best = up
            if found:
                return None
        expanded.add(node)
        return best

    bottom = session.lattice.bottom
    if check(bottom):
        return bottom
    queue = JavaQueue(lambda n: loss[n])
    queue.add(bottom)
    stepping, step = max(session.lattice.height, 1), 0
    while (node := queue.poll()) is not None:
        if node in expanded:
            continue
        step += 1
        if step % stepping == 0:
            while node is not None and not found:  # ARX's dfs, without recursion
                node = expand(queue, node)
                if node is not None:
                    queue.remove(node)
        else:
            expand(queue, node)
        if found:
            return found[0]
    return None


def hierarchy_distinct(qi: str) -> list[int]:
    """Distinct values per level of an ADULT hierarchy file, as ARX's GeneralizationHierarchy counts them."""
    with open(adult_hierarchy(qi), newline="", encoding="utf-8") as handle:
        rows = [r for r in csv.reader(handle, delimiter=";") if r]
    return [len({r[level] for r in rows}) for level in range(len(rows[0]))]


def measure(session: Session, model: str, metric: str, s: float, exhaustive: bool = True) -> dict:
    """One row of the tables: the optimum (Flash) and the lowest utility (the top's loss), and
    each heuristic's first anonymous node, its loss and its relative loss. The top is the
    lowest utility of any anonymous node for both metrics: AECS = N / (kept classes + 1 if
    any row is suppressed) is at most N, reached by one class and nothing suppressed; every
    Loss term is at most 1, reached at the top. With ``exhaustive`` every node is checked
    and both ends are asserted to be the minimum and maximum over the anonymous nodes, as the
    paper's BenchmarkMetadata computed them."""
    started = time.perf_counter()
    k, extra = MODELS[model]
    settings = dict(k=k, models=extra, suppression_limit=s, metric=metric)
    flash, checker = session.search("flash", **settings)
    top = checker.check(session.lattice.top)
    assert top.anonymous, (model, metric, s)
    low, high = flash.optimum.loss, top.loss
    row = {
        "model": model,
        "metric": metric,
        "s": s,
        "optimum": low,
        "lowest": high,
        "optimum_node": list(flash.optimum.node),
        "exhaustive": exhaustive,
        "paper": dict(zip(COLUMNS[:3], PAPER[metric][model][LIMITS.index(s)])),
        "paper_range": PAPER_RANGE[metric][model][LIMITS.index(s)],
    }
    if exhaustive:
        _, every = session.search("exhaustive", **settings)
        losses = [r.loss for r in map(every.checked, session.lattice.nodes()) if r.anonymous]
        assert (min(losses), max(losses)) == (low, high), (model, metric, s, min(losses), max(losses), low, high)
        row["anonymous"] = len(losses)
    for name in ("lightning", "datafly", "igreedy"):
        options = {"stop": "first"} if name == "lightning" else {}
        outcome, checker = session.search(name, **settings, **options)
        found = outcome.optimum
        row[name] = {
            "node": list(found.node),
            "loss": found.loss,
            "checks": checker.checks,
            "relative": relative_loss(found.loss, low, high),
        }
    for rule in ("lightning", "datafly", "igreedy"):
        checker = session.checker(**settings)
        node = (
            arx_lightning_first(session, checker, ARX_ORDER)
            if rule == "lightning"
            else arx_minimal(session, checker, rule, ARX_ORDER)
        )
        loss = checker.checked(node).loss
        row[f"arx-{rule}"] = {
            "node": list(node),
            "loss": loss,
            "checks": checker.checks,
            "relative": relative_loss(loss, low, high),
        }
    # Our node's loss on the paper's scale (its optimum and lowest utility): tells a different
    # node from a different optimum.
    paper_low, paper_high = row["paper_range"]
    for column in COLUMNS:
        loss = row[column]["loss"]
        row[column]["on_paper_range"] = (
            relative_loss(loss, paper_low, paper_high) if paper_low <= loss <= paper_high else None
        )
    row["seconds"] = time.perf_counter() - started
    return row


def run(models: list[str], seeds=(SUBSET_SEED,)) -> list[dict]:
    rows = []
    for model in models:
        for seed in seeds if model == "(0.05,0.15)-presence" else (SUBSET_SEED,):
            with Session(adult_job(model, seed), needs=ALL_NEEDS, share_stats=True) as session:
                for metric in METRICS:
                    for s in LIMITS:
                        # Dankar's rule fits Pitman's model per node (0.1-0.4 s): no exhaustive pass there.
                        rows.append(measure(session, model, metric, s, exhaustive=model != "(0.01)-uniqueness"))
                        rows[-1]["subset_seed"] = seed
                        print(line(rows[-1]), flush=True)
    return rows


def line(row) -> str:
    paper = row["paper"]
    cells = [f"{paper[c]:g} / {row[c]['relative']:.3f}" for c in COLUMNS[:3]]
    cells += [f"{row[c]['relative']:.3f}" for c in COLUMNS[3:]]
    return (
        f"{row['metric']:<5} {row['model']:<26} s={row['s']:<4} opt {row['optimum']:.6g} (paper "
        f"{row['paper_range'][0]:.6g}) lowest {row['lowest']:.6g} (paper {row['paper_range'][1]:.6g}) | "
        + " | ".join(cells)
        + f" | {row['seconds']:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.appendix_b", description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument(
        "--presence-seeds",
        nargs="+",
        type=int,
        default=[SUBSET_SEED],
        help="seeds of the random research subset for delta-presence (default 2016)",
    )
    parser.add_argument("--json", default=None)
    parser.add_argument(
        "--rows",
        default=None,
        help="write the research subset's row numbers (first seed) for bench/ArxAppendixB.java, run nothing",
    )
    args = parser.parse_args()
    if args.rows:
        import pyarrow.parquet as pq

        member = pq.read_table(presence_input(args.presence_seeds[0]), columns=[SUBSET]).column(0).to_pylist()
        Path(args.rows).write_text("".join(f"{i}\n" for i, m in enumerate(member) if m))
        return
    print(f"load: {os.getloadavg()}")
    print(
        "metric model s | optimum, lowest utility | paper / ours in %: Lightning(first) DataFly IGreedy | "
        "ours: ARX-benchmark DataFly, IGreedy"
    )
    rows = run(args.models, args.presence_seeds)
    print(f"load: {os.getloadavg()}")
    if args.json:
        write_json(args.json, rows)


if __name__ == "__main__":
    main()
