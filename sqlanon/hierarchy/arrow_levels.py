"""A hierarchy file's levels encoded by Arrow's CSV reader: the common layout (no quote, no
empty line, one separator of one character) split and dictionary-encoded in C++, so that a
level of a million values costs no Python string per field, and only the original values
(level 0) become strings. Loaded by a read, never by the command line's help."""

from __future__ import annotations

import array
import csv

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from sqlanon.hierarchy.model import Level


def read_levels(data: bytes, delimiter: str) -> list[Level] | None:
    """The levels of ``data`` (UTF-8 text, lines ended by "\\n"), each encoded as ``Level``
    (codes dense per level in order of first appearance, as ``model._level`` makes them).
    None when Arrow does not read it as one table of strings with as many fields per line, or
    a value is longer than the csv module reads: the row-by-row reader then names the line."""
    first = data.split(b"\n", 1)[0]
    width = first.count(delimiter.encode("utf-8")) + 1
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(autogenerate_column_names=True),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                double_quote=False,
                escape_char=False,
                newlines_in_values=False,
                ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types={f"f{i}": pa.string() for i in range(width)}, strings_can_be_null=False, null_values=[]
            ),
        )
    except (pa.ArrowInvalid, ValueError):
        return None
    if table.num_columns != width or table.num_rows == 0:
        return None
    limit = csv.field_size_limit()
    if any((pc.max(pc.utf8_length(column)).as_py() or 0) > limit for column in table.columns):
        return None
    return [_level(column.combine_chunks(), index == 0) for index, column in enumerate(table.columns)]


def _level(column: pa.Array, leaves: bool) -> Level:
    rows = len(column)
    if leaves:  # the original values: distinct in a valid hierarchy, so their codes are the positions
        values = tuple(column.to_pylist())
        if len(set(values)) == rows:
            return Level(values, range(rows), (1,) * rows)
    encoded = pc.dictionary_encode(column)
    # the int32 indices (no null) as they lie in Arrow's buffer; ``to_numpy`` would load pandas
    held = encoded.indices
    indices = np.frombuffer(held.buffers()[1], dtype=np.int32, count=len(held), offset=held.offset * 4)
    codes = array.array("i")  # Python ints on access, as the row-by-row encoding's lists give
    codes.frombytes(indices.tobytes())
    labels = tuple(encoded.dictionary.to_pylist())
    return Level(labels, codes, tuple(np.bincount(indices, minlength=len(labels)).tolist()))
