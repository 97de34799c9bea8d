"""The DuckDB engine's output: the released table streamed from the input in one projection
(``duckdb_release.py``) or, where it cannot stream, the sorted query over the row tables; in
input order or shuffled (``row_order``); written by COPY (CSV, Parquet) or into an attached
DuckDB file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp

from sqlanon.core.specs import Output, Source
from sqlanon.core.mask import MASK
from sqlanon import sql as c
from sqlanon.engines.duckdb import codes
from sqlanon.engines.duckdb import release
from sqlanon.engines import parquet_types
from sqlanon.engines import row_order
from sqlanon.engines.store import KeepCondition, OutputColumn
from sqlanon.engines.csv_input import reading_failed
from sqlanon.engines.duckdb.connection import DIALECT, interruptible, literal
from sqlanon.engines.sql.release import SqlRelease
from sqlanon.errors import DataError, OutputError, cut, first_line
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.lattice import Node

if TYPE_CHECKING:
    from sqlanon.criteria.population import ResearchSubset


class DuckDBWriting(SqlRelease):
    """The output of the DuckDB engine.

    A part of ``DuckDBEngine`` (``engines/duckdb/engine.py``), which mixes it in: it reads the
    attributes ``DuckDBEngine.__init__`` and ``SqlEngine.__init__`` set. It specializes
    ``SqlRelease``, whose release it falls back on (``super().write``); ``SqlEngine`` mixes that
    in too, so the engine's method order is the same as without the base.
    """

    if TYPE_CHECKING:  # the host's (DuckDBEngine's and SqlEngine's); nothing at runtime
        con: duckdb.DuckDBPyConnection
        queries: int
        _source: Source
        _types: dict[str, str]
        _qi_names: list[str]
        _hierarchies: list[EncodedHierarchy]
        _passthrough: list[str]
        _subset: ResearchSubset | None
        _rows: int
        _held: dict[int, list[int]]

        def run(
            self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None
        ) -> list[tuple]: ...
        def _source_relation(self, source: Source) -> tuple[str, dict]: ...
        def _read_error(self, source: Source, error: Exception) -> DataError: ...
        def _ensure_enums(self, qis: Sequence[int]) -> bool: ...

    def write(
        self,
        node: Node,
        keep: KeepCondition,
        params: dict,
        columns: Sequence[OutputColumn],
        output: Output,
        target: str,
        classes=None,
    ) -> None:
        """The released table as one streamed projection of the input (``duckdb/release.py``);
        with a research subset, or failing classes too many for a bitstring, through the row
        tables and the sorted query as before. ``classes()``: the node's classes and verdicts
        from a runner in process (the failing ones are read there instead of by a query)."""
        csv = self._source.kind == "csv"
        leaves = [
            h.labels[0] if codes.list_lookup(len(h.labels[0]), self._types.get(q) == "VARCHAR", csv) else None
            for q, h in zip(self._qi_names, self._hierarchies)
        ]
        # a list is searched by position: its leaves must be distinct, as the ENUMs' must be
        if (
            self._subset is None
            and all(len(set(found)) == len(found) for found in leaves if found is not None)
            and self._ensure_enums([j for j, found in enumerate(leaves) if found is None])
        ):
            # a QI read through an ENUM of its held leaves is read as their positions there
            chosen = self._release_plan(
                node,
                keep,
                params,
                [self._held.get(j) if found is None else None for j, found in enumerate(leaves)],
                classes,
            )
            if chosen is not None:
                relation, source_params = self._source_relation(self._source)
                enums = output.kind == "parquet"  # a DuckDB table must not hold a temporary type
                if enums:
                    for column in columns:
                        if column.kind == "qi":
                            self.run(
                                release.output_type_query(column.index),
                                {"values": release.output_values(chosen, column.index, MASK)},
                            )
                key = row_order.order_key(output)
                sql, bound = release.release_query(
                    relation,
                    self._qi_names,
                    self._passthrough,
                    columns,
                    chosen,
                    MASK,
                    output.suppressed == "drop",
                    enums,
                    leaves,
                    shuffled=key is not None,
                )
                if key is not None:
                    bound[c.ORDER_KEY] = key
                self._mode(False, 0)
                self.queries += 1
                try:
                    self._write(sql, {**source_params, **bound}, output, target, streamed=True)
                finally:
                    if chosen.keys is not None:
                        self.con.execute(f"RESET VARIABLE {release.SUPPRESSED}").fetchall()
                self.rows_scanned += self._rows
                return
        super().write(node, keep, params, columns, output, target, classes)

    def _release_plan(
        self,
        node: Node,
        keep: KeepCondition,
        params: dict,
        held: Sequence[Sequence[int] | None] | None = None,
        classes=None,
    ) -> release.Plan | None:
        """The lists and the bitstring of the failing classes for the streamed release; None
        when it cannot stream (see ``duckdb_release.py``); ``held`` as ``release.plan`` reads it."""
        keys = c.class_keys(node)
        found = classes() if classes is not None else None
        if found is not None:  # local checks: the kernel has the node's classes and verdicts
            failing = list(zip(*(codes[~found.kept].tolist() for codes in found.codes)))
        else:
            self.ensure_wide()
            self._mode(False, 0)
            verdicts = c.verdict_query(node, keep(c.col("n")), self.lookup, self.node_figures(node, keep))
            failing = self.run(
                exp.select(*(c.col(k) for k in keys))
                .from_(verdicts.subquery(c.ident("v")))
                .where(exp.Not(this=exp.Paren(this=c.col("__kept")))),
                params,
            )
        chosen = release.plan(self._hierarchies, node, [tuple(int(x) for x in row) for row in failing], held)
        if chosen is not None and chosen.keys is not None:
            self.run(release.suppressed_query(chosen.bits), {"keys": chosen.suppressed})
        return chosen

    def _write(self, sql: str, params: dict, output: Output, target: str, streamed: bool = False) -> None:
        """``streamed``: ``sql`` reads the input again (``duckdb_release.py``), so a value the
        ENUM of its leaves lacks means the input changed since prepare read it."""
        try:
            with interruptible():
                self._write_file(sql, params, output, target)
        except duckdb.InterruptException:
            raise
        except (duckdb.ConversionException, duckdb.InvalidInputException) as error:
            if streamed and reading_failed(error):  # the release reads the input CSV again: its error is the input's
                raise self._read_error(self._source, error) from None
            unknown = str(error).find(codes.UNKNOWN)
            if not streamed or (unknown < 0 and not isinstance(error, duckdb.ConversionException)):
                raise OutputError(f"cannot write output {output.path}: {first_line(error)}") from None
            found = re.search(r"string '(.*?)' to ", str(error), re.S)
            if unknown >= 0:
                text = str(error)[unknown + len(codes.UNKNOWN) :].split("\n")[0]
                value = " (NULL)" if text == "NULL" else f" ({cut(text)})"
            else:
                value = f" ({cut(found.group(1))})" if found else ""
            raise DataError(
                f"input {self._source.describe()} changed while it was anonymized: it now holds a value"
                f"{value} that is in none of the hierarchies' leaves it held before. Nothing was written; "
                "run again when nothing writes to the input"
            ) from None
        except duckdb.Error as error:
            raise OutputError(f"cannot write output {output.path}: {first_line(error)}") from None

    def _write_file(self, sql: str, params: dict, output: Output, target: str) -> None:
        if output.kind == "parquet":
            self.con.execute(
                f"COPY ({sql}) TO {literal(target)} (FORMAT parquet{self._arrow_types(sql, params)})", params
            ).fetchall()
        elif output.kind == "csv":
            self.con.execute(
                f"COPY ({sql}) TO {literal(target)} (FORMAT csv, HEADER true, DELIMITER {literal(output.delimiter)})",
                params,
            ).fetchall()
        else:
            self._write_duckdb(sql, params, output, target)

    def _arrow_types(self, sql: str, params: dict) -> str:
        """COPY's option naming the input's Arrow types of the columns ``sql`` releases unchanged
        (``parquet_types.py``: a time zone, large and dictionary types), or ''."""
        given = parquet_types.input_schema(self._source)
        if given is None:
            return ""
        cursor = self.con.execute(f"SELECT * FROM ({sql}) LIMIT 0", params)
        names = [d[0] for d in cursor.description]
        cursor.fetchall()
        schema = parquet_types.origin_schema(names, self._qi_names, given)
        if schema is None:
            return ""
        return f", KV_METADATA {{{literal(parquet_types.KEY)}: {literal(parquet_types.encoded(schema))}}}"

    def _write_duckdb(self, sql: str, params: dict, output: Output, target: str) -> None:
        """``target`` is a temporary table name in the output database; the caller renames."""
        assert output.path is not None  # a DuckDB output is a file
        alias = c.ident("sqlanon_out").sql(DIALECT)
        self.con.execute(f"ATTACH {literal(output.path)} AS {alias}").fetchall()
        try:
            name = exp.Table(this=c.ident(target), db=c.ident("main"), catalog=c.ident("sqlanon_out")).sql(DIALECT)
            self.con.execute(f"CREATE TABLE {name} AS {sql}", params).fetchall()
        finally:
            self.con.execute(f"DETACH {alias}").fetchall()
