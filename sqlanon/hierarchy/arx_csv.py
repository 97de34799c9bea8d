"""Read a hierarchy in ARX's CSV layout: one row per original value, ';'-separated,
no header, level 0 first and the most general value last."""

from __future__ import annotations

import csv
from pathlib import Path

from sqlanon.errors import HierarchyError, cut
from sqlanon.hierarchy.model import Hierarchy
from sqlanon.config.encodings import first_undecodable, reading_codec, undecodable_message
from sqlanon.config.wording import hierarchy_encoding_setting

#: separators a hierarchy exported by a spreadsheet or another tool often has instead of ';'
_OTHER_SEPARATORS = {",": "','", "\t": "tabs ('\\t')"}


def read_hierarchy(path: str | Path, attribute: str, delimiter: str = ";", encoding: str | None = None,
                   setting: str | None = None) -> Hierarchy:
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
    try:
        with path.open(newline="", encoding=reading_codec(encoding)) as handle:
            rows = [row for row in csv.reader(handle, delimiter=delimiter)]
    except FileNotFoundError:
        raise HierarchyError(
            f"hierarchy file for attribute '{attribute}' not found: {path} "
            "(paths in a job file are relative to the job file)"
        ) from None
    except UnicodeDecodeError as error:
        found = first_undecodable(str(path), encoding) or (None, error.start + 1, error.object[error.start:error.end], "")
        named = hierarchy_encoding_setting(attribute) if setting is None else f"{setting} encoding"
        raise HierarchyError(undecodable_message(f"hierarchy file {path} (attribute '{attribute}')", str(path), encoding,
                                                 found, named)) from None
    except (OSError, csv.Error) as error:
        raise HierarchyError(f"cannot read hierarchy file {path} for '{attribute}': {error}") from None
    # A trailing empty line is common in hand-written files; an empty row elsewhere is not data.
    lines = [(number, row) for number, row in enumerate(rows, start=1) if row]
    _refuse_layout_mistakes(attribute, lines, str(path), delimiter)
    return Hierarchy.from_rows(attribute, lines, source=str(path))


def _refuse_layout_mistakes(attribute: str, lines: list[tuple[int, list[str]]], source: str, delimiter: str) -> None:
    """A file of whitespace only, and one written with another separator, would otherwise
    read as rows of one field each and fail only later, as values missing from the data."""
    where = f"hierarchy for '{attribute}' ({source})"
    if lines and all(not field.strip() for _, row in lines for field in row):
        raise HierarchyError(
            f"{where} holds only whitespace ({len(lines)} line(s)): it needs one row per value of the attribute, "
            f"its levels separated by {delimiter!r}, e.g. 17{delimiter}15-19{delimiter}*"
        )
    if not lines or any(len(row) != 1 for _, row in lines):
        return
    for separator, named in _OTHER_SEPARATORS.items():
        if separator != delimiter and all(separator in row[0] for _, row in lines):
            line, (text,) = lines[0]
            raise HierarchyError(
                f"{where} is separated by {named}; ARX hierarchies use {delimiter!r} (line {line}: {cut(text)} reads as "
                f"one field, so every row would be a value of its own): replace the separators with {delimiter!r}, "
                "or export the file with ';'"
            )
