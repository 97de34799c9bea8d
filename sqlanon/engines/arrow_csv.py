"""CSV from Arrow record batches, written by DuckDB's own CSV writer.

The engines whose released rows arrive in Python as Arrow (PostgreSQL's cursor, Spark's
collected result) write CSV here, so every value is printed exactly as the DuckDB engine's
``COPY ... (FORMAT csv)`` prints the same type: decimals with their scale, timestamps without
trailing zeros, time zones in DuckDB's TimeZone, floats as their shortest text. DuckDB pulls
the batches one at a time (a stream, not a table in memory) and keeps their order.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import duckdb
import pyarrow as pa

from sqlanon.engines.duckdb.connection import interruptible, literal


def write_csv(schema: pa.Schema, batches: Iterable[pa.RecordBatch], target: str, delimiter: str) -> None:
    """Write ``batches`` (of ``schema``) to ``target`` with a header, as DuckDB writes CSV.
    An exception raised while producing a batch is re-raised as it was (DuckDB would turn it
    into its own error)."""
    failed: list[BaseException] = []

    def produced() -> Iterator[pa.RecordBatch]:
        try:
            yield from batches
        except BaseException as error:  # noqa: BLE001  handed back to the caller below
            failed.append(error)
            raise

    reader = pa.RecordBatchReader.from_batches(schema, produced())
    con = duckdb.connect()
    try:
        con.register("sqlanon_rows", reader)  # a view over the stream
        with interruptible():
            con.execute(
                f'COPY (SELECT * FROM "sqlanon_rows") TO {literal(target)} '
                f"(FORMAT csv, HEADER true, DELIMITER {literal(delimiter)})"
            ).fetchall()
    except BaseException:
        if failed:
            raise failed[0] from None
        raise
    finally:
        con.close()
