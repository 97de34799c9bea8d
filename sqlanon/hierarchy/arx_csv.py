"""Read a hierarchy in ARX's CSV layout: one row per original value, ';'-separated,
no header, level 0 first and the most general value last."""

from __future__ import annotations

import csv
from pathlib import Path

from sqlanon.errors import HierarchyError
from sqlanon.hierarchy.model import Hierarchy


def read_hierarchy(path: str | Path, attribute: str, delimiter: str = ";") -> Hierarchy:
    """Load and validate the hierarchy of ``attribute`` from ``path``.

    >>> import tempfile, os
    >>> p = os.path.join(tempfile.mkdtemp(), "sex.csv")
    >>> _ = open(p, "w").write("Male;*\\nFemale;*\\n")
    >>> read_hierarchy(p, "sex").height
    1
    """
    path = Path(path)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.reader(handle, delimiter=delimiter)]
    except FileNotFoundError:
        raise HierarchyError(
            f"hierarchy file for attribute '{attribute}' not found: {path} "
            "(paths in a job file are relative to the job file)"
        ) from None
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise HierarchyError(f"cannot read hierarchy file {path} for '{attribute}': {error}") from None
    # A trailing empty line is common in hand-written files; an empty row elsewhere is not data.
    lines = [(number, row) for number, row in enumerate(rows, start=1) if row]
    return Hierarchy.from_rows(attribute, lines, source=str(path))
