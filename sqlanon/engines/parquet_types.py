"""The Arrow types of a Parquet output's columns released unchanged, told to Arrow readers.

Parquet has no time zone names and one string type: DuckDB writes a timestamp of
tz=Europe/Berlin as UTC instants (read back as tz=UTC), a large_string as a string, a
dictionary as its values. Arrow writers keep the Arrow types in the file's ``ARROW:schema``
key, which pyarrow and polars apply on reading where they fit the Parquet types (the zone,
the large and dictionary types; the values are the file's either way). DuckDB's COPY writes
that key from here (``KV_METADATA``), so its Parquet output reads back in the input's types
as the memory engine's (written by pyarrow) does. Only an input held in Arrow types (Parquet,
a table in code) has any; the QIs are released as text.
"""

from __future__ import annotations

import base64
import glob
from collections.abc import Collection, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from sqlanon.core.specs import Source

#: the KV_METADATA key Arrow writers keep their schema in (base64 of its IPC form)
KEY = "ARROW:schema"


def input_schema(source: Source) -> pa.Schema | None:
    """The input's Arrow types: a table in code's, a Parquet file's (the first by name, which
    every other of a glob must match); None for a CSV (text) or a database table."""
    if source.kind == "arrow":
        return source.arrow.schema
    if source.kind == "parquet" and source.path is not None:
        files = sorted(glob.glob(source.path))
        return pq.read_schema(files[0]) if files else None
    return None


def _kept_apart(kind: pa.DataType) -> bool:
    """A type Parquet alone reads back as another (its zone, its width, its dictionary lost)."""
    return (
        (pa.types.is_timestamp(kind) and kind.tz is not None)
        or pa.types.is_large_string(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_dictionary(kind)
    )


def origin_schema(names: Sequence[str], generalized: Collection[str], given: pa.Schema | None) -> pa.Schema | None:
    """The Arrow schema of an output of columns ``names``: text for the ``generalized`` ones
    (the QIs), the input's type for the others; None when Parquet alone reads them back so."""
    if given is None:
        return None
    fields = [
        pa.field(name, pa.string())
        if name in generalized or given.get_field_index(name) < 0
        else given.field(name).with_nullable(True)
        for name in names
    ]
    if not any(_kept_apart(f.type) for f, name in zip(fields, names) if name not in generalized):
        return None
    return pa.schema(fields)


def encoded(schema: pa.Schema) -> str:
    """``schema`` as Arrow writers store it under ``KEY``: base64 (quote-free) of its IPC form."""
    return base64.b64encode(schema.serialize().to_pybytes()).decode("ascii")
