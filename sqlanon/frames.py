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

from sqlanon.errors import CUT, ConfigError, DataError, cut, first_line
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
    names = _classes(data)
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
    if ("polars", "Series") in names:  # a column, though it speaks the stream interface
        return None
    if hasattr(data, "__arrow_c_stream__") or isinstance(data, pa.RecordBatchReader):
        return "arrow-stream"
    return None


def _classes(data: Any) -> set[tuple[str, str]]:
    """(top-level module, class name) of ``data``'s type and its bases: no library is imported to ask."""
    return {(c.__module__.split(".")[0], c.__name__) for c in type(data).__mro__}


def frame(data: Any) -> Frame:
    """``data`` as a Frame; a ConfigError names what is accepted when it is none of them, a
    DataError what a table holds that no table sqlanon reads may (``_refuse_names``,
    ``_from_pandas``), each with the fix."""
    kind = kind_of(data)
    if {("pandas", "Series"), ("polars", "Series")} & _classes(data):
        raise ConfigError(
            f"got a {type(data).__module__.split('.')[0]} Series, not a table: give a DataFrame, e.g. series.to_frame()"
        )
    if kind is None:
        raise ConfigError(
            f"cannot read a {type(data).__module__}.{type(data).__qualname__} as a table: give a pandas, polars or "
            "pyarrow table, a DuckDB relation, a Spark DataFrame, any object with __arrow_c_stream__ (the Arrow "
            "PyCapsule interface), or a path to a .csv, .parquet or .duckdb file"
        )
    if kind == "spark":
        _refuse_names(list(data.columns), "Spark DataFrame", "df = df.toDF(*new_names)")
        return Frame(kind, data, None)
    if kind == "pyarrow":
        table = data
    elif kind == "pandas":
        table = _from_pandas(data)
    elif kind == "polars":
        table = data.to_arrow()
    elif kind == "polars-lazy":
        table = data.collect().to_arrow()
    elif kind == "duckdb":
        table = data.to_arrow_table()
    else:
        table = _from_stream(data)
    _refuse_names(
        table.column_names,
        f"{kind} table",
        "table.rename_columns([...])" if kind != "duckdb" else "SELECT ... AS new_name",
    )
    return Frame(kind, data, table.replace_schema_metadata(None))


def _refuse_names(names: list[str], what: str, rename: str) -> None:
    """A column named twice: a role would land on one of them (DuckDB renames the second x_1)."""
    places: dict[str, list[int]] = {}
    for position, name in enumerate(names):
        places.setdefault(name, []).append(position)
    twice = [(name, at) for name, at in places.items() if len(at) > 1]
    if twice:
        shown = "; ".join(f"{cut(name)} at positions {', '.join(map(str, at))}" for name, at in twice[:5])
        raise DataError(
            f"the {what} names {len(twice)} column(s) more than once: {shown} (counted from 0). "
            f"Every column needs its own name: rename the duplicates ({rename})"
        )


def _from_pandas(data: Any) -> pa.Table:
    """A pandas DataFrame as Arrow, its columns named by text. The index is not data (a
    filtered frame's row labels): reset_index() keeps it as a column."""
    columns = data.columns
    if columns.nlevels > 1:
        raise DataError(
            f"the pandas DataFrame's columns are a MultiIndex ({_shown(columns[0])}, ...): sqlanon names "
            "columns by text; flatten them, e.g. df.columns = ['_'.join(map(str, c)) for c in df.columns]"
        )
    named = [name for name in columns if not isinstance(name, str)]
    if named:
        raise DataError(
            f"the pandas DataFrame has columns named by {type(named[0]).__name__} ({_shown(named[0])}"
            f"{', ...' if len(named) > 1 else ''}): sqlanon names columns by text; name them, e.g. "
            "df.columns = df.columns.map(str)"
        )
    _refuse_names(list(columns), "pandas DataFrame", "df.columns = [...]")
    try:
        return pa.Table.from_pandas(data, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as error:
        raise _unconvertible(data, error) from None


def _shown(value: Any) -> str:
    """A value of any type as Python writes it, cut as ``errors.cut`` cuts text."""
    text = repr(value)
    return text if len(text) <= CUT else text[:CUT] + "…"


def _unconvertible(data: Any, error: Exception) -> DataError:
    """The column Arrow cannot hold (an object column of mixed types, most often), named with
    two of its values of different types and the fix."""
    for position, name in enumerate(data.columns):
        column = data.iloc[:, position]
        try:
            pa.array(column, from_pandas=True)
            continue
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            pass
        seen: dict[type, tuple[int, Any]] = {}
        for row, value in enumerate(column):
            if value is not None and value == value:  # NaN and None are NULL in any type
                seen.setdefault(type(value), (row, value))
                if len(seen) == 2:
                    break
        mixed = " and ".join(
            f"{kind.__name__} {_shown(value)} (at position {row})" for kind, (row, value) in seen.items()
        )
        return DataError(
            f"column {cut(name)} of the pandas DataFrame ({column.dtype}) "
            f"{f'mixes {mixed}' if len(seen) == 2 else 'holds values no Arrow type holds'}: "
            f"give it one type, e.g. df[{name!r}] = df[{name!r}].astype(str)"
        )
    return DataError(f"cannot read the pandas DataFrame as Arrow: {first_line(error)}")


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


def restore(
    original: Frame, table: pa.Table | None, parquet: str | None = None, generalized: Collection[str] = ()
) -> Any:
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
    in ``schema``. A Parquet file keeps the values, not always their Arrow type: Spark writes a
    zone's instants as UTC (timestamp[us, tz=UTC] for tz=Europe/Berlin) and every string type
    as string, where the other engines' files name the input's types (engines/parquet_types.py).
    A value the cast would change (none that a verified release holds) keeps the file's type."""
    for index, field in enumerate(table.schema):
        if field.name in generalized or schema.get_field_index(field.name) < 0:
            continue
        given = schema.field(field.name)
        if field.type != given.type:
            try:
                table = table.set_column(index, given, table.column(index).cast(given.type))
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                continue
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
