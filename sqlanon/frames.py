"""Tables held in Python, in and out: pandas, polars, pyarrow, DuckDB relations, Spark
DataFrames, and any object speaking the Arrow PyCapsule stream interface
(``__arrow_c_stream__``).

In, every table but a Spark DataFrame becomes a ``pyarrow.Table`` (what ``Source(arrow=...)``
holds and every engine reads); a Spark DataFrame stays in Spark and is read by the Spark
engine as a global temporary view of its own SparkSession. Out, the released table (a
verified Parquet file) goes back in the caller's type. No DataFrame library is imported
unless the caller's table is one of its own; pandas and polars are not dependencies.
"""

from __future__ import annotations

import atexit
import shutil
import tempfile
import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from sqlanon.errors import ConfigError
import duckdb

KINDS = ("pyarrow", "pandas", "polars", "polars-lazy", "duckdb", "spark", "arrow-stream")


@dataclass(frozen=True)
class Frame:
    """A table given in code: its ``kind`` (see KINDS), the object itself, and as Arrow
    (None for Spark, whose rows stay in Spark)."""

    kind: str
    native: Any
    arrow: pa.Table | None

    @property
    def columns(self) -> list[str]:
        if self.kind == "spark":
            return list(self.native.columns)
        assert self.arrow is not None  # every kind but Spark is held as Arrow
        return list(self.arrow.column_names)


def kind_of(data: Any) -> str | None:
    """The kind of an in-memory table, or None if ``data`` is none we read."""
    if isinstance(data, pa.Table):
        return "pyarrow"
    names = {(c.__module__.split(".")[0], c.__name__) for c in type(data).__mro__}
    if ("pyspark", "DataFrame") in names:
        return "spark"
    if ("pandas", "DataFrame") in names:
        return "pandas"
    if ("polars", "DataFrame") in names:
        return "polars"
    if ("polars", "LazyFrame") in names:
        return "polars-lazy"
    if ("duckdb", "DuckDBPyRelation") in names:
        return "duckdb"
    if hasattr(data, "__arrow_c_stream__") or isinstance(data, pa.RecordBatchReader):
        return "arrow-stream"
    return None


def frame(data: Any) -> Frame:
    """``data`` as a Frame; a ConfigError names what is accepted when it is none of them."""
    kind = kind_of(data)
    if kind is None:
        raise ConfigError(
            f"cannot read a {type(data).__module__}.{type(data).__qualname__} as a table: give a pandas, polars or "
            "pyarrow table, a DuckDB relation, a Spark DataFrame, any object with __arrow_c_stream__ (the Arrow "
            "PyCapsule interface), or a path to a .csv, .parquet or .duckdb file")
    if kind == "spark":
        return Frame(kind, data, None)
    if kind == "pyarrow":
        table = data
    elif kind == "pandas":
        # The index is not data (a filtered frame's row labels): reset_index() keeps it as a column.
        table = pa.Table.from_pandas(data, preserve_index=False)
    elif kind == "polars":
        table = data.to_arrow()
    elif kind == "polars-lazy":
        table = data.collect().to_arrow()
    elif kind == "duckdb":
        table = data.to_arrow_table()
    else:
        table = _from_stream(data)
    return Frame(kind, data, table.replace_schema_metadata(None))


def _from_stream(data: Any) -> pa.Table:
    """A RecordBatchReader or any ``__arrow_c_stream__`` object, read whole: through
    ``pa.table`` where this pyarrow takes such objects, else through the capsule import
    (older pyarrow releases have only that)."""
    if isinstance(data, pa.RecordBatchReader):
        return data.read_all()
    try:
        return pa.table(data)
    except TypeError:
        return pa.RecordBatchReader._import_from_c_capsule(data.__arrow_c_stream__()).read_all()


def restore(original: Frame, table: pa.Table | None, parquet: str | None = None,
            generalized: Collection[str] = ()) -> Any:
    """The released ``table`` in the type of ``original``. A Spark DataFrame is read from the
    verified Parquet file ``parquet`` (which must then outlive it, see ``keep_folder``).
    Every column but the ``generalized`` ones (the QIs) was released unchanged: it gets back
    its type as the caller gave it (``retyped``)."""
    kind = original.kind
    if kind == "spark":
        return original.native.sparkSession.read.parquet(parquet)
    assert table is not None and original.arrow is not None  # every kind but Spark is held as Arrow
    table = retyped(table, original.arrow.schema, generalized)
    if kind == "pandas":
        return _pandas(table, original.native, generalized)
    if kind in ("polars", "polars-lazy"):
        import polars

        released = polars.from_arrow(table)
        if kind == "polars-lazy":
            assert isinstance(released, polars.DataFrame)  # from a Table, never a Series
            return released.lazy()
        return released
    if kind == "duckdb":
        # A relation has no handle on its connection: the released one is in DuckDB's
        # default connection (where duckdb.sql() relations live).
        return duckdb.from_arrow(table)
    return table


def retyped(table: pa.Table, schema: pa.Schema, generalized: Collection[str] = ()) -> pa.Table:
    """``table`` with each column released unchanged (not ``generalized``) in its Arrow type
    in ``schema``: a Parquet file keeps the values, but DuckDB and Spark write a time zone's
    instants as UTC (timestamp[us, tz=UTC] for tz=Europe/Berlin), and strings of every kind
    as plain strings."""
    for index, field in enumerate(table.schema):
        if field.name in generalized or schema.get_field_index(field.name) < 0:
            continue
        given = schema.field(field.name)
        if field.type != given.type:
            table = table.set_column(index, given, table.column(index).cast(given.type))
    return table


def _pandas(table: pa.Table, native: Any, generalized: Collection[str]) -> Any:
    """A pandas DataFrame of ``table`` whose columns released unchanged have their dtype in
    ``native``: Arrow alone gives float64 for Int64 with NULLs, object for boolean and
    string[pyarrow] (the input's pandas metadata says otherwise, but it is dropped with the
    QIs' types)."""
    released = table.to_pandas()
    dtypes = native.dtypes
    for name in table.column_names:
        if name in generalized or name not in dtypes.index or released[name].dtype == dtypes[name]:
            continue
        dtype = dtypes[name]
        convert = getattr(dtype, "__from_arrow__", None)  # pandas' extension dtypes read Arrow themselves
        released[name] = convert(table.column(name)) if convert is not None else released[name].astype(dtype)
    return released


# -- Spark: the input as a global temporary view, the output as a kept Parquet folder -------
_FOLDERS: list[str] = []


def spark_view(original: Frame) -> str:
    """Register a Spark DataFrame as a global temporary view (the Spark engine reads it in its
    own session of the same SparkContext) and return its qualified name."""
    name = f"sqlanon_input_{uuid.uuid4().hex[:12]}"
    original.native.createOrReplaceGlobalTempView(name)
    return f"global_temp.{name}"


def drop_spark_view(original: Frame, qualified: str) -> None:
    original.native.sparkSession.catalog.dropGlobalTempView(qualified.split(".", 1)[1])


def keep_folder() -> str:
    """A temporary folder that lives until the interpreter exits: a Spark DataFrame read
    from a file there stays valid as long as the session uses it."""
    folder = tempfile.mkdtemp(prefix="sqlanon-released-")
    _FOLDERS.append(folder)
    return folder


@atexit.register
def _remove_folders() -> None:
    for folder in _FOLDERS:
        shutil.rmtree(folder, ignore_errors=True)
