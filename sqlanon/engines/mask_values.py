"""Input rows whose QI holds the suppression mask (``*``) itself: refused before any search.

A suppressed row is released with every QI set to the mask (``core/mask.py``), and the
verification, ``sqlanon check`` and the risk re-count recognise it by that alone; a real row
holding ``*`` would be counted as suppressed by one and as a class by the other. So the mask
is no data value: every engine refuses it where it first meets the input's QI values, at no
extra scan. A hierarchy without a ``*`` leaf leaves such rows unencoded, and the engine's
coverage check hands them here (``refuse_uncovered``); a hierarchy listing ``*`` as a leaf
(or a builder that took it from the data) encodes them, and the session finds their rows in
the rows per leaf code it reads anyway (``refuse_masked_leaves``). Only then is the input
read again, to name the first rows (CSV lines as the file numbers them, row positions
otherwise).
"""

from __future__ import annotations

import csv
import glob
from collections.abc import Iterable, Iterator, Sequence

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from sqlanon.core.encodings import reading_codec
from sqlanon.core.specs import Source
from sqlanon.core.mask import MASK
from sqlanon.errors import HierarchyError
from sqlanon.hierarchy import EncodedHierarchy
from sqlanon.hierarchy.coverage import refuse_missing_values

_SHOW = 5


def refuse_uncovered(name: str, source: Source, found: Iterable[tuple[str, int]], hierarchy: EncodedHierarchy) -> None:
    """``coverage.refuse_missing_values`` for the values of QI ``name`` no leaf holds, unless one
    of them is the mask: then the mask's own error (adding a hierarchy row for it would not help)."""
    missing = [(value, int(rows)) for value, rows in found]
    for value, rows in missing:
        if value == MASK:
            raise mask_error(name, source, rows)
    refuse_missing_values(name, source.describe(), missing, hierarchy)


def refuse_masked_leaves(
    source: Source, names: Sequence[str], hierarchies: Sequence[EncodedHierarchy], value_counts: Sequence[Sequence[int]]
) -> None:
    """Refuse the rows of a QI whose hierarchy lists the mask as a leaf, from the rows per leaf
    code (``PreparedData.value_counts``); a ``*`` leaf no row holds changes nothing."""
    for name, hierarchy, counts in zip(names, hierarchies, value_counts):
        leaves = hierarchy.labels[0]
        if MASK in leaves and counts[leaves.index(MASK)]:
            raise mask_error(name, source, int(counts[leaves.index(MASK)]))


def mask_error(name: str, source: Source, rows: int) -> HierarchyError:
    """The refusal of ``rows`` rows whose QI ``name`` is the mask, naming the first of them."""
    where = located(source, name, rows)
    return HierarchyError(
        f"column '{name}' of {source.describe()} holds {MASK!r} in {rows} row(s){f' ({where})' if where else ''}: "
        f"{MASK!r} is the mask of a suppressed row, so such a row, released, could not be told from a suppressed one. "
        "Recode the value in the input (e.g. to 'unknown', with a hierarchy row for it) or leave those rows out; "
        "to anonymize a release again, anonymize its original data instead"
    )


def located(source: Source, name: str, rows: int, limit: int = _SHOW) -> str:
    """Where the first ``limit`` of the ``rows`` rows holding the mask in column ``name`` are,
    as a message says it ('' when none is found)."""
    try:
        if source.kind == "csv":
            return _listed("line", list(_csv_lines(source, name, limit)), rows)
        if source.kind == "arrow":
            return _listed(
                "row position", list(_positions([source.arrow.column(name)], limit)), rows, ", counted from 0"
            )
        if source.kind == "parquet":
            return _listed("row", _parquet_rows(source, name, limit), rows, ", counted from 1")
    except (OSError, UnicodeDecodeError, csv.Error, pa.ArrowException, KeyError):
        return ""  # the rows stay unnamed; the count and the fix stand
    return f'a table has no row order: WHERE "{name}" = {MASK!r} selects them'


def _listed(what: str, numbers: Sequence[int | str], rows: int, counted: str = "") -> str:
    if not numbers:
        return ""
    more = ", …" if rows > len(numbers) else ""
    return f"{what}{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}{more}{counted}"


def _csv_lines(source: Source, name: str, limit: int) -> Iterator[int]:
    """The file's line numbers (a quoted field may span lines: the record's first line) of the
    first ``limit`` records whose field ``name`` is the mask."""
    assert source.path is not None  # a CSV source is a file
    with open(source.path, newline="", encoding=reading_codec(source.encoding)) as handle:
        reader = csv.reader(handle, delimiter=source.delimiter)
        header = next(reader, [])
        if name not in header:
            return
        column = header.index(name)
        found = 0
        while found < limit:
            start = reader.line_num + 1
            row = next(reader, None)
            if row is None:
                return
            if len(row) > column and row[column] == MASK:
                found += 1
                yield start


def _positions(columns: Iterable[pa.ChunkedArray | pa.Array], limit: int) -> Iterator[int]:
    """Positions (from 0, across ``columns`` in order) of the first ``limit`` values that are the mask."""
    offset = found = 0
    for column in columns:
        kind = column.type.value_type if pa.types.is_dictionary(column.type) else column.type
        if pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_string_view(kind):
            text = column.cast(kind) if kind != column.type else column
            for index in pc.indices_nonzero(pc.fill_null(pc.equal(text, MASK), False)).to_pylist()[: limit - found]:
                found += 1
                yield offset + index
        offset += len(column)
        if found >= limit:
            return


def _parquet_rows(source: Source, name: str, limit: int) -> list[str]:
    """The first ``limit`` rows, counted from 1 in each file (named when there are several),
    the files in name order (the order DuckDB reads)."""
    assert source.path is not None  # a Parquet source is a file or a glob
    files = sorted(glob.glob(source.path))
    shown: list[str] = []
    for path in files:
        batches = (batch.column(0) for batch in pq.ParquetFile(path).iter_batches(columns=[name]))
        rows = [str(p + 1) for p in _positions(batches, limit - len(shown))]
        shown += [f"{r} of {path}" for r in rows] if len(files) > 1 else rows
        if len(shown) >= limit:
            break
    return shown
