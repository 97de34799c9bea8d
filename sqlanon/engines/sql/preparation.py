"""A SQL engine's preparation: the input read once (grouped by its text) or copied and encoded,
the hierarchy and sensitive-value tables, the base class table and its wide form, and the
hierarchies' coverage of the input's values (``SqlEngine.prepare``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import pyarrow as pa
from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon.core.specs import Source
from sqlanon.criteria.population import ResearchSubset
from sqlanon.criteria.population import classes_query as population_classes_query
from sqlanon import sql as c
from sqlanon.engines.store import PreparedData
from sqlanon.engines.mask_values import refuse_uncovered
from sqlanon.errors import ConfigError, DataError, first_line
from sqlanon.hierarchy import EncodedHierarchy


class SqlPreparation:
    """Encoding, the class tables and the coverage checks of a SQL engine.

    A part of ``SqlEngine`` (``engines/sql/engine.py``), which mixes it in: it reads the attributes
    ``SqlEngine.__init__`` sets and calls the hooks the module docstring there lists.
    """

    if TYPE_CHECKING:  # the host's state and hooks (SqlEngine and the engine's subclass); nothing at runtime
        dialect: ClassVar[str]
        scan_once: ClassVar[bool]
        lookup: str
        aux_tables: dict[str, pa.Table]
        rows_scanned: int
        queries: int
        bytes_fetched: int
        _source: Source
        _base_classes: int
        _sensitives: list[str]
        _subset: ResearchSubset | None
        _row_tables: bool
        _hierarchy_tables: bool
        _wide_pending: bool
        _population: bool

        def sql(self, query: exp.Expr, pretty: bool = False) -> str: ...
        def quoted(self, name: str) -> str: ...
        def run(
            self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None
        ) -> list[tuple]: ...
        def _count(self, name: str) -> int: ...
        def _mode(self, lean: bool, rows: int) -> None: ...
        def _row_id(self) -> exp.Expression | None: ...
        def _arrow(self, sql: str, params: dict) -> pa.Table: ...
        def _prepare_subset(self, subset: ResearchSubset) -> exp.Expression: ...
        def _source_relation(self, source: Source) -> tuple[str, dict]: ...
        def _materialize(self, name: str, data: pa.Table, replace: bool = False) -> None: ...
        def _create_table_as(
            self, name: str, query: exp.Expression, replace: bool = False, lean_rows: int | None = None
        ) -> int: ...

    def _create_input(self, names: Sequence[str]) -> None:
        """``sqlanon_input``: the columns the job reads, copied from the source once."""
        relation, params = self._source_relation(self._source)
        columns = [self.quoted(n) for n in names]
        row_id = self._row_id()
        if row_id is not None:
            columns.insert(0, self.sql(row_id.as_(c.ident("rowid"))))
        self.run(
            f"CREATE TEMPORARY TABLE {self.quoted(c.INPUT)} AS SELECT {', '.join(columns)} FROM {relation}", params
        )

    def _read_error(self, source: Source, error: Exception) -> DataError:
        return DataError(f"cannot read input {source.describe()}: {first_line(error)}")

    def prepare(
        self,
        qis: Sequence[tuple[str, EncodedHierarchy]],
        passthrough: Sequence[str],
        needs: Need = Need.NONE,
        sensitives: Sequence[str] = (),
        subset: ResearchSubset | None = None,
    ) -> PreparedData:
        """``sensitives``: attributes whose per-class histograms the models read; only then
        do the class tables carry their codes. ``subset``: the research subset of
        delta-presence; only its rows are encoded and released, and the class tables carry
        the population count ``pop`` (see ``sqlanon/criteria/population.py``).

        An engine with ``scan_once`` reads the input once here, grouped by the text of the
        QIs and sensitive attributes (``sqlanon_distinct``), and builds the class tables from
        that; the row tables (``sqlanon_input``, ``sqlanon_data``) wait until something asks
        for them (``_ensure_row_tables``). A research subset still copies the input."""
        self._sensitives = list(sensitives)
        self._subset = subset
        extra = [subset.input_column] if subset is not None else []
        names = list(dict.fromkeys([name for name, _ in qis] + list(passthrough) + self._sensitives + extra))
        self._qi_names = [name for name, _ in qis]
        self._input_names, self._passthrough = names, list(passthrough)
        once = self.scan_once and subset is None
        self._hierarchies = [h for _, h in qis]  # the scan may encode with them
        if once:
            self._scan_distinct()
            rows = int(
                self.run(
                    exp.select(exp.Cast(this=exp.Sum(this=c.col("n")), to=exp.DataType.build("BIGINT"))).from_(
                        c.table(c.DISTINCT)
                    )
                )[0][0]
                or 0
            )
        else:
            self._create_input(names)
            rows = self._count(c.INPUT)
        if rows == 0:
            raise DataError(f"input {self._source.describe()} has no rows: there is nothing to anonymize")
        self.rows_scanned += rows
        if not once:  # one scan: the classes' rows tell whether a value is missing (below)
            self._ensure_hierarchies()  # the coverage checks and the encoding join the labels
            for j, (name, hierarchy) in enumerate(qis):
                self._check_coverage(j, name, hierarchy, name, c.INPUT)
        population, member = rows, None
        if subset is not None:
            member = self._prepare_subset(subset)
            rows = self.run(exp.select(exp.Count(this=exp.Star())).from_(c.table(c.INPUT, "s")).where(member.copy()))[
                0
            ][0]
            if rows == 0:
                raise ConfigError(
                    f"delta-presence: the research subset ({subset.describe()}) has no row of the input: "
                    "there is nothing to release"
                )
        for i, name in enumerate(self._sensitives):
            self._store_sensitive(i, c.distinct_sensitive(i) if once else name, rows, member, once)
        if once:
            classes = None
        else:
            encode = c.encode_query([n for n, _ in qis], passthrough, self._sensitives)
            self._create_table_as(c.DATA, encode if member is None else encode.where(member))
            self.rows_scanned += population
            if subset is None:
                classes = c.base_classes_query(len(qis), len(self._sensitives), Need.LNX in needs)
            else:
                classes = population_classes_query([n for n, _ in qis], len(self._sensitives), Need.LNX in needs)
        self._row_tables = not once
        self._needs = needs
        # no class query (None) after one scan: the classes come from its distinct table
        self._base_classes = self._distinct_classes() if classes is None else self._create_table_as(c.CLASSES, classes)
        if once:  # the rows per leaf code wait for the placement (value_counts): the kernel has them in numpy
            counts, encoded = (
                None,
                int(
                    self.run(
                        exp.select(exp.Cast(this=exp.Sum(this=c.col("n")), to=exp.DataType.build("BIGINT"))).from_(
                            c.table(c.CLASSES)
                        )
                    )[0][0]
                    or 0
                ),
            )
            self.rows_scanned += self._base_classes
        else:
            counts, encoded = self._value_counts()
        if once and encoded != rows:  # the joins to the leaves dropped a value no hierarchy holds
            for j, (name, hierarchy) in enumerate(qis):
                self._check_coverage(j, c.distinct_text(j), hierarchy, name, c.DISTINCT)
            raise DataError(
                f"input {self._source.describe()}: {rows - encoded} rows were lost in the encoding. "
                "This is a bug, please report it."
            )
        # The wide form serves checks in SQL: an engine that scans once builds it only when one
        # runs (local checks never read it), the others at once, as before.
        self._wide_pending = self.lookup == "wide"
        self._population = subset is not None
        if not once:
            self.ensure_wide()
        self._tops = [len(h.labels) - 1 for _, h in qis]
        self._rows = rows
        return PreparedData(
            rows=rows,
            base_classes=self._base_classes,
            value_counts=counts,
            population=population if subset is not None else None,
        )

    def value_counts(self) -> tuple[tuple[int, ...], ...]:
        """Rows per leaf code of every QI by one query (``PreparedData.value_counts``, which a
        one-scan prepare leaves to the runner: the kernel counts them in process, 0.2 ms against
        2-4 ms for the query on ADULT)."""
        return self._value_counts()[0]

    def _value_counts(self) -> tuple[tuple[tuple[int, ...], ...], int]:
        """Rows per leaf code of every QI and the rows the base class table holds, by one query."""
        counts = [[0] * hierarchy.size for hierarchy in self._hierarchies]
        encoded = 0
        for j, code, n in self.run(c.value_counts_query(len(self._hierarchies))):
            if j < 0:
                encoded = int(n or 0)
            else:
                counts[j][code] = int(n)
        self.rows_scanned += self._base_classes * len(self._hierarchies)
        return tuple(tuple(x) for x in counts), encoded

    def _distinct_classes(self) -> int:
        """CREATE ``sqlanon_classes`` from ``sqlanon_distinct``; its rows."""
        self._ensure_hierarchies()
        return self._create_table_as(
            c.CLASSES, c.distinct_classes_query(len(self._qi_names), len(self._sensitives), Need.LNX in self._needs)
        )

    def ensure_wide(self) -> None:
        """``sqlanon_wide``, if the layout reads it and it is not built yet; and the hierarchy
        tables, which every SQL path over the class tables may join (checks in the join
        layout, failing classes' labels, the sorted release): each of them passes here."""
        self._ensure_hierarchies()
        if self._wide_pending:
            self._create_wide(self._population)
            self._wide_pending = False

    def _create_wide(self, population: bool) -> None:
        """CREATE ``sqlanon_wide`` from ``sqlanon_classes`` (through the hierarchy tables,
        which ``ensure_wide`` has stored)."""
        hierarchies = self._hierarchies
        self._create_table_as(
            c.WIDE,
            c.wide_query(
                [len(h.labels) - 1 for h in hierarchies],
                Need.LEAVES in self._needs,
                len(self._sensitives),
                Need.LNX in self._needs,
                [[len(labels) for labels in h.labels] for h in hierarchies],
                population=population,
            ),
        )

    def _scan_distinct(self) -> None:
        """``sqlanon_distinct``: the one scan of the input (see ``prepare``)."""
        relation, params = self._source_relation(self._source)
        query = c.distinct_query(relation, self._qi_names, self._sensitives, self.dialect)
        self.run(f"CREATE TEMPORARY TABLE {self.quoted(c.DISTINCT)} AS {query}", params)

    def _ensure_row_tables(self) -> None:
        """``sqlanon_input`` and ``sqlanon_data`` for what reads rows rather than classes (the
        ordered-interval searches, and a release the engine cannot stream): after a one-scan
        prepare, the input is read again now."""
        if self._row_tables:
            return
        self._ensure_hierarchies()  # the encoding joins the leaves' labels
        self._create_input(self._input_names)
        self._create_table_as(c.DATA, c.encode_query(self._qi_names, self._passthrough, self._sensitives))
        self.rows_scanned += self._rows
        self._row_tables = True

    def _ensure_hierarchies(self) -> None:
        """``sqlanon_hier_<j>`` (each leaf's code and leaf count at every level) and
        ``sqlanon_label_<j>`` (each level's labels) of every QI, stored once, when something
        first reads them: the encoding of the rows, a check or release in SQL, the generic class
        and wide tables. A DuckDB prepare whose checks run in process reads none of them (it
        encodes in the scan and through bound lists): 18 tables on ADULT, ~10 ms it skips."""
        if self._hierarchy_tables:
            return
        for j, hierarchy in enumerate(self._hierarchies):
            self._store_hierarchy(j, hierarchy)
        self._hierarchy_tables = True

    def _store_hierarchy(self, j: int, hierarchy: EncodedHierarchy) -> None:
        levels = len(hierarchy.labels)
        codes = [np.asarray(column, np.int32) for column in hierarchy.columns]
        columns = {
            "code": codes[0],
            **{f"l{l}": codes[l] for l in range(levels)},
            **{f"c{l}": np.asarray(hierarchy.leaves[l], np.int32)[codes[l]] for l in range(levels)},
        }
        self._materialize(c.hier_table(j), pa.table({k: pa.array(v, pa.int32()) for k, v in columns.items()}))
        labels = pa.table(
            {
                "level": pa.array([l for l in range(levels) for _ in hierarchy.labels[l]], pa.int32()),
                "code": pa.array([code for l in range(levels) for code in range(len(hierarchy.labels[l]))], pa.int32()),
                "label": pa.array([text for l in range(levels) for text in hierarchy.labels[l]], pa.string()),
            }
        )
        self._materialize(c.label_table(j), labels)

    def _store_sensitive(
        self, i: int, name: str, rows: int, member: exp.Expression | None = None, distinct: bool = False
    ) -> None:
        """``sqlanon_sval_<i>``: the attribute's distinct values as text, sorted, with counts
        (with a research subset: the population's values, the subset's counts). ``distinct``:
        counted over ``sqlanon_distinct`` (``name`` its text column) instead of the rows."""
        value = c.as_text(c.col(name, "s"))
        count: exp.Expression = (
            exp.Count(this=exp.Star())
            if member is None
            else exp.Sum(
                this=exp.Case(
                    ifs=[exp.If(this=member.copy(), true=exp.Literal.number(1))], default=exp.Literal.number(0)
                )
            )
        )
        if distinct:
            count = exp.Cast(this=exp.Sum(this=c.col("n", "s")), to=exp.DataType.build("BIGINT"))
        query = (
            exp.select(value.as_(c.ident("label")), count)
            .from_(c.table(c.DISTINCT if distinct else c.INPUT, "s"))
            .group_by(value.copy())
        )
        # Sorted here: the codes are positions in Python's order, whatever the database's collation.
        found = sorted(self.run(query))
        self.rows_scanned += rows
        self._materialize(
            c.sval_table(i),
            pa.table(
                {
                    "code": pa.array(range(len(found)), pa.int32()),
                    "label": pa.array([r[0] for r in found], pa.string()),
                    "n": pa.array([int(r[1]) for r in found], pa.int64()),
                    "q": pa.array([int(r[1]) / rows for r in found], pa.float64()),
                }
            ),
        )

    def sensitive_values(self, name: str) -> tuple[list[str], list[int]]:
        """The attribute's distinct values (text, sorted; their codes are the positions) and rows."""
        i = self._sensitives.index(name)
        found = self.run(exp.select(c.col("label"), c.col("n")).from_(c.table(c.sval_table(i))).order_by(c.col("code")))
        return [r[0] for r in found], [int(r[1]) for r in found]

    def store_tables(self, tables: dict[str, pa.Table]) -> None:
        """Auxiliary tables of the privacy models (replaced when a new checker brings its own)."""
        for name, data in tables.items():
            self._materialize(name, data, replace=True)
        self.aux_tables.update(tables)  # the kernel's copy, for local checks

    def _check_coverage(self, j: int, column: str, hierarchy: EncodedHierarchy, name: str, source: str) -> None:
        """Every value of QI ``name`` (``column`` of ``source``: the rows or the distinct
        table) is a leaf of its hierarchy."""
        self._ensure_hierarchies()
        refuse_uncovered(name, self._source, self.run(c.missing_values_query(j, column, source)), hierarchy)

    def class_table(self, label: str | None = None) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray | None]:
        """The class table for an in-memory search, read once: leaf codes of each distinct QI
        combination (m, d), its rows (m,), and with ``label`` the label values and the rows of
        each combination per label value (m, L)."""
        self._ensure_row_tables()
        self._mode(False, 0)
        dimensions = len(self._qi_names)
        query = c.labelled_classes_query(dimensions, label)
        result = self._arrow(self.sql(query), {})
        self.bytes_fetched += result.nbytes
        self.queries += 1
        self.rows_scanned += self._count(c.DATA)
        codes = np.stack([result.column(j).to_numpy() for j in range(dimensions)], axis=1).astype(np.int64)
        counts = result.column("n").to_numpy().astype(np.int64)
        if label is None:
            return codes, counts, [], None
        texts = result.column("label").to_pylist()
        values = sorted(set(texts))
        combos, inverse = np.unique(codes, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        per_label = np.zeros((len(combos), len(values)), dtype=np.int64)
        position = {value: i for i, value in enumerate(values)}
        np.add.at(per_label, (inverse, np.array([position[t] for t in texts], dtype=np.int64)), counts)
        return combos, per_label.sum(axis=1), values, per_label
