"""Two hierarchy shapes that once took minutes, run end to end on DuckDB and in memory: a 1 M-row,
five-level hierarchy under a table of 1,000 rows, and a 5,001-level one (200 leaves) under ten
rows. Every optimum is the numpy oracle's (``helpers/oracle.py``: every level of the one QI,
each metric from its definition), both engines release the same rows, and what a run builds
follows the data and the levels read, not the hierarchy: DuckDB's ENUM holds the leaves the
input holds, the kernel a code map per pair of levels a check reads. Not timed: the times are
measured in the issue."""

import random
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

from helpers.oracle import Oracle
from sqlanon import Attribute, Job, Output, Source, anonymize
from sqlanon.kernel.grouping import Maps
from sqlanon.errors import DataError, HierarchyError
from sqlanon.hierarchy import read_hierarchy
from sqlanon.metrics import METRICS
from sqlanon.session import ALL_NEEDS, Session

ZIP_ROWS = 1_000_000
DEEP_LEVELS = 5001
KS = (2, 3, 5)
LIMITS = (0.0, 0.05, 0.2)
# classification needs a label column; the others are each computed by the oracle
SEARCHED = [m for m in METRICS if m != "classification"]
ENGINES = ["duckdb", "memory"]


def zip_rows(folder, rng):
    """0000000;000000*;00000**;0000***;* for a million codes, and 1,000 rows over 25 blocks
    of a thousand codes, each of 4 hundreds of 3 tens (skewed, so k and the limit move the
    optimum between levels)."""
    path = folder / "zip.csv"
    path.write_text("".join(f"{i:07d};{i // 10:06d}*;{i // 100:05d}**;{i // 1000:04d}***;*\n" for i in range(ZIP_ROWS)))
    blocks = rng.sample(range(1000), 25)
    hundreds = {b: rng.sample(range(10), 4) for b in blocks}
    tens = {(b, h): rng.sample(range(10), 3) for b in blocks for h in hundreds[b]}
    values = []
    for _ in range(1000):
        b = blocks[min(int(rng.expovariate(0.12)), 24)]
        h = rng.choice(hundreds[b])
        values.append(f"{b * 1000 + h * 100 + rng.choice(tens[b, h]) * 10 + rng.randrange(10):07d}")
    return path, values


def deep_rows(folder, rng):
    """200 values; at level l (up to 8) those sharing their top 8 - l bits are one group, the
    same group above; ten rows."""
    path = folder / "deep.csv"
    rows = [
        [f"v{v}"] + [f"g{v >> min(l, 8)}_{min(l, 8)}" for l in range(1, DEEP_LEVELS - 1)] + ["*"] for v in range(200)
    ]
    path.write_text("".join(";".join(row) + "\n" for row in rows))
    return path, [f"v{v}" for v in (0, 1, 2, 3, 64, 65, 100, 130, 131, rng.randrange(200))]


@pytest.fixture(scope="module", params=["zip", "deep"])
def shape(request, tmp_path_factory):
    """(hierarchy file, its Hierarchy read once, data CSV, the data's values, the oracle's
    optima by (k, limit, metric))."""
    folder = tmp_path_factory.mktemp(request.param)
    rng = random.Random(37)
    hierarchy, values = (zip_rows if request.param == "zip" else deep_rows)(folder, rng)
    data = folder / "data.csv"
    data.write_text("x;y\n" + "".join(f"{v};{i}\n" for i, v in enumerate(values)))
    optima = Oracle(data, ";", {"x": hierarchy}).optima(KS, LIMITS, SEARCHED)
    return hierarchy, read_hierarchy(hierarchy, "x"), data, values, optima


def job_of(shape, engine, **kwargs):
    _, hierarchy, data, _, _ = shape
    return Job(
        input=Source(path=str(data), delimiter=";"),
        attributes=[Attribute("x", "quasi", hierarchy), Attribute("y", "insensitive")],
        engine=engine,
        **kwargs,
    )


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_every_optimum_is_the_oracles(shape, engine):
    """Flash on the one QI's chain of levels, for every metric, k and limit: the oracle's loss
    and node. The kernel builds at most one code map per check (one QI: one pair of levels),
    where it built one per pair of levels (12.5 M for 5,001 levels)."""
    *_, optima = shape
    with Session(job_of(shape, engine), needs=ALL_NEEDS) as session:
        assert session.placement == "local"
        kernel = session.runner
        checks = 0
        for metric in SEARCHED:
            for k in KS:
                for limit in LIMITS:
                    outcome, checker = session.search("flash", k=k, suppression_limit=limit, metric=metric)
                    checks += checker.checks
                    best, nodes = optima[(k, limit, metric)]
                    assert outcome.optimum.loss == pytest.approx(best, rel=1e-9, abs=1e-9), (metric, k, limit)
                    assert outcome.optimum.node in nodes, (metric, k, limit)
        assert 0 < len(kernel.maps.starts) <= checks < 10 * DEEP_LEVELS
        assert len(kernel.leaf_maps.starts) <= len(session.hierarchies[0].labels)


def test_the_optima_are_not_the_lattice_ends(shape):
    """The cases above reach inner levels, so a map between two inner levels is read."""
    *_, optima = shape
    levels = {node[0] for _, nodes in optima.values() for node in nodes}
    assert len(levels) >= 3 and levels - {0, max(levels)}


def read_back(path):
    if path.suffix == ".parquet":
        return pq.read_table(path).to_pylist()
    table = pacsv.read_csv(
        path, convert_options=pacsv.ConvertOptions(column_types={"x": pa.string(), "y": pa.string()})
    )
    return table.to_pylist()


@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_both_engines_release_the_same_rows(shape, tmp_path, kind):
    """A release with suppressed classes (k = 2, up to 20 % of the rows, level 1 of either
    shape): the same node and rows from both engines, the data generalized to that node."""
    hierarchy_path, hierarchy, _, values, optima = shape
    released = {}
    for engine in ENGINES:
        out = tmp_path / f"{engine}.{kind}"
        result = anonymize(
            job_of(
                shape, engine, k=2, suppression_limit=0.2, metric="entropy", output=Output(path=str(out), order="input")
            )
        )
        assert result.success and result.report["verified"]
        assert result.transformation in optima[(2, 0.2, "entropy")][1] and result.suppressed > 0
        released[engine] = read_back(out)
    assert released["duckdb"] == released["memory"]
    level = result.transformation[0]
    label = {row[0]: row[level] for row in hierarchy.rows}
    got = [row["x"] for row in released["duckdb"]]
    assert [x for x in got if x != "*"] == [label[v] for v, x in zip(values, got) if x != "*"]
    assert got.count("*") == result.suppressed


def test_duckdb_enum_holds_only_the_leaves_the_input_holds(shape):
    """A hierarchy of more leaves than the input has distinct rows (and at least 4,096):
    its ENUM lists the input's values, in code order; a smaller one keeps all its leaves."""
    _, hierarchy, _, values, _ = shape
    with Session(job_of(shape, "duckdb")) as session:
        ((found,),) = session.engine.con.execute("SELECT enum_range(NULL::sqlanon_enum_0)").fetchall()
    leaves = hierarchy.values
    position = {leaf: code for code, leaf in enumerate(leaves)}
    assert found == (sorted(set(values), key=position.get) if len(leaves) >= 4096 else leaves)


def test_a_value_missing_from_a_large_hierarchy_is_named(shape, tmp_path):
    """A value no leaf holds, and an empty one, are named as for any hierarchy (exit 2)."""
    _, _, data, values, _ = shape
    bad = tmp_path / "bad.csv"
    bad.write_text(data.read_text() + "no-such-value;1\n;2\n")
    for engine in ENGINES:
        job = replace(job_of(shape, engine, k=2), input=Source(path=str(bad), delimiter=";"))
        with pytest.raises(
            HierarchyError,
            match=r"column 'x' of .*bad.csv has 2 value\(s\) missing from its hierarchy "
            r"\(2 rows\), e.g. NULL/empty, 'no-such-value'",
        ) as error:
            anonymize(job)
        assert error.value.exit_code == 2


@pytest.mark.parametrize("shape", ["zip"], indirect=True)  # the one whose ENUM holds the input's leaves only
def test_an_input_changed_to_another_leaf_after_prepare_is_refused(shape, tmp_path):
    """DuckDB's release reads the input again through the ENUM of the leaves it held: a row
    rewritten to a leaf the input did not hold stops the run (exit 3), nothing is written."""
    _, hierarchy, data, values, _ = shape
    copy = tmp_path / "data.csv"
    copy.write_text(data.read_text())
    held = set(values)
    other = next(leaf for leaf in reversed(hierarchy.values) if leaf not in held)
    out = tmp_path / "out.csv"
    job = replace(
        job_of(shape, "duckdb", k=2, suppression_limit=0.2, output=Output(path=str(out))),
        input=Source(path=str(copy), delimiter=";"),
    )

    def rewrite(phase):
        if phase == "write":
            lines = copy.read_text().splitlines(keepends=True)
            lines[1] = f"{other};0\n"
            copy.write_text("".join(lines))

    with pytest.raises(
        DataError, match=rf"changed while it was anonymized: it now holds a value \('{other}'\)"
    ) as error:
        anonymize(job, on_phase=rewrite)
    assert error.value.exit_code == 3 and not out.exists()


def test_maps_built_on_first_read_keep_the_offsets_handed_out():
    """``Maps`` with a builder appends a map the first time ``offsets`` names it; the array
    grows, and an offset given before still finds its map, in the new array and the old one."""
    built = []

    def build(key):
        built.append(key)
        return np.arange(key[1]) * key[0]

    maps = Maps({"given": np.array([7, 8])}, build)
    first = maps.offsets([(2, 3), None, "given"])
    before = maps.values
    later = maps.offsets([(5, 1000), (2, 3)])
    assert built == [(2, 3), (5, 1000)] and first[1] == -1
    assert before[first[0] : first[0] + 3].tolist() == maps.values[later[1] : later[1] + 3].tolist() == [0, 2, 4]
    assert maps.values[first[2] : first[2] + 2].tolist() == [7, 8]
    assert maps.values[later[0] + 999] == 4995 and len(maps.values) == 2 + 3 + 1000
    with pytest.raises(KeyError):
        Maps({}).offsets([(1, 1)])
