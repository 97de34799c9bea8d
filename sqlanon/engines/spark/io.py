"""The Spark engine's session, input and output (pyspark is imported here, on first use).

Inputs: Parquet files (globs allowed) and Spark tables are read by Spark itself; a CSV file
and a pyarrow Table are read on the driver with pyarrow (as the in-memory engine reads them)
and handed to Spark as Arrow. Every input gets a ``rowid`` column in input order (files in
name order, rows in file order), the order DuckDB reads and releases rows in.

Outputs: Parquet is written by Spark into a temporary folder beside the target and its one
part file renamed to the target; CSV is collected to the driver as Arrow and written there by
DuckDB's CSV writer (``arrow_csv``), so it suits small outputs only.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Sequence

import pyarrow as pa

from sqlanon.core import files
from sqlanon.core.specs import Source
from sqlanon.engines import arrow_csv
from sqlanon.engines.memory import io as memory_io
from sqlanon.errors import ConfigError, DataError, OutputError, first_line

ROWID = "rowid"
DEFAULT_MASTER = "local[2]"
SOURCE = "sqlanon_source"  # the source as a temp view, while hierarchy builders read it
#: Spark types whose text (CAST AS STRING) is the text DuckDB prints, so QIs match their
#: hierarchy rows alike on every engine; floats ("1.0E20" vs "1e+20"), decimals and timestamps
#: print differently and are refused in QIs and sensitive attributes.
TEXT_ALIKE = (
    "StringType",
    "VarcharType",
    "CharType",
    "ByteType",
    "ShortType",
    "IntegerType",
    "LongType",
    "BooleanType",
    "DateType",
    "NullType",
)


OUTPUT_TIMESTAMPS = "spark.sql.parquet.outputTimestampType"


def install_hint() -> str:
    return "install pyspark: python3 -m pip install 'sqlanon[spark]' (Java 17 or later must be on the PATH)"


def session(master: str | None, conf: dict[str, str]):
    """A SparkSession of its own (own temp views and SQL settings) on the process's
    SparkContext, which is started on first use with ``master`` and ``conf``. Without a
    ``master``: spark-submit's (its --master), or ``DEFAULT_MASTER``."""
    try:
        from pyspark import SparkConf, SparkContext
        from pyspark.sql import SparkSession
    except ImportError:
        raise ConfigError(f"the spark engine needs pyspark: {install_hint()}") from None
    starting = SparkContext._active_spark_context is None
    if master is None:
        master = SparkConf().get("spark.master") or DEFAULT_MASTER
    builder = SparkSession.builder.master(master).appName("sqlanon")
    for key, value in {**default_conf(master), **conf}.items():
        builder = builder.config(key, str(value))
    root = builder.getOrCreate()
    if starting:  # a context started by someone else (a test fixture, a notebook) keeps its level
        root.sparkContext.setLogLevel("ERROR")
    own = root.newSession()
    # Spark writes timestamps with a time zone as INT96 by default, which readers (pyarrow,
    # DuckDB) take as nanoseconds without a zone: written as DuckDB writes them instead.
    own.conf.set(OUTPUT_TIMESTAMPS, conf.get(OUTPUT_TIMESTAMPS, "TIMESTAMP_MICROS"))
    return own


def default_conf(master: str) -> dict[str, str]:
    """Settings for checks that group a small class table: no UI, and in local mode as many
    shuffle partitions as cores (200 tasks per GROUP BY would dominate a check)."""
    conf = {"spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false"}
    if master.startswith("local"):
        cores = master[len("local[") : -1] if master.startswith("local[") else "1"
        conf["spark.sql.shuffle.partitions"] = str(os.cpu_count() if cores == "*" else cores)
    return conf


def columns_of(spark, source: Source) -> list[str]:
    """The source's column names (reads no rows)."""
    kind = source.kind
    if kind == "parquet":
        assert source.path is not None  # a Parquet source is a path (a glob, a folder or a URL)
        if "://" not in source.path:
            files.input_files(kind, source.path, folders=True)  # Spark reads a folder of Parquet files too
        return list(_guard(source, lambda: spark.read.parquet(source.path).columns))
    if kind == "spark":
        if not spark.catalog.tableExists(source.table):
            raise DataError(
                f"Spark table '{source.table}' not found (input.table); tables: "
                f"{', '.join(sorted(t.name for t in spark.catalog.listTables())) or 'none'}"
            )
        return list(spark.table(source.table).columns)
    if kind == "csv":
        assert source.path is not None  # a CSV source is a file
        files.input_files(kind, source.path)
    if kind == "arrow" and not isinstance(source.arrow, pa.Table):
        raise DataError("the in-memory input must be a pyarrow.Table")
    try:
        return memory_io.read_columns(source)
    except (pa.ArrowInvalid, OSError) as error:
        raise memory_io._read_error(source, error) from None


def read(spark, source: Source, names: Sequence[str], texts: Sequence[str]):
    """The named columns of the source and ``rowid`` as a DataFrame. ``texts``: the QIs and
    sensitive attributes, compared with hierarchies and value lists by their text."""
    kind = source.kind
    if kind in ("csv", "arrow"):
        table = memory_io.read_table(source, names)
        for name in texts:  # as DuckDB prints them, which Spark's CAST would not for floats
            if not pa.types.is_string(table.column(name).type):
                text = memory_io.text_array(table.column(name), name)
                table = table.set_column(table.column_names.index(name), name, text)
        table = table.append_column(ROWID, pa.array(range(table.num_rows), pa.int64()))
        from pyspark.sql.pandas.types import from_arrow_schema

        # A timestamp without a zone stays one (TIMESTAMP_NTZ), as Parquet and DuckDB keep it;
        # Spark's default would give it the session's zone.
        return spark.createDataFrame(table, schema=from_arrow_schema(table.schema, prefer_timestamp_ntz=True))
    frame = spark.table(source.table) if kind == "spark" else _parquet_in_order(spark, source)
    _check_text_types(frame, source, texts)
    if kind == "spark":
        from pyspark.sql import functions as F

        # A table has no order of its own: the ids follow Spark's partitions.
        return frame.select(*(F.col(f"`{n}`") for n in names), F.monotonically_increasing_id().alias(ROWID))
    return frame.select(*(f"`{n}`" for n in names), ROWID)


def read_unordered(spark, source: Source, names: Sequence[str], texts: Sequence[str]):
    """The named columns of the source without ``rowid``, for a scan whose order does not
    matter (prepare's one GROUP BY): no row numbering, no join to the files' ranks."""
    if source.kind in ("csv", "arrow"):
        return read(spark, source, names, texts).drop(ROWID)
    frame = (
        spark.table(source.table) if source.kind == "spark" else _guard(source, lambda: spark.read.parquet(source.path))
    )
    _check_text_types(frame, source, texts)
    return frame.select(*(f"`{n}`" for n in names))


def _check_text_types(frame, source: Source, texts: Sequence[str]) -> None:
    for field in frame.schema.fields:
        if field.name in texts and type(field.dataType).__name__ not in TEXT_ALIKE:
            raise DataError(
                f"column '{field.name}' of {source.describe()} has type {field.dataType.simpleString()}, which Spark "
                "prints differently from the other engines (hierarchies match a QI by its text): cast it to string "
                "or an integer in the source"
            )


def _parquet_in_order(spark, source: Source):
    """Parquet with ``rowid`` = (the file's rank by name) * 2^40 + its row index: Spark reads
    files in its own order (largest first), DuckDB in name order."""
    from pyspark.sql import functions as F

    frame = _guard(source, lambda: spark.read.parquet(source.path))
    located = frame.select(
        "*", F.col("_metadata.file_path").alias("__path"), F.col("_metadata.row_index").alias("__index")
    )
    # The paths as _metadata spells them (inputFiles() spells them otherwise): one small job.
    files = sorted(row[0] for row in located.select("__path").distinct().collect())
    ranks = spark.createDataFrame(pa.table({"__file": files, "__rank": pa.array(range(len(files)), pa.int64())}))
    joined = located.join(F.broadcast(ranks), located["__path"] == ranks["__file"])
    return joined.select(
        *(F.col(f"`{n}`") for n in frame.columns), (F.col("__rank") * F.lit(2**40) + F.col("__index")).alias(ROWID)
    )


def _guard(source: Source, action):
    try:
        return action()
    except Exception as error:  # pyspark's AnalysisException and friends: one line for the user
        if type(error).__name__ in ("AnalysisException", "Py4JJavaError", "IllegalArgumentException"):
            raise DataError(f"cannot read input {source.describe()}: {first_line(error)}") from None
        raise


def write_parquet(frame, target: str, path: str | None) -> None:
    """One Parquet file at ``target``: Spark writes a folder beside it, whose single part file
    is renamed to ``target``; the folder is removed whatever happens. ``coalesce(1)`` keeps the
    sorted order (it concatenates the sorted partitions)."""
    folder = f"{target}.parts"
    try:
        frame.coalesce(1).write.mode("error").parquet(folder)
        parts = glob.glob(os.path.join(glob.escape(folder), "part-*.parquet"))
        if len(parts) != 1:
            raise OutputError(f"Spark wrote {len(parts)} part files instead of one into {folder}")
        os.replace(parts[0], target)
    except OutputError:
        raise
    except Exception as error:
        if type(error).__name__ in ("AnalysisException", "Py4JJavaError", "IllegalArgumentException"):
            raise OutputError(f"cannot write output {path}: {first_line(error)}") from None
        raise
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def write_csv(frame, target: str, delimiter: str, path: str | None) -> None:
    """CSV written on the driver from Arrow by DuckDB's CSV writer (``arrow_csv``): every type
    printed as the DuckDB engine prints it."""
    table = frame.toArrow()
    try:
        arrow_csv.write_csv(table.schema, table.to_batches(), target, delimiter)
    except OSError as error:
        raise OutputError(f"cannot write output {path}: {error.strerror or error}") from None
