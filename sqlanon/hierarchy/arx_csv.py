"""Read a hierarchy in ARX's CSV layout: one row per original value, ';'-separated,
no header, level 0 first and the most general value last."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path
from typing import Sequence

from sqlanon.core import files
from sqlanon.core.encodings import first_undecodable, reading_codec, undecodable_message
from sqlanon.core.wording import hierarchy_encoding_setting
from sqlanon.errors import HierarchyError, cut
from sqlanon.hierarchy.model import Hierarchy, Level, collection_paused, columns_of, level_columns

#: separators a hierarchy exported by a spreadsheet or another tool often has instead of ';'
_OTHER_SEPARATORS = {",": "','", "\t": "tabs ('\\t')"}
_TOO_LARGE = (
    "a hierarchy holds one row per value of its attribute: check that the path names the attribute's "
    'hierarchy, or generalize the attribute with a builder (hierarchy = { type = "mask" }, "intervals", ...)'
)


def read_hierarchy(
    path: str | Path, attribute: str, delimiter: str = ";", encoding: str | None = None, setting: str | None = None
) -> Hierarchy:
    """Load and validate the hierarchy of ``attribute`` from ``path`` (text in ``encoding``,
    UTF-8 by default). ``setting``: where the job sets the file's encoding, for the message
    (default: the attribute's own ``[attributes.<name>] encoding``).

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "sex.csv")
    >>> _ = open(p, "w").write("Male;*\\nFemale;*\\n")
    >>> read_hierarchy(p, "sex").height
    1
    """
    path = Path(path)
    what = f"hierarchy file for attribute '{attribute}'"
    where = f"hierarchy file {path} (attribute '{attribute}')"
    data = files.read_limited(str(path), what, files.HIERARCHY_LIMIT, HierarchyError, _TOO_LARGE)
    try:
        text = data.decode(reading_codec(encoding))
    except UnicodeDecodeError as error:
        found = first_undecodable(str(path), encoding) or (
            None,
            error.start + 1,
            error.object[error.start : error.end],
            "",
        )
        named = hierarchy_encoding_setting(attribute) if setting is None else f"{setting} encoding"
        raise HierarchyError(undecodable_message(where, str(path), encoding, found, named)) from None
    with collection_paused():
        flat = text.replace("\r\n", "\n")
        levels = _common_levels(flat, delimiter)
        if levels is not None:
            _refuse_layout_mistakes(attribute, level_columns(levels[1]), (), str(path), delimiter)
            hierarchy = Hierarchy.from_levels(attribute, levels[1], source=str(path))
            if delimiter == ";":  # the file's text is the checksum's: no second copy of the rows as text
                hierarchy.__dict__["checksum"] = _checksum(levels[0])
            return hierarchy
        rows, lines = _rows(text, delimiter, where)
        if rows and len(set(map(len, rows))) == 1:
            _refuse_layout_mistakes(attribute, columns_of(rows, len(rows[0])), lines, str(path), delimiter)
        return Hierarchy.from_rows(attribute, rows, source=str(path), lines=lines)


def _checksum(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _common_levels(flat: str, delimiter: str) -> tuple[bytes, list[Level]] | None:
    """The UTF-8 text of a file in the common layout (``flat``: its text, lines ended by
    "\\n"; the last newline dropped) and its levels encoded by Arrow: no quote, no carriage
    return alone, no empty line but the last, every line with as many fields. None for any
    other file (read row by row: ``_rows``)."""
    if not flat or '"' in flat or "\r" in flat or "\n\n" in flat or flat.startswith("\n") or len(delimiter) != 1:
        return None
    data = (flat[:-1] if flat.endswith("\n") else flat).encode("utf-8")
    from sqlanon.hierarchy.arrow_levels import read_levels  # Arrow loaded by a read, not by the command line's help

    levels = read_levels(data, delimiter)
    return None if levels is None else (data, levels)


def _refuse_long_values(lines: list[str], delimiter: str, limit: int, where: str) -> None:
    for number, line in enumerate(lines, start=1):
        fields = line.split(delimiter)
        if max(map(len, fields)) > limit:
            raise _value_too_long(where, number, fields, delimiter, limit)


def _rows(text: str, delimiter: str, where: str) -> tuple[list[tuple[str, ...]], list[int]]:
    """The non-empty rows of ``text`` and their line numbers (a trailing empty line is common in
    hand-written files; an empty row elsewhere is not data). Text without quotes is split at C
    speed, as the csv module would split it; quoted text goes through the csv module."""
    flat = text.replace("\r\n", "\n")
    if '"' in flat or "\r" in flat:
        return _csv_rows(text, delimiter, where)
    split = flat.split("\n")
    limit = csv.field_size_limit()
    if max(map(len, split)) > limit:
        _refuse_long_values(split, delimiter, limit, where)
    numbered = [(number, tuple(line.split(delimiter))) for number, line in enumerate(split, start=1) if line]
    return [row for _, row in numbered], [number for number, _ in numbered]


def _csv_rows(text: str, delimiter: str, where: str) -> tuple[list[tuple[str, ...]], list[int]]:
    """As ``_rows``, through the csv module (quotes; lines ended by a lone carriage return)."""
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    rows, lines = [], []
    try:
        for number, row in enumerate(reader, start=1):
            if row:
                rows.append(tuple(row))
                lines.append(number)
    except csv.Error as error:
        if "field larger than field limit" in str(error):
            line = reader.line_num
            fields = text.splitlines()[line - 1].split(delimiter) if line else []
            raise _value_too_long(where, line, fields, delimiter, csv.field_size_limit()) from None
        raise HierarchyError(f"cannot read {where}: line {reader.line_num}: {error}") from None
    return rows, lines


def _value_too_long(where: str, line: int, fields: list[str], delimiter: str, limit: int) -> HierarchyError:
    """A value longer than the csv module reads: where it is (its column when the line shows it)."""
    long = [(column, field) for column, field in enumerate(fields, start=1) if len(field) > limit]
    at = f"line {line}, column {long[0][0]}" if long else f"line {line}"
    value = f" ({cut(long[0][1])})" if long else ""
    return HierarchyError(
        f"{where}: {at} holds a value longer than {limit:,} characters{value}, the most a hierarchy value may have: "
        f"a value is one category of the attribute; shorten it, or check the quoting and the separator "
        f"({delimiter!r}) of that line (an unclosed quote makes the rest of the file one value)"
    )


def _refuse_layout_mistakes(
    attribute: str, columns: Sequence[Sequence[str]], lines: Sequence[int], source: str, delimiter: str
) -> None:
    """A file of whitespace only, and one written with another separator, would otherwise
    read as rows of one field each and fail only later, as values missing from the data."""
    where = f"hierarchy for '{attribute}' ({source})"
    if columns and all(not field.strip() for column in columns for field in column):
        raise HierarchyError(
            f"{where} holds only whitespace ({len(columns[0])} line(s)): it needs one row per value of the attribute, "
            f"its levels separated by {delimiter!r}, e.g. 17{delimiter}15-19{delimiter}*"
        )
    if len(columns) != 1:
        return
    (values,) = columns
    for separator, named in _OTHER_SEPARATORS.items():
        if separator != delimiter and all(separator in value for value in values):
            line = lines[0] if lines else 1
            raise HierarchyError(
                f"{where} is separated by {named}; ARX hierarchies use {delimiter!r} (line {line}: {cut(values[0])} reads "
                f"as one field, so every row would be a value of its own): replace the separators with {delimiter!r}, "
                "or export the file with ';'"
            )
