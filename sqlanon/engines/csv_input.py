"""What a CSV input can get wrong, said plainly: a header naming a column twice, a file not in
its encoding, a row of another width. Every engine that reads a CSV (DuckDB's read_csv,
pyarrow for the memory and Spark engines) asks here before it reads and when a read fails;
neither reader names the line or the cause in words a user can act on.
"""

from __future__ import annotations

import csv

from sqlanon.config.job import Source
from sqlanon.errors import DataError, cut, first_line
from sqlanon.config.encodings import first_undecodable, reading_codec, undecodable_message

_SHOW = 5


def header(source: Source) -> list[str]:
    """The field names of the CSV's first line, in the input's encoding ([] for an empty file)."""
    try:
        with open(source.path, newline="", encoding=reading_codec(source.encoding)) as handle:
            return next(csv.reader(handle, delimiter=source.delimiter), [])
    except UnicodeDecodeError as error:
        raise read_error(source, error) from None
    except csv.Error:  # e.g. a field above the csv module's size limit: the reader will say what it finds
        return []


def check_header(source: Source) -> None:
    """Refuse a header that names a column twice: DuckDB would rename the second one
    (``x_1``) and pyarrow keep both, and either way a role would land on the wrong column."""
    names = header(source)
    places: dict[str, list[int]] = {}
    for position, name in enumerate(names, start=1):
        places.setdefault(name, []).append(position)
    # Unnamed columns (a trailing delimiter) get generated names from the readers: not a clash.
    twice = [(name, at) for name, at in places.items() if len(at) > 1 and name.strip()]
    if twice:
        shown = "; ".join(f"{cut(name)} in columns {', '.join(map(str, at))}" for name, at in twice[:_SHOW])
        raise DataError(
            f"input {source.path}: the header (line 1) names {len(twice)} column(s) more than once: {shown}. "
            "Every column needs its own name: rename the duplicates in the header line"
        )


def read_error(source: Source, error: Exception) -> DataError:
    """The error for an unreadable input. For a CSV it says first whether the file is not in
    its encoding (naming the line and byte), then names the first ragged row; otherwise the
    reader's own first line."""
    if source.kind == "csv":
        found = first_undecodable(source.path, source.encoding)
        if found is not None:
            return DataError(undecodable_message(f"input {source.path}", source.path, source.encoding, found,
                                                 "[input] encoding"))
        ragged = first_ragged_row(source)
        if ragged:
            line, found_fields, expected = ragged
            return DataError(
                f"input {source.path}: line {line} has {found_fields} fields, the header has {expected} "
                f"(delimiter {source.delimiter!r}). Fix the row or quote fields that contain the delimiter."
            )
    return DataError(f"cannot read input {source.describe()}: {first_line(error)}")


def first_ragged_row(source: Source) -> tuple[int, int, int] | None:
    """(line number, fields, header fields) of the first row whose width differs, or None."""
    try:
        with open(source.path, newline="", encoding=reading_codec(source.encoding)) as handle:
            reader = csv.reader(handle, delimiter=source.delimiter)
            first = next(reader, None)
            if first is None:
                return None
            for row in reader:
                if row and len(row) != len(first):
                    return reader.line_num, len(row), len(first)
    except (OSError, UnicodeDecodeError, csv.Error):
        return None
    return None
