"""DuckDB's readers: a CSV, Parquet or DuckDB file, a PostgreSQL table (through DuckDB's
postgres extension) or an Arrow table as a relation, checked when opened (reads no rows).
``csv_relation`` and ``table_file_relation`` are how sqlanon reads a CSV or a table file with
DuckDB anywhere (the engine, delta-presence's identifier file, the verification)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa
from sqlglot import exp

from sqlanon.core import encodings as text_encoding
from sqlanon.core import files
from sqlanon.core.specs import Source
from sqlanon import sql as c
from sqlanon.engines.csv_input import check_header, read_error
from sqlanon.engines.duckdb.connection import DIALECT, literal
from sqlanon.engines.postgres.connection import table_name
from sqlanon.errors import ConfigError, DataError, first_line

SOURCE_DB = "sqlanon_source"


def csv_relation(path: str, delimiter: str, encoding: str | None = None) -> tuple[str, dict]:
    """``read_csv`` of a CSV file with a header, every column text, in its encoding (None:
    UTF-8), with its parameters: how sqlanon reads a CSV with DuckDB, an input (the engine, the
    verification's population) as a written output (the verification). An empty field is
    NULL and a quoted one (``""``) the empty string, as the CSV writers print them. Quotes are
    RFC 4180's, not sniffed: the sniffer takes a file with a quote never closed for one without
    quoting and reads the quote as data."""
    return (
        "read_csv($path, delim = $delim, header = true, all_varchar = true, encoding = $encoding, "
        "allow_quoted_nulls = false, quote = $quote, escape = $quote)"
    ), {
        "path": path,
        "delim": delimiter,
        "encoding": text_encoding.duckdb_name(encoding),
        "quote": '"',
    }


def table_file_relation(path: str, parameter: str = "path") -> tuple[str, dict]:
    """A table file by its name, with its parameter (named ``parameter``): Parquet, else a CSV
    with a header (its delimiter sniffed), every column text. Delta-presence's identifier file
    (``subset_file``), read by the engine and again by the verification."""
    if path.lower().endswith(".parquet"):
        return f"read_parquet(${parameter})", {parameter: path}
    return f"read_csv(${parameter}, header = true, all_varchar = true)", {parameter: path}


class DuckDBSources:
    """The input of the DuckDB engine.

    A part of ``DuckDBEngine`` (``engines/duckdb/engine.py``), which mixes it in: it reads the
    attributes ``DuckDBEngine.__init__`` and ``SqlEngine.__init__`` set.
    """

    if TYPE_CHECKING:  # the host's (DuckDBEngine's and SqlEngine's); nothing at runtime
        con: duckdb.DuckDBPyConnection
        url: str | None
        _source: Source
        _types: dict[str, str]

    def _source_relation(self, source: Source) -> tuple[str, dict]:
        """SQL of the source as a relation, with its parameters."""
        kind = source.kind
        if kind == "csv":
            assert source.path is not None  # a CSV source is a file
            return csv_relation(source.path, source.delimiter, source.encoding)
        if kind == "parquet":
            return "read_parquet($path)", {"path": source.path}
        if kind == "duckdb":
            name = exp.Table(this=c.ident(source.table or ""), db=c.ident("main"), catalog=c.ident(SOURCE_DB))
            return name.sql(DIALECT), {}
        if kind == "postgres":
            name = table_name(source.table, "input.table")
            name.set("db", name.args.get("db") or c.ident("public"))
            name.set("catalog", c.ident(SOURCE_DB))
            return name.sql(DIALECT), {}
        return "sqlanon_arrow", {}

    def open(self, source: Source) -> list[str]:
        """Attach or register the source and return its column names (reads no rows)."""
        kind = source.kind
        if kind in ("csv", "duckdb", "parquet"):
            assert source.path is not None  # a source of these kinds is a file (or a Parquet glob)
            files.input_files(kind, source.path)
        if kind == "csv":
            check_header(source)
        try:
            if kind == "postgres":
                self._attach_postgres(source)
            elif kind == "duckdb":
                assert source.path is not None  # a DuckDB source is a file
                if not source.table:
                    raise DataError(f"input {source.path} is a DuckDB file: give input.table")
                self.con.execute(
                    f"ATTACH {literal(source.path)} AS {c.ident(SOURCE_DB).sql(DIALECT)} (READ_ONLY)"
                ).fetchall()
                tables = [
                    r[0]
                    for r in self.con.execute(
                        "SELECT table_name FROM duckdb_tables() WHERE database_name = $db", {"db": SOURCE_DB}
                    ).fetchall()
                ]
                if source.table not in tables:
                    raise DataError(
                        f"input {source.path} has no table '{source.table}'; tables: {', '.join(sorted(tables)) or 'none'}"
                    )
            elif kind == "arrow":
                if not isinstance(source.arrow, pa.Table):
                    raise DataError("the in-memory input must be a pyarrow.Table")
                self.con.register("sqlanon_arrow", source.arrow)
            relation, params = self._source_relation(source)
            cursor = self.con.execute(f"SELECT * FROM {relation} LIMIT 0", params)
            description = cursor.description
            cursor.fetchall()
        except duckdb.Error as error:
            raise self._read_error(source, error) from None
        self._source = source
        self._types = {d[0]: str(d[1]) for d in description}  # the release reads text columns by list_position
        return [d[0] for d in description]

    def _read_error(self, source: Source, error: Exception) -> DataError:
        return read_error(source, error)

    def _attach_postgres(self, source: Source) -> None:
        """A PostgreSQL table read through DuckDB's postgres extension (local compute). The
        DuckDB wheel does not bundle it; where it cannot be loaded or installed, say so and
        name the engine that runs inside PostgreSQL instead."""
        try:
            try:
                self.con.execute("LOAD postgres").fetchall()
            except duckdb.Error:
                self.con.execute("INSTALL postgres").fetchall()
                self.con.execute("LOAD postgres").fetchall()
        except duckdb.Error as error:
            raise ConfigError(
                f"the duckdb engine cannot read {source.describe()}: DuckDB {duckdb.__version__} has no postgres "
                f'extension here ({first_line(error)}); use [engine] name = "postgres" to anonymize inside '
                "PostgreSQL, or export the table to Parquet"
            ) from None
        self.con.execute(
            f"ATTACH {literal(self.url or '')} AS {c.ident(SOURCE_DB).sql(DIALECT)} (TYPE postgres, READ_ONLY)"
        ).fetchall()
