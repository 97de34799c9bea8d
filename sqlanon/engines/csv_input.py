"""What a CSV input can get wrong, said plainly: compressed bytes under a .csv name, a header
naming a column twice or not at all, a file not in its encoding, a line too long to read, a
quote never closed, a row of another width. Every engine that reads a CSV (DuckDB's read_csv,
pyarrow for the memory and Spark engines) asks here before it reads and when a read fails;
neither reader names the line or the cause in words a user can act on (DuckDB's sniffer even
reports a long line of a small file as line 1).

A CSV is read as RFC 4180 says: a field that starts with ``"`` is quoted up to the next lone
``"`` (``""`` inside it is one quote), and nothing but the delimiter or the line's end may
follow its closing quote. Column names are compared as DuckDB and SQL compare them: without
the spaces around them and ignoring case.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import count

from sqlanon.core import files
from sqlanon.core.specs import Source
from sqlanon.errors import DataError, cut, first_line
from sqlanon.core.encodings import first_undecodable, reading_codec, undecodable_message

_SHOW = 5
#: the longest CSV line (record) read, in bytes: DuckDB's default ``max_line_size``, and the
#: block size the memory engine gives pyarrow (a record must fit in one block)
LINE_LIMIT = 2_000_000
#: how DuckDB's CSV reader says a line is too long (it names its limit)
_DUCKDB_LONG = re.compile(r"Maximum line size of (\d+) bytes exceeded")
#: how pyarrow says a record does not fit in a block
_ARROW_LONG = "straddling object straddles two block boundaries"
#: how a value holding a quote is written in a CSV
_QUOTED = 'quote the whole value and double each quote in it (the value 5"x is written "5""x")'


def header(source: Source) -> list[str]:
    """The field names of the CSV's first line, in the input's encoding ([] for an empty file)."""
    assert source.path is not None  # a CSV source is a file
    try:
        with open(source.path, newline="", encoding=reading_codec(source.encoding)) as handle:
            return next(csv.reader(handle, delimiter=source.delimiter), [])
    except UnicodeDecodeError as error:
        raise read_error(source, error) from None
    except csv.Error:  # e.g. a field above the csv module's size limit: the reader will say what it finds
        return []


def check_header(source: Source) -> None:
    """Refuse a compressed file, a header with an empty name, and one that names a column twice:
    DuckDB would rename the second one (``x_1``, ``column2`` for an empty name) and pyarrow keep
    both, and either way a role would land on the wrong column."""
    assert source.path is not None  # a CSV source is a file
    refuse_compressed(source.path)
    names = header(source)
    empty = [position for position, name in enumerate(names, start=1) if not name.strip()]
    if empty:
        which = (
            f"column {empty[0]} of the header (line 1) is empty"
            if len(empty) == 1
            else f"columns {', '.join(map(str, empty[:_SHOW]))} of the header (line 1) are empty"
        )
        raise DataError(
            f"input {source.path}: {which}: every column needs a name. Write one in the header line (a pandas index "
            f"saved by to_csv() has none: save with index=False), or remove the column (a delimiter "
            f"{source.delimiter!r} that ends every line makes an empty last column)"
        )
    places: dict[str, list[int]] = {}
    for position, name in enumerate(names, start=1):
        places.setdefault(name.strip().casefold(), []).append(position)
    twice = [at for at in places.values() if len(at) > 1]
    if twice:
        shown = "; ".join(_clash(names, at) for at in twice[:_SHOW])
        variants = any(len({names[p - 1] for p in at}) > 1 for at in twice)
        rule = (
            " (names that differ only in case or in spaces around them are one name to DuckDB and to SQL)"
            if variants
            else ""
        )
        raise DataError(
            f"input {source.path}: the header (line 1) names {len(twice)} column(s) more than once: {shown}{rule}. "
            "Every column needs its own name: rename the duplicates in the header line"
        )


def _clash(names: list[str], at: list[int]) -> str:
    """The columns at positions ``at`` that share one name, as a message lists them."""
    if len({names[p - 1] for p in at}) == 1:
        return f"{cut(names[at[0] - 1])} in columns {', '.join(map(str, at))}"
    return ", ".join(f"{cut(names[p - 1])} in column {p}" for p in at)


def refuse_compressed(path: str) -> None:
    """Refuse a compressed file given as CSV, by its first bytes (its binary is never quoted)."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
    except OSError:
        return  # the reader says why it cannot open it
    packed = files.compression(head)
    if packed is not None:
        named, command = packed
        raise DataError(
            f"input {path} is compressed ({named}), not CSV text: decompress it first (e.g. {command} "
            f"{path} > decompressed.csv) and give the decompressed CSV file"
        )


def reading_failed(error: Exception) -> bool:
    """Whether a DuckDB error is its CSV reader's (the file's content), not the query's."""
    return "CSV Error on Line" in str(error) or "Error when sniffing file" in str(error)


def read_error(source: Source, error: Exception) -> DataError:
    """The error for an unreadable input. For a CSV it says, from the file itself, whether it
    is not in its encoding (naming the line and byte), holds a line too long to read, a quote
    never closed or a row of another width; otherwise the reader's own first line."""
    if source.kind == "csv":
        message = _diagnosis(source, str(error))
        if message is not None:
            return DataError(message)
    return DataError(f"cannot read input {source.describe()}: {first_line(error)}")


def _diagnosis(source: Source, said: str) -> str | None:
    assert source.path is not None  # a CSV source is a file
    found = first_undecodable(source.path, source.encoding)
    if found is not None:
        return undecodable_message(f"input {source.path}", source.path, source.encoding, found, "[input] encoding")
    duckdb_limit = _DUCKDB_LONG.search(said)
    limit = int(duckdb_limit.group(1)) if duckdb_limit else LINE_LIMIT
    if duckdb_limit or _ARROW_LONG in said:
        long = first_long_line(source.path, limit)
        if long is not None:
            line, size = long
            return (
                f"input {source.path}: line {line} is {size:,} bytes long, more than the {limit:,} bytes sqlanon "
                f"reads in one CSV line: shorten its long value (or leave the column out of the file), or check "
                "the line's quoting (a quote never closed makes the following lines one value)"
            )
    malformed = first_malformed_row(source, limit)
    if malformed is not None:
        return f"input {source.path}: {malformed}"
    return None


def first_long_line(path: str, limit: int) -> tuple[int, int] | None:
    """(line number, length in bytes without its line break) of the first line longer than
    ``limit`` bytes; a long line is read in pieces of 1 MiB, never whole."""
    try:
        with open(path, "rb") as handle:
            for number in count(1):
                piece = handle.readline(limit + 3)
                if not piece:
                    return None
                size, last = len(piece), piece
                while not last.endswith(b"\n") and (piece := handle.readline(1 << 20)):
                    size, last = size + len(piece), piece
                size -= 2 if last.endswith(b"\r\n") else 1 if last.endswith(b"\n") else 0
                if size > limit:
                    return number, size
    except OSError:
        return None
    return None


def first_malformed_row(source: Source, limit: int = LINE_LIMIT) -> str | None:
    """What is wrong with the first row that breaks the CSV rules (a quote never closed,
    characters after a closing quote, a value too long, another number of fields than the
    header's), naming its line; None when every row is well formed."""
    assert source.path is not None  # a CSV source is a file
    try:
        with open(source.path, newline="", encoding=reading_codec(source.encoding)) as handle, _field_limit(limit):
            reader = csv.reader(handle, delimiter=source.delimiter, strict=True)
            start = 1
            width = None
            try:
                for row in reader:
                    if width is None:
                        width = len(row)
                    elif row and len(row) != width:
                        return (
                            f"line {start} has {len(row)} fields, the header has {width} (delimiter "
                            f"{source.delimiter!r}). Fix the row or quote fields that contain the delimiter."
                        )
                    start = reader.line_num + 1
            except csv.Error as error:
                return _quoting(str(error), start, reader.line_num, limit)
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _quoting(error: str, start: int, line: int, limit: int) -> str:
    """The message for the csv module's ``error`` in the record from line ``start`` to ``line``."""
    if "unexpected end of data" in error or "field larger than field limit" in error:
        reach = "to the end of the file" if "unexpected end" in error else f"past {limit:,} bytes"
        return (
            f"line {start} opens a quoted field that is never closed (it would run {reach}). Close the quote, "
            f"or, if the quote belongs to the value, {_QUOTED}"
        )
    return f"line {line}: a quoted field is followed by other characters before the delimiter ({error}): {_QUOTED}"


@contextmanager
def _field_limit(limit: int) -> Iterator[None]:
    """The csv module's field size limit (131,072 characters, process-wide) raised to the
    engines' line limit while a failed read is diagnosed, then put back."""
    previous = csv.field_size_limit(max(limit, csv.field_size_limit()))
    try:
        yield
    finally:
        csv.field_size_limit(previous)


def refuse_unclosed_quote(source: Source) -> None:
    """Refuse a CSV with a quote never closed, which pyarrow reads as one value up to the end of
    the file. Such a file holds an odd number of quotes; only then is it parsed here."""
    assert source.path is not None  # a CSV source is a file
    try:
        with open(source.path, "rb") as handle:
            quotes = sum(block.count(b'"') for block in iter(lambda: handle.read(1 << 24), b""))
    except OSError:
        return
    if quotes % 2:
        malformed = first_malformed_row(source)
        if malformed is not None:
            raise DataError(f"input {source.path}: {malformed}")
