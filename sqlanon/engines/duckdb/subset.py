"""Delta-presence's research subset on DuckDB: its column (true/false values) or its identifier
file (a key column naming rows of the input) checked on the data, and the predicate marking its
rows (``sqlanon/criteria/population.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
from sqlglot import exp

from sqlanon.core import files
from sqlanon.criteria.population import IDS, ResearchSubset, subset_condition
from sqlanon import sql as c
from sqlanon.engines.duckdb.connection import DIALECT
from sqlanon.engines.duckdb.sources import table_file_relation
from sqlanon.errors import ConfigError, cuts, first_line


_SHOW = 5


class DuckDBSubset:
    """The research subset of the DuckDB engine.

    A part of ``DuckDBEngine`` (``engines/duckdb/engine.py``), which mixes it in: it reads the
    attributes ``DuckDBEngine.__init__`` and ``SqlEngine.__init__`` set.
    """

    if TYPE_CHECKING:  # the host's (DuckDBEngine's and SqlEngine's); nothing at runtime
        con: duckdb.DuckDBPyConnection

        def run(
            self, query: exp.Expression | str, params: dict | None = None, lean_rows: int | None = None
        ) -> list[tuple]: ...

    def _prepare_subset(self, subset: ResearchSubset) -> exp.Expression:
        """Check the subset's column (or identifier file) on the data; return the predicate
        over ``sqlanon_input`` (alias ``s``) that marks its rows."""
        column = c.ident(subset.input_column).sql(DIALECT)
        if subset.column is not None:
            kind = self.run(f"SELECT typeof({column}) FROM {c.INPUT} LIMIT 1")[0][0]
            fix = "give a column of true/false values (or use subset_file with key)"
            if kind not in ("BOOLEAN", "VARCHAR"):
                raise ConfigError(f"delta-presence: the subset column '{subset.column}' is {kind}, not boolean: {fix}")
            bad = self.run(
                f"SELECT DISTINCT {column} FROM {c.INPUT} WHERE TRY_CAST({column} AS BOOLEAN) IS NULL "
                f"ORDER BY 1 NULLS FIRST LIMIT {_SHOW}"
            )
            if bad:
                shown = cuts(v for (v,) in bad)
                raise ConfigError(
                    f"delta-presence: the subset column '{subset.column}' holds values that are not "
                    f"true or false, e.g. {shown}: {fix}"
                )
            return subset_condition(subset, "s")
        assert subset.file is not None and subset.key is not None  # without a column: a file and its key column
        files.regular_file(subset.file, "delta-presence: subset_file", ConfigError)
        reader, file_params = table_file_relation(subset.file)
        try:
            cursor = self.con.execute(f"SELECT * FROM {reader} LIMIT 0", file_params)
            found = [d[0] for d in cursor.description]
            cursor.fetchall()
        except duckdb.Error as error:
            raise ConfigError(f"delta-presence: cannot read subset_file {subset.file}: {first_line(error)}") from None
        if subset.key not in found:
            raise ConfigError(
                f"delta-presence: subset_file {subset.file} has no column '{subset.key}' (the key); "
                f"its columns are: {found}"
            )
        key = c.ident(subset.key).sql(DIALECT)
        self.run(
            f"CREATE OR REPLACE TEMP TABLE {c.ident(IDS).sql(DIALECT)} AS SELECT DISTINCT "
            f"{c.as_text(c.col(subset.key)).sql(DIALECT)} AS key FROM {reader} WHERE {key} IS NOT NULL",
            file_params,
        )
        value = c.as_text(c.col(subset.key, "s")).sql(DIALECT)
        ids = c.ident(IDS).sql(DIALECT)
        duplicates = self.run(
            f"SELECT {value} FROM {c.INPUT} AS s WHERE {value} IN (SELECT key FROM {ids}) "
            f"GROUP BY 1 HAVING COUNT(*) > 1 ORDER BY 1 LIMIT {_SHOW}"
        )
        if duplicates:
            raise ConfigError(
                f"delta-presence: identifiers of subset_file name more than one row of the input's key "
                f"column '{subset.key}' (e.g. {cuts(v for (v,) in duplicates)}): each "
                "identifier must name one row; use a key that is unique in the input"
            )
        missing = self.run(f"SELECT key FROM {ids} WHERE key NOT IN (SELECT {value} FROM {c.INPUT} AS s) ORDER BY key")
        if missing:
            raise ConfigError(
                f"delta-presence: {len(missing)} identifier(s) of subset_file {subset.file} are not in the input's "
                f"column '{subset.key}', e.g. {cuts(v for (v,) in missing[:_SHOW])}: the research subset "
                "must be part of the population (remove them, or use the whole population as input)"
            )
        return subset_condition(subset, "s")
