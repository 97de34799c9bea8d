"""Golden SQL: what the compiler renders for fixed inputs sits in sql/*.sql (DuckDB) and
sql/<dialect>/*.sql (postgres, spark), beside the input that produced it. Set
SQLANON_REGEN_GOLDEN=1 to rewrite them after a deliberate change."""

from dataclasses import replace
import hashlib
import itertools
import os
import random

import duckdb
import pytest
import sqlglot

from helpers.jobs import ROOT, table_job
from sqlanon import sql as c
from sqlanon.criteria import KAnonymity
from sqlanon.sql.dialects import DIALECTS, render
from sqlanon.session import ALL_NEEDS, Session

KEEP = KAnonymity(5).class_condition(c.col("n"))


def _models_check():
    from sqlanon.checks.checker import Conditions
    from sqlanon.criteria import build_models

    node = (0, 2, 1)
    conditions = Conditions(
        build_models(
            [
                {"type": "k-anonymity", "k": 5},
                {"type": "recursive-cl-diversity", "attribute": "diagnosis", "c": 3, "l": 2},
                {"type": "t-closeness", "attribute": "diagnosis", "t": 0.2},
            ],
        )
    )
    figures = conditions.figures(lambda name: c.histogram_query(node, 0), c.class_keys(node))
    return c.stats_query(node, conditions(c.col("n")), with_leaves=False, lookup="wide", figures=figures)


def _presence_check():
    from sqlanon.checks.checker import Conditions
    from sqlanon.criteria import build_models

    node = (0, 2, 1)
    conditions = Conditions(
        build_models(
            [{"type": "k-anonymity", "k": 5}, {"type": "delta-presence", "dmin": 0.1, "dmax": 0.5, "subset": "in"}]
        )
    )
    return c.stats_query(
        node, conditions(c.col("n")), with_leaves=False, lookup="wide", figures=[c.population_query(node)]
    )


def _output(shuffled: bool = False):
    return c.output_query(
        (0, 2, 1),
        lambda size: KAnonymity(5).class_condition(size),
        [("age", "qi", 0), ("marital-status", "qi", 1), ("select", "qi", 2), ("diagnosis", "pass", 0)],
        drop_suppressed=False,
        shuffled=shuffled,
    )


CASES = {
    "stats_wide.sql": lambda: c.stats_query((0, 2, 1), KEEP.copy(), with_leaves=True, lookup="wide"),
    "stats_lean.sql": lambda: c.lean_stats_query((0, 2, 1), KEEP.copy(), with_leaves=True),
    "stats_sizes.sql": lambda: c.size_histogram_query((0, 2, 1), KEEP.copy()),
    "stats_join.sql": lambda: c.stats_query((0, 2, 1), KEEP.copy(), with_leaves=True, lookup="join"),
    "suppressed_histograms.sql": lambda: c.suppressed_histogram_query((0, 2, 1), KEEP.copy()),
    "output.sql": lambda: _output(),
    "stats_models.sql": _models_check,
    "stats_presence.sql": _presence_check,
    "snapshot_from_base.sql": lambda: c.create_temp_table(
        "sqlanon_snap_1", c.snapshot_query((0, 2, 1), (2, 3, 1), True, 1, True, None, "join")
    ),
    "snapshot_rollup.sql": lambda: c.create_temp_table(
        "sqlanon_snap_2", c.snapshot_query((1, 2, 1), (2, 3, 1), False, 0, False, "sqlanon_snap_1", "wide")
    ),
    "encode.sql": lambda: c.encode_query(["age", "marital-status", '"; drop table x; --'], ["diagnosis"]),
    "classes.sql": lambda: c.create_temp_table(c.CLASSES, c.base_classes_query(3, 1, lnx=True)),
    "wide.sql": lambda: c.create_temp_table(
        c.WIDE, c.wide_query([2, 3, 1], True, 1, True, [[9, 4, 1], [300, 20, 5, 1], [2, 1]])
    ),
}
# Read from a snapshot: the engines fill the wide-layout template and swap the table's name.
SNAPSHOT_CASES = {"check_snapshot.sql": lambda: c.lean_stats_query((1, 2, 1), KEEP.copy(), with_leaves=True)}


def golden_path(dialect: str, name: str):
    return ROOT / "sql" / name if dialect == "duckdb" else ROOT / "sql" / dialect / name


def rendered(dialect: str, name: str) -> str:
    if name in SNAPSHOT_CASES:
        sql = render(SNAPSHOT_CASES[name](), dialect, pretty=True)
        return sql.replace(c.ident(c.WIDE).sql(dialect), c.ident("sqlanon_snap_1").sql(dialect)) + "\n"
    return render(CASES[name](), dialect, pretty=True) + "\n"


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("name", sorted([*CASES, *SNAPSHOT_CASES]))
def test_golden_sql(dialect, name):
    sql = rendered(dialect, name)
    path = golden_path(dialect, name)
    if os.environ.get("SQLANON_REGEN_GOLDEN"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(sql)
    assert sql == path.read_text()
    sqlglot.parse_one(sql, read=dialect)  # it is valid SQL for the dialect, as sqlglot reads it


@pytest.mark.parametrize(
    "dialect, order",
    [
        (
            "duckdb",
            """CAST(CAST('x' || SUBSTRING(SHA256($order_key || CAST("o"."__row" AS TEXT)), 1, 15) AS BIT(60)) AS BIGINT)""",
        ),
        (
            "postgres",
            """CAST(CAST('x' || SUBSTRING(ENCODE(SHA256(CONVERT_TO(%(order_key)s || CAST("o"."__row" AS TEXT), 'UTF8')),"""
            """ 'hex') FROM 1 FOR 15) AS BIT(60)) AS BIGINT)""",
        ),
        (
            "spark",
            "CAST(CONV(SUBSTRING(SHA2(CONCAT(:order_key, CAST(`o`.`__row` AS STRING)), 256), 1, 15), 16, 10) AS BIGINT)",
        ),
    ],
)
def test_the_shuffled_output_is_output_sql_sorted_by_the_keyed_hash(dialect, order):
    """The shuffle changes the golden output query in its ORDER BY alone: the first 15 hex
    digits of SHA-256 of the bound key and the row's position, as a BIGINT, then the position
    (PostgreSQL hashes the text's bytes and hex-encodes the digest as the other dialects do;
    Spark, which has no bit strings, reads the digits with CONV)."""
    position = c.col(c.ROW, "o").sql(dialect)
    plain = rendered(dialect, "output.sql")
    assert plain.endswith(f"ORDER BY\n  {position}\n")
    shuffled = render(_output(shuffled=True), dialect, pretty=True) + "\n"
    assert shuffled == plain[: -len(position) - 1] + f"{order},\n  {position}\n"
    sqlglot.parse_one(render(_output(shuffled=True), dialect), read=dialect)


def test_the_shuffle_key_is_the_digests_first_60_bits_as_duckdb_computes_it():
    """DuckDB's value of the key is the number Python reads from the same digest's first 15
    hex digits: below 2^60, so non-negative as a BIGINT (positions of 1 to 6 digits)."""
    key, positions = "c0ffee" * 10 + "beef", [0, 1, 9, 10, 99, 12345, 999999]
    sql = render(c.shuffle_key(c.col("p")), "duckdb")
    got = (
        duckdb.connect()
        .execute(f'SELECT {sql} FROM unnest($positions) AS t("p")', {"order_key": key, "positions": positions})
        .fetchall()
    )
    expected = [int(hashlib.sha256(f"{key}{p}".encode()).hexdigest()[:15], 16) for p in positions]
    assert [r[0] for r in got] == expected and all(0 <= x < 2**60 for x in expected)


@pytest.mark.parametrize("name", sorted([*CASES, *SNAPSHOT_CASES]))
def test_golden_sql_avoids_what_postgresql_rejects(name):
    """sqlglot passes through what PostgreSQL and Spark refuse: GROUP BY ALL, unsigned types,
    and (PostgreSQL before 16) a derived table without an alias."""
    for dialect in ("postgres", "spark"):
        sql = rendered(dialect, name).upper()
        assert "GROUP BY ALL" not in sql and "UTINYINT" not in sql and "USMALLINT" not in sql, (dialect, name)
    tree = sqlglot.parse_one(rendered("postgres", name), read="postgres")
    for derived in tree.find_all(sqlglot.exp.Subquery):
        assert derived.alias, (name, derived.sql("postgres")[:80])


@pytest.mark.parametrize("dialect", DIALECTS)
def test_golden_batch_sql(dialect):
    """Two nodes' lean checks in one statement (``SqlEngine.class_stats_many``)."""
    sql = (
        c.batch_query(
            [render(c.size_histogram_query(node, KEEP.copy()), dialect) for node in [(0, 2, 1), (1, 0, 1)]], dialect
        )
        + "\n"
    )
    path = golden_path(dialect, "check_batch.sql")
    if os.environ.get("SQLANON_REGEN_GOLDEN"):
        path.write_text(sql)
    assert sql == path.read_text()
    tree = sqlglot.parse_one(sql, read=dialect)
    assert all(i.quoted or i.name == "k" for i in tree.find_all(sqlglot.exp.Identifier))  # k: a bound parameter
    assert all(derived.alias for derived in tree.find_all(sqlglot.exp.Subquery))  # PostgreSQL < 16 needs them


def test_golden_tagged_batch_sql():
    """DuckDB's batch of class sizes (``sizes_in_process``): each part's rows carry their tag
    from the template, no wrapping projection; every identifier quoted."""
    template = c.NodeTemplate(lambda n: c.class_sizes_query(n, slot=True, tagged=True), 3, "duckdb")
    parts = [template.render(node, c.group_key_names(node), tag) for tag, node in enumerate([(0, 2, 1), (1, 0, 1)])]
    sql = c.batch_query(parts, "duckdb", tagged=True) + "\n"
    path = golden_path("duckdb", "check_batch_sizes.sql")
    if os.environ.get("SQLANON_REGEN_GOLDEN"):
        path.write_text(sql)
    assert sql == path.read_text()
    tree = sqlglot.parse_one(sql, read="duckdb")
    assert all(i.quoted for i in tree.find_all(sqlglot.exp.Identifier))
    for tag, part in enumerate(parts):  # the template renders what the builder builds, with the tag
        node = [(0, 2, 1), (1, 0, 1)][tag]
        built = c.class_sizes_query(node, tagged=True).sql("duckdb")
        assert part == built.replace(sqlglot.exp.column(c.TAG, quoted=True).sql("duckdb"), str(tag))


def test_every_identifier_is_quoted():
    for build in CASES.values():
        for identifier in build().find_all(sqlglot.exp.Identifier):
            assert identifier.quoted, identifier


def test_template_renders_the_same_sql_as_the_builder():
    keep = KAnonymity(3).class_condition(c.col("n"))
    template = c.NodeTemplate(lambda n: c.stats_query(n, keep.copy(), True), 3, "duckdb")
    for node in [(0, 0, 0), (1, 2, 0), (2, 0, 1)]:
        assert template.render(node) == c.stats_query(node, keep.copy(), True).sql("duckdb")
    # a lean check's template: its keys slot becomes each node's keys
    lean = c.NodeTemplate(lambda n: c.lean_stats_query(n, keep.copy(), True, slot=True), 3, "duckdb")
    for node, alike in [((0, 0, 0), ()), ((1, 2, 0), (False, True, False)), ((2, 0, 1), (False, False, False))]:
        keys = c.group_key_names(node, alike, (0,))
        assert lean.render(node, keys) == c.lean_stats_query(node, keep.copy(), True, alike=alike, pairs=(0,)).sql(
            "duckdb"
        )


def test_wide_and_join_layouts_agree_on_every_node():
    hier = {"A": [["x", "xy", "*"], ["y", "xy", "*"], ["z", "z", "*"]], "B": [["p", "*"], ["q", "*"]]}
    rows = {"A": list("xxyyzzxz"), "B": list("pppqqqqp")}
    results = {}
    for lookup in ("wide", "join"):
        job = table_job(rows, hier, k=2, suppression_limit=0.5)
        job = replace(job, lookup=lookup)
        with Session(job, needs=ALL_NEEDS) as session:
            checker = session.checker(metric="entropy")
            results[lookup] = [checker.check(node).stats for node in session.lattice.nodes()]
    assert results["wide"] == results["join"]


def test_lean_checks_leave_out_the_qis_whose_level_has_one_value():
    """A QI whose level holds one value (a hierarchy's top) splits no class: the lean checks
    group without it, and with no QI left the rows are one class, or none without rows."""
    sql = c.size_histogram_query((0, 2, 1), KEEP.copy(), (False, True, False)).sql("duckdb")
    assert '"q0_0"' in sql and '"q2_1"' in sql and '"q1_2"' not in sql
    lean = c.lean_stats_query((0, 2, 1), KEEP.copy(), True, alike=(True, True, True)).sql("duckdb")
    assert "GROUP BY" not in lean and '"c1_2"' in lean  # the leaf counts are still read
    con = duckdb.connect()
    con.execute('CREATE TABLE "sqlanon_wide" ("q0_0" INT, "q0_1" INT, "n" INT)')
    everything = c.size_histogram_query((1,), KEEP.copy(), (True,)).sql("duckdb")
    assert con.execute(everything, {"k": 2}).fetchall() == []
    con.execute('INSERT INTO "sqlanon_wide" VALUES (0, 0, 2), (1, 0, 3)')
    assert con.execute(everything, {"k": 2}).fetchall() == [(5, 1, True)]


def test_paired_keys_group_as_the_two_codes_do():
    """``with_pairs`` stores two QIs' codes in one key per pair of levels; a check grouped by
    the pair keys (``group_key_names``) finds the classes the separate codes give, on every node."""
    sizes = [[3, 2, 1], [4, 1], [5, 2, 1], [2, 1], [300, 1]]
    con = duckdb.connect()
    columns = ", ".join(f'"{c.wide_column(j, l)}" INT' for j, s in enumerate(sizes) for l in range(len(s)))
    con.execute(f'CREATE TABLE "sqlanon_classes" ({columns}, "n" INT)')
    parents = {0: [0, 0, 1], 2: [0, 1, 1, 0, 1]}  # level-1 code of each leaf (the rest: one value)
    rng = random.Random(7)
    for _ in range(200):
        leaves = [rng.randrange(s[0]) for s in sizes]
        values = []
        for j, s in enumerate(sizes):
            values += [leaves[j]] + [parents[j][leaves[j]] if l == 1 and j in parents else 0 for l in range(1, len(s))]
        con.execute(f'INSERT INTO "sqlanon_classes" VALUES ({", ".join(map(str, values))}, {rng.randint(1, 9)})')
    pairs = c.pairable(sizes)
    assert pairs == (0, 2)  # QI 4 has no partner
    wide = exp_select_classes(sizes)
    con.execute(f'CREATE TABLE "sqlanon_wide" AS {c.with_pairs(wide, sizes, pairs).sql("duckdb")}')
    for node in itertools.product(*(range(len(s)) for s in sizes)):
        alike = tuple(sizes[j][level] == 1 for j, level in enumerate(node))
        plain = c.size_histogram_query(node, KEEP.copy()).sql("duckdb")
        paired = c.size_histogram_query(node, KEEP.copy(), alike, pairs).sql("duckdb")
        assert sorted(con.execute(paired, {"k": 3}).fetchall()) == sorted(con.execute(plain, {"k": 3}).fetchall()), node
    keys = c.group_key_names((1, 0, 0, 1, 0), (False, False, False, True, False), pairs)
    assert keys == ["p0_1_0", "q2_0", "q4_0"]  # QI 3 at a level of one value: QI 2 keyed alone


def exp_select_classes(sizes):
    columns = [c.col(c.wide_column(j, l)) for j, s in enumerate(sizes) for l in range(len(s))]
    return sqlglot.exp.select(*columns, c.col("n")).from_(c.table("sqlanon_classes"))
