"""Per-check overhead of the DuckDB engine: query variants for the same check, timed per node.

On ADULT (9 QIs) and ADULT replicated x40 with a deterministic age perturbation (generated
into a temporary directory, deleted afterwards), a Session is opened, Flash runs for
k = 5, s = 0 and k = 2, s = 0.02 (discernibility) and the nodes it checks are recorded
(``on_check``) together with its paths. Each variant below is then issued directly on
``session.engine.con`` against the prepared tables (``sqlanon_wide``) for those nodes and
must return the same figures as the engine's query for every node (asserted): classes, kept
classes, suppressed rows, smallest kept class, sums of squares (kept, all), smallest class.

Timing: one warm-up pass over the nodes, then ``--rounds`` passes; the figure is the median
over passes of the mean time per check (execute + fetch; SQL strings are built beforehand,
the Python cost of rendering is its own row). Run from the project root:

    python -m bench.check_overhead [--datasets adult adult40] [--rounds 5] [--sample 150]
        [--json bench/results/check_overhead.json] [--plot bench/check_overhead.png]
    python -m bench.check_overhead --from-json bench/results/check_overhead.json --plot bench/check_overhead.png
"""

from __future__ import annotations

from dataclasses import replace
import argparse
import json
import statistics
import tempfile
import warnings
import time
from pathlib import Path

import duckdb
import numpy as np
from sqlglot import exp

from bench.common import write_json
from bench.datasets import ADULT_CSV, dataset_job
from sqlanon import sql as c
from sqlanon.config.job import Source
from sqlanon.search.flash import Flash
from sqlanon.session import Session

CONFIGS = [(5, 0.0), (2, 0.02)]
BATCHES = [2, 4, 8, 16]
FIGURES = ("classes", "kept_classes", "suppressed", "min_kept", "dm_kept", "dm_all", "min_class")
INT63 = 2**63 - 1


def q(name: str) -> str:
    """A quoted identifier, rendered by sqlglot (as the engine does)."""
    return c.ident(name).sql("duckdb")


WIDE = q(c.WIDE)


def figures(row) -> tuple:
    return tuple(None if x is None else int(x) for x in row)


# -- data ----------------------------------------------------------------------------------------
def adult40(directory: Path, copies: int = 40) -> Path:
    """ADULT x``copies``; copy 0 is ADULT, copy i > 0 shifts each age by ((7 r + i) mod 5) - 2
    (r the row number), clamped to the hierarchy's 1..100: more distinct classes, same domains."""
    source = ADULT_CSV
    target = directory / "adult40.csv"
    con = duckdb.connect()
    names = [
        r[0]
        for r in con.execute(
            "DESCRIBE SELECT * FROM read_csv($p, delim = ';', header = true, all_varchar = true)", {"p": str(source)}
        ).fetchall()
    ]
    age = "CAST(LEAST(100, GREATEST(1, CAST(s.age AS INTEGER) + CASE WHEN t.i = 0 THEN 0 ELSE (7 * s.r + t.i) % 5 - 2 END)) AS VARCHAR)"
    select = ", ".join(f"{age} AS age" if n == "age" else f"s.{q(n)}" for n in names)
    con.execute(
        f"COPY (SELECT {select} FROM (SELECT *, row_number() OVER () AS r FROM read_csv($p, delim = ';', header = true, "
        f"all_varchar = true)) AS s, range({copies}) AS t(i) ORDER BY t.i, s.r) TO '{target}' (HEADER, DELIMITER ';')",
        {"p": str(source)},
    ).fetchall()
    con.close()
    return target


def record(session: Session, k: int, limit: float) -> tuple[list, list]:
    """The nodes Flash checks (in order) and its paths (each with the nodes checked on it)."""
    checked, paths = [], []
    original = Flash._check_path

    def check_path(self, path):
        before = len(checked)
        original(self, path)
        paths.append((list(path), checked[before:]))

    Flash._check_path = check_path
    try:
        session.search(
            "flash",
            k=k,
            suppression_limit=limit,
            metric="discernibility",
            on_check=lambda result: checked.append(result.node),
        )
    finally:
        Flash._check_path = original
    return checked, [p for p in paths if p[1]]


# -- SQL of the variants -------------------------------------------------------------------------
class Shapes:
    """SQL strings for every variant, from the prepared wide table's layout."""

    def __init__(self, con, tops: list[int], template: c.NodeTemplate):
        self.con = con
        self.tops = tops
        self.template = template
        self.d = len(tops)
        # radix of QI j at level l: largest code + 1 (codes are 0-based and dense per level)
        maxima = con.execute(
            "SELECT "
            + ", ".join(f"MAX({q(c.wide_column(j, l))})" for j, t in enumerate(tops) for l in range(t + 1))
            + f" FROM {WIDE}"
        ).fetchall()[0]
        it = iter(maxima)
        self.radix = [[int(next(it)) + 1 for _ in range(t + 1)] for t in tops]
        # level-independent strides for the pre-multiplied table and the prepared packed key
        self.fixed = [1] * self.d
        for j in range(self.d - 2, -1, -1):
            self.fixed[j] = self.fixed[j + 1] * max(self.radix[j + 1])
        if self.fixed[0] * max(self.radix[0]) > INT63:
            raise OverflowError("the packed key of the fixed strides does not fit a BIGINT")

    def cols(self, node) -> list[str]:
        return [q(c.wide_column(j, l)) for j, l in enumerate(node)]

    @staticmethod
    def reduce(inner: str, k: str = "$k", key: str = "") -> str:
        """The seven figures from a class table ``inner`` with column n, one level of FILTERs."""
        return (
            f"SELECT {key}COUNT(*), COUNT(*) FILTER (WHERE n >= {k}), COALESCE(SUM(n) FILTER (WHERE n < {k}), 0), "
            f"MIN(n) FILTER (WHERE n >= {k}), COALESCE(SUM(n * n) FILTER (WHERE n >= {k}), 0), SUM(n * n), MIN(n) "
            f"FROM ({inner}) AS cls"
        )

    def current(self, node) -> str:
        return self.template.render(node)

    def inlined(self, node, k: int) -> str:
        return self.template.render(node).replace("$k", str(int(k)))

    def flat(self, node, table: str = WIDE) -> str:
        cols = ", ".join(self.cols(node))
        return self.reduce(f"SELECT SUM(n) AS n FROM {table} GROUP BY {cols}")

    def verdict(self, node) -> str:
        cols = ", ".join(self.cols(node))
        return f"SELECT COALESCE(SUM(n) FILTER (WHERE n < $k), 0) FROM (SELECT SUM(n) AS n FROM {WIDE} GROUP BY {cols})"

    def needed(self, node) -> str:
        cols = ", ".join(self.cols(node))
        return (
            f"SELECT COALESCE(SUM(n) FILTER (WHERE n < $k), 0), COALESCE(SUM(n * n) FILTER (WHERE n >= $k), 0) "
            f"FROM (SELECT SUM(n) AS n FROM {WIDE} GROUP BY {cols})"
        )

    def packed(self, node) -> str | None:
        """GROUP BY one BIGINT: the level codes in mixed radix (tight per node); None on overflow."""
        radices = [self.radix[j][l] for j, l in enumerate(node)]
        total, strides = 1, []
        for r in reversed(radices):
            strides.append(total)
            total *= r
        if total > INT63:
            return None
        strides.reverse()
        key = " + ".join(
            f"CAST({col} AS BIGINT) * {s}" if s != 1 else f"CAST({col} AS BIGINT)"
            for col, s in zip(self.cols(node), strides)
        )
        return self.reduce(f"SELECT SUM(n) AS n FROM {WIDE} GROUP BY {key}")

    def premultiplied_table(self) -> None:
        cols = ", ".join(
            f"CAST({q(c.wide_column(j, l))} AS BIGINT) * {self.fixed[j]} AS {q(f'p{j}_{l}')}"
            for j, t in enumerate(self.tops)
            for l in range(t + 1)
        )
        self.con.execute(f"CREATE OR REPLACE TEMP TABLE ov_packed AS SELECT {cols}, n FROM {WIDE}").fetchall()

    def premultiplied(self, node) -> str:
        key = " + ".join(q(f"p{j}_{l}") for j, l in enumerate(node))
        return self.reduce(f"SELECT SUM(n) AS n FROM ov_packed GROUP BY {key}")

    def _case(self, j: int, param: str) -> str:
        whens = " ".join(f"WHEN {l} THEN {q(c.wide_column(j, l))}" for l in range(self.tops[j] + 1))
        return f"CASE {param} {whens} END"

    def prepare_case(self) -> None:
        keys = ", ".join(self._case(j, f"${j + 2}") for j in range(self.d))
        self.con.execute(
            f"PREPARE ov_case AS {self.reduce(f'SELECT SUM(n) AS n FROM {WIDE} GROUP BY {keys}', k='$1')}"
        ).fetchall()
        packed = " + ".join(f"CAST({self._case(j, f'${j + 2}')} AS BIGINT) * {self.fixed[j]}" for j in range(self.d))
        self.con.execute(
            f"PREPARE ov_case_packed AS {self.reduce(f'SELECT SUM(n) AS n FROM {WIDE} GROUP BY {packed}', k='$1')}"
        ).fetchall()

    @staticmethod
    def execute(name: str, node, k: int) -> str:
        return f"EXECUTE {name}({int(k)}, {', '.join(str(int(l)) for l in node)})"

    def union_all(self, nodes) -> str:
        parts = [
            self.reduce(f"SELECT SUM(n) AS n FROM {WIDE} GROUP BY {', '.join(self.cols(n))}", key=f"{i} AS i, ")
            for i, n in enumerate(nodes)
        ]
        return " UNION ALL ".join(parts)

    def grouping_sets(self, nodes) -> tuple[str, dict[int, int]]:
        """One GROUP BY GROUPING SETS over the nodes' columns; GROUPING() tells the node."""
        used = sorted({col for n in nodes for col in self.cols(n)})
        if len(used) > 62:
            raise ValueError("too many level columns for one GROUPING() bitmask")
        masks = {}
        for i, n in enumerate(nodes):
            mine = set(self.cols(n))
            masks[sum(1 << (len(used) - 1 - b) for b, col in enumerate(used) if col not in mine)] = i
        sets = ", ".join("(" + ", ".join(self.cols(n)) + ")" for n in nodes)
        inner = f"SELECT GROUPING({', '.join(used)}) AS g, SUM(n) AS n FROM {WIDE} GROUP BY GROUPING SETS ({sets})"
        body = self.reduce(inner, key="g, ")
        return body + " GROUP BY g", masks

    def cross_join(self, nodes) -> str:
        values = ", ".join(f"({i}, {', '.join(map(str, n))})" for i, n in enumerate(nodes))
        names = ", ".join(f"l{j}" for j in range(self.d))
        keys = ", ".join(self._case(j, f"v.l{j}") for j in range(self.d))
        inner = f"SELECT v.i, SUM(n) AS n FROM {WIDE}, (VALUES {values}) AS v(i, {names}) GROUP BY v.i, {keys}"
        return self.reduce(inner, key="i, ") + " GROUP BY i"

    def snapshot(self, node, name: str = "ov_snap") -> str:
        """CTAS of the node's classes, carrying every coarser level column along."""
        cols = ", ".join(q(c.wide_column(j, l)) for j, level in enumerate(node) for l in range(level, self.tops[j] + 1))
        return f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT {cols}, SUM(n) AS n FROM {WIDE} GROUP BY ALL"

    def small_table(self) -> None:
        """The wide table with the narrowest integer types (UTINYINT / USMALLINT codes)."""
        cols = []
        for j, t in enumerate(self.tops):
            for l in range(t + 1):
                kind = "UTINYINT" if self.radix[j][l] <= 256 else "USMALLINT"
                cols.append(f"CAST({q(c.wide_column(j, l))} AS {kind}) AS {q(c.wide_column(j, l))}")
        self.con.execute(
            f"CREATE OR REPLACE TEMP TABLE ov_small AS SELECT {', '.join(cols)}, CAST(n AS INTEGER) AS n FROM {WIDE}"
        ).fetchall()


def numpy_check(con, shapes: Shapes, k: int):
    """The same figures computed in memory from the wide table read once (a reference point for
    the cost of the SQL round trip, not a proposal for the DuckDB engine)."""
    names = [c.wide_column(j, l) for j, t in enumerate(shapes.tops) for l in range(t + 1)]
    table = con.execute(f"SELECT {', '.join(q(n) for n in names)}, n FROM {WIDE}").fetchnumpy()
    columns = {
        (j, l): np.asarray(table[c.wide_column(j, l)], dtype=np.int64) * shapes.fixed[j]
        for j, t in enumerate(shapes.tops)
        for l in range(t + 1)
    }
    n = np.asarray(table["n"], dtype=np.int64)

    def run(node):
        key = columns[0, node[0]].copy()
        for j in range(1, len(node)):
            key += columns[j, node[j]]
        _, inverse = np.unique(key, return_inverse=True)
        sizes = np.bincount(inverse.ravel(), weights=n).astype(np.int64)
        kept = sizes >= k
        squares = sizes * sizes
        return (
            len(sizes),
            int(kept.sum()),
            int(sizes[~kept].sum()),
            int(sizes[kept].min()) if kept.any() else None,
            int(squares[kept].sum()),
            int(squares.sum()),
            int(sizes.min()),
        )

    return run


# -- timing --------------------------------------------------------------------------------------
class Variant:
    """One way of checking ``items``: ``run(item)`` returns {node: figures} (or None when the
    variant returns no figures); ``per`` nodes per item; SQL ``setup``/``teardown`` around a pass."""

    def __init__(self, name, run, items, per=1, note="", setup=(), teardown=(), verify=True):
        self.name, self.run, self.items, self.per, self.note = name, run, items, per, note
        self.setup, self.teardown, self.verify = setup, teardown, verify
        self.passes: list[float] = []


def run_all(con, variants: list[Variant], truth: dict, rounds: int) -> None:
    """A warm-up pass (verified against ``truth``), then ``rounds`` passes, the variants
    interleaved within each pass so that load from other processes hits them alike."""
    for r in range(rounds + 1):
        for v in variants:
            for statement in v.setup:
                con.execute(statement).fetchall()
            started = time.perf_counter()
            out = [v.run(x) for x in v.items]
            seconds = time.perf_counter() - started
            for statement in v.teardown:
                con.execute(statement).fetchall()
            if r == 0:
                if v.verify:
                    for got in out:
                        for node, value in got.items():
                            assert value == truth[node], (v.name, node, value, truth[node])
            else:
                v.passes.append(seconds / (len(v.items) * v.per))


def sample(nodes: list, size: int) -> list:
    if len(nodes) <= size:
        return list(nodes)
    step = len(nodes) / size
    return [nodes[int(i * step)] for i in range(size)]


def measure(
    session: Session,
    name: str,
    k: int,
    limit: float,
    checked: list,
    paths: list,
    rounds: int,
    size: int,
    only: list[str] = (),
) -> list[dict]:
    con = session.engine.con
    template = next(t for shape, t in session.runner.shapes._templates.items() if shape[0] == "stats")
    tops = [len(h.labels) - 1 for h in session.hierarchies]
    shapes = Shapes(con, tops, template)
    nodes = sample(checked, size)
    params = {"k": k}
    threads = con.execute("SELECT current_setting('threads')").fetchall()[0][0]
    lean = (
        ["SET enable_optimizer = false", "SET enable_progress_bar = false"],
        ["RESET enable_optimizer", "RESET enable_progress_bar"],
    )
    single = (["SET threads = 1"], [f"SET threads = {threads}"])
    lean1 = (lean[0] + single[0], lean[1] + single[1])
    variants: list[Variant] = []

    def one(sqls: dict, with_params: bool = True, fetch=lambda cursor: cursor.fetchall()[0]):
        def run(n):
            return {n: figures(fetch(con.execute(sqls[n], params) if with_params else con.execute(sqls[n])))}

        return run

    def many(sqls: dict):
        """Batch queries returning (index or GROUPING mask, figures...) rows."""

        def run(batch):
            sql, masks = sqls[batch]
            return {
                batch[masks[int(r[0])] if masks else int(r[0])]: figures(r[1:])
                for r in con.execute(sql, params).fetchall()
            }

        return run

    def add(variant: str, run, items=None, **kw) -> None:
        if items is not None and not items:
            return
        variants.append(Variant(variant, run, nodes if items is None else items, **kw))

    # reference figures of every node timed (sampled checks and every node of the timed paths)
    path_sample = sample(paths, max(4, size // 8))
    whole = [tuple(p) for p, _ in path_sample]
    made = sum(len(m) for _, m in path_sample)
    length = sum(len(p) for p in whole)
    every = list(dict.fromkeys(nodes + [n for p in whole for n in p]))
    current = {n: shapes.current(n) for n in every}
    truth = {n: figures(con.execute(current[n], params).fetchall()[0]) for n in every}
    print(
        f"{name} k={k} s={limit}: {len(checked)} checks, {len(nodes)} timed, {len(paths)} paths "
        f"({len(whole)} timed, mean {length / len(whole):.1f} nodes, {made / len(whole):.2f} checked each)",
        flush=True,
    )

    add("1 current stats query (engine template)", one(current))
    # Python side and floors
    add("  python: NodeTemplate.render alone", lambda n: template.render(n) and {}, verify=False)
    checker = session.checker(k=k, suppression_limit=limit, metric="discernibility")
    add(
        "  engine.class_stats (render + execute + ClassStats)",
        lambda n: session.runner.class_stats(n, checker.keep, checker.params, checker.needs) and {},
        verify=False,
    )
    add("  floor: SELECT 1", lambda n: con.execute("SELECT 1").fetchall() and {}, verify=False)
    bare = {n: f"SELECT COUNT(*) FROM (SELECT 1 FROM {WIDE} GROUP BY {', '.join(shapes.cols(n))})" for n in nodes}
    add("  floor: bare GROUP BY, COUNT(*)", lambda n: con.execute(bare[n]).fetchall() and {}, verify=False)

    # 2: one level of FILTERs; k inlined; only the verdict's figure
    flat = {n: shapes.flat(n) for n in nodes}
    add("2 FILTER aggregates, one nesting level", one(flat))
    inlined = {n: shapes.inlined(n, k) for n in nodes}
    add("2b current with k inlined (no bound parameter)", one(inlined, with_params=False))
    verdict = {n: shapes.verdict(n) for n in nodes}

    def run_verdict(n):
        value = int(con.execute(verdict[n], params).fetchall()[0][0])
        assert value == truth[n][2], ("verdict", n)
        return {}

    add("2c suppressed rows only (the verdict's figure)", run_verdict, verify=False)
    needed = {n: shapes.needed(n) for n in nodes}

    def run_needed(n):
        suppressed, dm_kept = (int(x) for x in con.execute(needed[n], params).fetchall()[0])
        assert (suppressed, dm_kept) == (truth[n][2], truth[n][4]), ("needed", n)
        return {}

    add("2d only what discernibility needs (suppressed, dm_kept)", run_needed, verify=False)

    # 3: packed keys
    packed = {n: shapes.packed(n) for n in nodes}
    overflow = sum(v is None for v in packed.values())
    assert not overflow, f"{overflow} nodes overflow a BIGINT key"
    add("3 packed BIGINT key (casts, per-node radix)", one(packed))
    shapes.premultiplied_table()
    add("3b packed key from pre-multiplied BIGINT columns", one({n: shapes.premultiplied(n) for n in nodes}))

    # 4: PREPARE once, levels as parameters
    shapes.prepare_case()
    add("4 PREPARE + EXECUTE, CASE $level per QI", one({n: shapes.execute("ov_case", n, k) for n in nodes}, False))
    add(
        "4b PREPARE + EXECUTE, CASE + packed key",
        one({n: shapes.execute("ov_case_packed", n, k) for n in nodes}, False),
    )

    # 5: batches of N nodes in one query (per-node cost); a whole Flash path in one query
    def batches(tag: str, others: bool, settings=((), ())) -> None:
        for n_ in BATCHES:
            chunks = [tuple(nodes[i : i + n_]) for i in range(0, len(nodes) - n_ + 1, n_)]
            if others:
                add(
                    f"{tag} N={n_}: UNION ALL",
                    many({ch: (shapes.union_all(ch), None) for ch in chunks}),
                    chunks,
                    per=n_,
                    note="per node",
                    setup=settings[0],
                    teardown=settings[1],
                )
            add(
                f"{tag} N={n_}: GROUPING SETS",
                many({ch: shapes.grouping_sets(ch) for ch in chunks}),
                chunks,
                per=n_,
                note="per node",
                setup=settings[0],
                teardown=settings[1],
            )
            if others and n_ <= 4:
                add(
                    f"{tag} N={n_}: node-id cross join + CASE",
                    many({ch: (shapes.cross_join(ch), None) for ch in chunks}),
                    chunks,
                    per=n_,
                    note="per node",
                    setup=settings[0],
                    teardown=settings[1],
                )
        add(
            f"{tag} Flash path, GROUPING SETS: per Flash check",
            many({p: shapes.grouping_sets(p) for p in whole}),
            whole,
            per=made / len(whole),
            note=f"whole path ({length / len(whole):.1f} nodes) vs its {made / len(whole):.2f} checks",
            setup=settings[0],
            teardown=settings[1],
        )

    batches("5 batch", True)

    # 6: threads
    add("6 current, threads = 1", one(current), setup=single[0], teardown=single[1])

    # 7: snapshot of a more specialized node already checked (the latest one below)
    pairs = []
    for i, b in enumerate(checked):
        for a in reversed(checked[:i]):
            if a != b and all(x <= y for x, y in zip(a, b)):
                pairs.append((a, b))
                break
    pairs = sample(pairs, max(8, size // 4))
    snap_rows = []
    for i, (a, b) in enumerate(pairs):
        con.execute(shapes.snapshot(a, f"ov_snap_{i}")).fetchall()
        snap_rows.append(con.execute(f"SELECT COUNT(*) FROM ov_snap_{i}").fetchall()[0][0])
        truth[b] = truth.get(b) or figures(con.execute(shapes.current(b), params).fetchall()[0])
    if pairs:
        ctas = {p: shapes.snapshot(p[0]) for p in pairs}
        add(
            "7 snapshot: CTAS of the finer node's classes",
            lambda p: con.execute(ctas[p]).fetchall() and {},
            pairs,
            verify=False,
        )
        from_snap = {b: shapes.current(b).replace(WIDE, q(f"ov_snap_{i}")) for i, (_, b) in enumerate(pairs)}
        add(
            "7 snapshot: check from it (current query)",
            one(from_snap),
            [b for _, b in pairs],
            note=f"snapshot {statistics.median(snap_rows):.0f} of {session.prepared.base_classes} rows (median)",
        )

    # 8: settings, fetch styles, table types, references
    add(
        "8 current, enable_progress_bar = false",
        one(current),
        setup=["SET enable_progress_bar = false"],
        teardown=["RESET enable_progress_bar"],
    )
    add(
        "8 current, statistics_propagation disabled",
        one(current),
        setup=["SET disabled_optimizers = 'statistics_propagation'"],
        teardown=["RESET disabled_optimizers"],
    )
    add(
        "8 current, optimizer off",
        one(current),
        setup=["SET enable_optimizer = false"],
        teardown=["RESET enable_optimizer"],
    )
    add("8 FILTER + optimizer off + progress bar off", one(flat), setup=lean[0], teardown=lean[1])
    add("8 FILTER + optimizer, progress bar off + threads = 1", one(flat), setup=lean1[0], teardown=lean1[1])
    add(
        "8 FILTER + pre-multiplied key + optimizer, progress bar off",
        one({n: shapes.premultiplied(n) for n in nodes}),
        setup=lean[0],
        teardown=lean[1],
    )
    add(
        "8 2d (discernibility's figures) + optimizer, progress bar off",
        run_needed,
        verify=False,
        setup=lean[0],
        teardown=lean[1],
    )
    add("8 2d + optimizer, progress bar off + threads = 1", run_needed, verify=False, setup=lean1[0], teardown=lean1[1])
    shapes.small_table()
    needed_small = {n: needed[n].replace(WIDE, q("ov_small")) for n in nodes}

    def run_needed_small(n):
        suppressed, dm_kept = (int(x) for x in con.execute(needed_small[n], params).fetchall()[0])
        assert (suppressed, dm_kept) == (truth[n][2], truth[n][4]), ("needed, narrow", n)
        return {}

    add(
        "8 2d + optimizer, progress bar off + threads = 1 + narrow types",
        run_needed_small,
        verify=False,
        setup=lean1[0],
        teardown=lean1[1],
    )
    batches("8 lean batch", False, lean)
    batches("8 lean batch, threads = 1", False, lean1)
    add("8 current, fetchone", one(current, fetch=lambda cursor: cursor.fetchone()))
    add("8 current, Arrow result", lambda n: con.execute(current[n], params).to_arrow_table() and {}, verify=False)
    warnings.filterwarnings("ignore", "Arrow output on a DB-API result")
    add("8 current via con.sql (relation API, k inlined)", lambda n: {n: figures(con.sql(inlined[n]).fetchall()[0])})
    add(
        "8 current over narrow types (UTINYINT codes)", one({n: current[n].replace(WIDE, q("ov_small")) for n in nodes})
    )
    joined = {
        n: c.stats_query(n, exp.GTE(this=c.col("n"), expression=c.param("k")), False, lookup="join").sql("duckdb")
        for n in nodes
    }
    add("  reference: join layout (lookup = join)", one(joined))
    in_memory = numpy_check(con, shapes, k)
    add("  reference: numpy over the class table (no SQL)", lambda n: {n: in_memory(n)})

    if only:
        variants = [v for v in variants if v is variants[0] or any(o in v.name for o in only)]
    run_all(con, variants, truth, rounds)

    notes = []
    try:
        cursor = con.cursor()
        cursor.execute(current[nodes[0]], params).fetchall()
        cursor.close()
    except duckdb.Error as error:
        notes.append("con.cursor() reuse: n/a, " + str(error).splitlines()[0][:60])
    for statement in [
        "DEALLOCATE ov_case",
        "DEALLOCATE ov_case_packed",
        "DROP TABLE ov_packed",
        "DROP TABLE ov_small",
        "DROP TABLE IF EXISTS ov_snap",
    ] + [f"DROP TABLE ov_snap_{i}" for i in range(len(pairs))]:
        con.execute(statement).fetchall()

    base = statistics.median(variants[0].passes)
    rows = []
    for v in variants:
        ms = 1000 * statistics.median(v.passes)
        rows.append(
            {
                "dataset": name,
                "k": k,
                "s": limit,
                "variant": v.name,
                "ms": ms,
                "ratio": ms / (1000 * base),
                "note": v.note,
                "passes_ms": [1000 * x for x in v.passes],
            }
        )
        print(f"  {v.name:<62} {ms:8.3f} ms {ms / (1000 * base):6.2f}  {v.note}", flush=True)
    for note in notes:
        print("  " + note)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.check_overhead", description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["adult", "adult40"], choices=["adult", "adult40"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--sample", type=int, default=100, help="at most this many checked nodes timed per configuration"
    )
    parser.add_argument("--sample40", type=int, default=40, help="the same for ADULT x40")
    parser.add_argument("--rounds40", type=int, default=3, help="timed passes for ADULT x40")
    parser.add_argument("--json", help="write the rows as JSON to this file")
    parser.add_argument("--plot", help="write a bar chart (PNG) to this file")
    parser.add_argument("--only", nargs="+", default=[], help="time only the variants whose name contains one of these")
    parser.add_argument("--from-json", help="print the tables (and --plot) from a saved JSON file; measure nothing")
    args = parser.parse_args()
    if args.from_json:
        rows = json.loads(Path(args.from_json).read_text())["rows"]
        print_tables(rows)
        if args.plot:
            plot(rows, args.plot)
        return

    rows, meta, recorded = [], {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ["adult"] + [d for d in args.datasets if d != "adult"]:
            job = dataset_job("adult", metric="discernibility", checks="sql")  # SQL checks: this measures them
            if name == "adult40":
                job = replace(job, input=Source(path=str(adult40(Path(tmp))), delimiter=";"))
            with Session(job) as session:
                meta[name] = {
                    "rows": session.rows,
                    "base_classes": session.prepared.base_classes,
                    "prepare_s": session.prepare_seconds,
                }
                print(
                    f"{name}: {session.rows} rows, {session.prepared.base_classes} base classes, "
                    f"prepare {session.prepare_seconds:.2f} s",
                    flush=True,
                )
                for k, limit in CONFIGS:
                    started = time.perf_counter()
                    checked, paths = record(session, k, limit)
                    meta[name][f"k{k}_s{limit}"] = {
                        "flash_checks": len(checked),
                        "search_s": time.perf_counter() - started,
                    }
                    if name == "adult":
                        recorded[k, limit] = checked, paths
                    else:
                        # Replication makes most classes large: Flash checks only a handful of nodes
                        # here, so ADULT's checked nodes and paths are timed on the bigger table.
                        print(f"{name} k={k} s={limit}: Flash checks {len(checked)} nodes; timing ADULT's", flush=True)
                        checked, paths = recorded[k, limit]
                    if name not in args.datasets:
                        continue
                    big = name == "adult40"
                    rows += measure(
                        session,
                        name,
                        k,
                        limit,
                        checked,
                        paths,
                        args.rounds40 if big else args.rounds,
                        args.sample40 if big else args.sample,
                        args.only,
                    )
    print_tables(rows)
    if args.json:
        write_json(args.json, {"duckdb": duckdb.__version__, "datasets": meta, "rows": rows})
    if args.plot:
        plot(rows, args.plot)


def print_tables(rows: list[dict]) -> None:
    keys = list(dict.fromkeys((r["dataset"], r["k"], r["s"]) for r in rows))
    datasets = list(dict.fromkeys(r["dataset"] for r in rows))
    for name in datasets:
        configs = [key for key in keys if key[0] == name]
        variants = list(dict.fromkeys(r["variant"] for r in rows if r["dataset"] == name))
        by = {(r["dataset"], r["k"], r["s"], r["variant"]): r for r in rows}
        head = f"{'variant':<62}" + "".join(f" {'k=%d s=%g ms' % (k, s):>15} {'ratio':>6}" for _, k, s in configs)
        print(f"\n{name}\n{head}\n{'-' * len(head)}")
        for v in variants:
            line = f"{v:<62}"
            for _, k, s in configs:
                r = by.get((name, k, s, v))
                line += (
                    f" {r['ms']:>15.3f} {r['ratio']:>6.2f}" if r and r["ratio"] is not None else f" {'-':>15} {'-':>6}"
                )
            print(line)


def plot(rows: list[dict], path: str) -> None:
    """One panel per dataset and configuration: each variant's time as a ratio to the current query."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = list(dict.fromkeys((r["dataset"], r["k"], r["s"]) for r in rows))
    variants = list(dict.fromkeys(r["variant"] for r in rows if r["ratio"] is not None))
    fig, axes = plt.subplots(1, len(panels), figsize=(3.2 * len(panels) + 4, 0.22 * len(variants) + 1.5), sharey=True)
    axes = list(axes) if len(panels) > 1 else [axes]
    for ax, (name, k, s) in zip(axes, panels):
        by = {
            r["variant"]: r for r in rows if (r["dataset"], r["k"], r["s"]) == (name, k, s) and r["ratio"] is not None
        }
        values = [by[v]["ratio"] if v in by else 0 for v in variants]
        colors = [
            "tab:red" if v.startswith("1 ") else "tab:gray" if v.startswith(" ") else "tab:blue" for v in variants
        ]
        ax.barh(range(len(variants)), values, color=colors)
        ax.axvline(1.0, color="black", linewidth=0.8)
        current = by[variants[0]]["ms"]
        ax.set_title(f"{name}, k={k}, s={s}\n(current {current:.1f} ms)", fontsize=9)
        ax.set_xlabel("time per check / current", fontsize=8)
        ax.set_xlim(0, 3.2)
    axes[0].set_yticks(range(len(variants)))
    axes[0].set_yticklabels([v.strip() for v in variants], fontsize=7)
    axes[0].invert_yaxis()  # shared: once
    fig.tight_layout()
    fig.savefig(path, dpi=100)


if __name__ == "__main__":
    main()
