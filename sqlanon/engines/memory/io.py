"""Reading and writing for the in-memory engine, with pyarrow only (no DuckDB, no SQL).

Values become the text DuckDB's ``CAST(x AS VARCHAR)`` gives, so both engines match the same
hierarchy rows: strings as they are, integers and booleans (``true``/``false``), dates
(``YYYY-MM-DD``) and 64-bit floats (the shortest repr, which DuckDB prints too: ``1.0``,
``0.1``, ``1e+20``). Other types (32-bit floats, decimals, timestamps, nested types) would
print differently and are refused with a message naming the column. A CSV is read as DuckDB's
``read_csv(all_varchar = true)`` reads it: every column text, an empty field NULL, ``""`` ''.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

from sqlanon.core.specs import Source
from sqlanon.engines import csv_input
from sqlanon.engines.csv_input import check_header
from sqlanon.core.encodings import codec, reading_codec
from sqlanon.errors import ConfigError, DataError

#: bytes the engine holds per input byte (text table, codes, class table, output), roughly
OVERHEAD = 3.0
MEMINFO = "/proc/meminfo"


def available_memory() -> int | None:
    """MemAvailable from /proc/meminfo in bytes (None where there is no such file)."""
    try:
        with open(MEMINFO, encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def estimate(source: Source) -> int:
    """Bytes needed to hold the source and its encoding, before reading any row."""
    if source.kind == "arrow":
        return int(source.arrow.nbytes * OVERHEAD)
    assert source.path is not None  # a CSV or Parquet source is a file (or a glob)
    if source.kind == "csv":
        return int(os.path.getsize(source.path) * OVERHEAD)
    total = 0
    for path in sorted(glob.glob(source.path)):
        metadata = pq.ParquetFile(path).metadata
        total += sum(metadata.row_group(g).total_byte_size for g in range(metadata.num_row_groups))
    return int(total * OVERHEAD)


def refuse_if_too_large(source: Source) -> None:
    needed, available = estimate(source), available_memory()
    if available is not None and needed > available:
        raise DataError(
            f"input {source.describe()} needs about {_size(needed)} in memory, more than the "
            f'{_size(available)} available ({MEMINFO} MemAvailable): use [engine] name = "duckdb" '
            'with memory_limit = "..." (it spills to disk), or a machine with more memory'
        )


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} B"


def refuse_duckdb_file(what: str, path: str | None) -> ConfigError:
    return ConfigError(
        f"the memory engine reads CSV, Parquet and pyarrow Tables and writes CSV and Parquet; "
        f'{what} {path} is a DuckDB file: use [engine] name = "duckdb"'
    )


def read_columns(source: Source) -> list[str]:
    """The source's column names, reading no rows where the format allows."""
    if source.kind == "arrow":
        return list(source.arrow.column_names)
    assert source.path is not None  # a CSV or Parquet source is a file (or a glob)
    if source.kind == "parquet":
        return list(pq.read_schema(sorted(glob.glob(source.path))[0]).names)
    check_header(source)
    # The first line only, decoded here (pyarrow is then given UTF-8).
    with open(source.path, newline="", encoding=reading_codec(source.encoding)) as handle:
        first = handle.readline()
    if not first.strip():
        return []
    return list(
        pcsv.read_csv(
            pa.py_buffer(first.encode("utf-8")),
            _csv_read_options(),
            pcsv.ParseOptions(delimiter=source.delimiter),
            _csv_convert_options(),
        ).column_names
    )


def _csv_read_options(encoding: str | None = None) -> pcsv.ReadOptions:
    # pyarrow transcodes any other encoding to UTF-8 with Python's codec before parsing; a record
    # must fit in one block, so the block is as long as the longest line DuckDB reads
    return pcsv.ReadOptions(
        autogenerate_column_names=False, encoding=codec(encoding, "input.encoding"), block_size=csv_input.LINE_LIMIT
    )


def _csv_convert_options() -> pcsv.ConvertOptions:
    # Every column text, an empty field NULL and a quoted one ("") the empty string: DuckDB's
    # reading (engines/duckdb/sources.py, csv_relation).
    return pcsv.ConvertOptions(
        strings_can_be_null=True,
        null_values=[""],
        quoted_strings_can_be_null=False,
        auto_dict_encode=False,
        column_types=None,
    )


def read_table(source: Source, columns: Sequence[str]) -> pa.Table:
    """The named columns of the source as one pyarrow Table (strings for a CSV)."""
    columns = list(columns)
    try:
        if source.kind == "arrow":
            return source.arrow.select(columns)
        assert source.path is not None  # a CSV or Parquet source is a file (or a glob)
        if source.kind == "parquet":
            return pa.concat_tables(pq.read_table(path, columns=columns) for path in sorted(glob.glob(source.path)))
        names = read_columns(source)
        csv_input.refuse_unclosed_quote(source)  # pyarrow would read the rest of the file as one value
        options = _csv_convert_options()
        options.column_types = {name: pa.string() for name in names}
        options.include_columns = columns
        return pcsv.read_csv(
            source.path, _csv_read_options(source.encoding), pcsv.ParseOptions(delimiter=source.delimiter), options
        )
    except (pa.ArrowInvalid, UnicodeDecodeError) as error:
        raise _read_error(source, error) from None


def _read_error(source: Source, error: Exception) -> DataError:
    return csv_input.read_error(source, error)


def as_text(column: pa.ChunkedArray | pa.Array, name: str) -> pa.ChunkedArray | pa.Array:
    """The column's text with NULL as '' (``compiler.as_text``), as Arrow strings."""
    return pc.fill_null(text_array(column, name), "")


def text_array(column: pa.ChunkedArray | pa.Array, name: str) -> pa.ChunkedArray | pa.Array:
    """The column as Arrow strings printed as DuckDB's CAST(x AS VARCHAR) prints them, NULL
    kept. Arrow's own casts print text, integers, dates and booleans as DuckDB does; 64-bit
    floats differ (Arrow prints 1.0 as "1"), so each distinct float is printed by Python's
    repr (DuckDB's shortest text) and the rows take their text from that dictionary."""
    kind = column.type
    if pa.types.is_dictionary(kind):
        column = column.cast(kind.value_type)
        kind = kind.value_type
    if pa.types.is_string(kind):
        return column
    if (
        pa.types.is_large_string(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_date32(kind)
        or pa.types.is_null(kind)
        or pa.types.is_boolean(kind)
    ):
        return column.cast(pa.string())
    if pa.types.is_float64(kind):
        encoded = pc.dictionary_encode(column)
        chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
        texts = [
            pa.array([repr(v) for v in chunk.dictionary.to_pylist()], pa.string()).take(chunk.indices)
            for chunk in chunks
        ]
        return pa.chunked_array(texts, pa.string()) if isinstance(encoded, pa.ChunkedArray) else texts[0]
    raise DataError(
        f"column '{name}' has type {kind}, which the memory engine cannot print as DuckDB does "
        "(it prints text, integers, booleans, dates and 64-bit floats): cast it in the source, "
        'or use [engine] name = "duckdb"'
    )


def write_parquet(table: pa.Table, path: str) -> None:
    pq.write_table(table, path)
