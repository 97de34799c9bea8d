"""The PostgreSQL engine's released rows as Arrow, typed as DuckDB types the same data.

Each result column gets the Arrow type DuckDB gives the PostgreSQL type (``arrow_type``):
numeric(p, s) decimal128(p, s), timestamp timestamp[us], timestamptz timestamp[us, tz=UTC],
date date32, time time64[us], boolean bool, smallint/integer/bigint int16/32/64, real/double
float32/64, bytea binary, text/varchar/char string. psycopg loads each value (Decimal,
datetime, date, ...) and pyarrow converts the column to that type, so no value passes through
a float or a text it did not have. A numeric without a precision (or wider than the 38 digits
of DuckDB's and Arrow's decimal128) becomes decimal128(38, s), s the largest scale the column
holds in the input (``numeric_scan``); a value that does not fit is refused, never rounded.
Types with no such twin (interval, uuid, json, arrays, ...) travel as PostgreSQL's text of
them: their loaders are replaced by psycopg's text loader (``load_as_text``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from decimal import Decimal

import pyarrow as pa
from sqlglot import exp

from sqlanon import sql as c
from sqlanon.errors import DataError

#: DuckDB's widest DECIMAL, Arrow's decimal128
MAX_DIGITS = 38
NUMERIC = 1700
_STRING = pa.string()
#: type OID -> Arrow type, as DuckDB maps the PostgreSQL type (its postgres scanner, or the
#: Parquet file of the same data)
TYPES = {
    16: pa.bool_(),
    17: pa.binary(),
    20: pa.int64(),
    21: pa.int16(),
    23: pa.int32(),
    700: pa.float32(),
    701: pa.float64(),
    1082: pa.date32(),
    1083: pa.time64("us"),
    1114: pa.timestamp("us"),
    1184: pa.timestamp("us", tz="UTC"),
    25: _STRING,
    1043: _STRING,
    1042: _STRING,
    19: _STRING,
}


def needs_scan(column) -> bool:
    """A numeric column whose declared type gives no decimal128 (no precision, or > 38 digits)."""
    return column.type_code == NUMERIC and (column.precision is None or column.precision > MAX_DIGITS)


def arrow_type(column, scanned: pa.DataType | None = None) -> pa.DataType:
    """The Arrow type of a psycopg result column (``scanned``: the type ``numeric_scan`` chose)."""
    if column.type_code == NUMERIC:
        return scanned if needs_scan(column) else pa.decimal128(column.precision, column.scale or 0)
    return TYPES.get(column.type_code, _STRING)


def load_as_text(columns: Sequence, adapters) -> None:
    """Have ``adapters`` (a cursor's own) load every column of a type without an Arrow twin
    as its PostgreSQL text (psycopg would make json a dict, an interval a timedelta, ...)."""
    from psycopg.types.string import TextLoader

    for column in columns:
        if column.type_code not in TYPES and column.type_code != NUMERIC:
            adapters.register_loader(column.type_code, TextLoader)


def numeric_scan_query(names: Sequence[str]) -> exp.Select:
    """Per numeric column of the input copy: its values, those with a scale (not NaN or
    +-Infinity), the largest scale and the largest absolute value."""
    figures = []
    for name in names:
        value = c.col(name)
        scale = exp.Anonymous(this="scale", expressions=[value.copy()])
        figures += [
            exp.Count(this=value.copy()),
            exp.Count(this=scale.copy()),
            exp.Max(this=scale.copy()),
            exp.Max(this=exp.Abs(this=value.copy())),
        ]
    return exp.select(*figures).from_(c.table(c.INPUT))


def scanned_types(names: Sequence[str], row: Sequence) -> dict[str, pa.DataType]:
    """decimal128(38, largest scale) per column of ``numeric_scan_query``'s row; a column
    holding NaN or +-Infinity, or a value wider than 38 digits, is refused."""
    types = {}
    for i, name in enumerate(names):
        values, finite, scale, largest = row[4 * i : 4 * i + 4]
        if finite != values:
            raise DataError(
                f"column '{name}' (numeric) holds NaN or Infinity, which a decimal output column cannot "
                "hold: replace them by NULL in the source, or cast the column to text"
            )
        scale = int(scale or 0)
        digits = len(str(int(largest))) if largest is not None and largest >= 1 else 0
        if digits + scale > MAX_DIGITS:
            raise DataError(
                f"column '{name}' (numeric) holds values of {digits} digits before the point and up to {scale} after "
                f"it: a decimal output column (DuckDB's, Parquet's) holds at most {MAX_DIGITS} digits. Round it in "
                f"the source (a view with numeric({MAX_DIGITS}, {max(MAX_DIGITS - digits, 0)})), or cast it to text"
            )
        types[name] = pa.decimal128(MAX_DIGITS, scale)
    return types


def batches(cursor, schema: pa.Schema, size: int, fetched: Callable[[list], None]) -> Iterator[pa.RecordBatch]:
    """The cursor's rows as record batches of ``schema``, ``size`` rows at a time (none for
    an empty result); ``fetched`` sees each chunk of rows."""
    while rows := cursor.fetchmany(size):
        fetched(rows)
        columns = list(zip(*rows))
        yield pa.record_batch([_array(values, field) for values, field in zip(columns, schema)], schema=schema)


def _array(values: Sequence, field: pa.Field) -> pa.Array:
    try:
        return pa.array(values, field.type)
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as error:
        bad = next((v for v in values if isinstance(v, Decimal) and not v.is_finite()), None)
        shown = str(bad if bad is not None else error)[:80]
        raise DataError(
            f"column '{field.name}' ({field.type}): cannot write {shown}: replace such values in the "
            "source (NaN and Infinity by NULL), or cast the column to text"
        ) from None
