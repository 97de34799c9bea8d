"""What a result moved into Python, and its rows as arrays: ``bytes_fetched``, the counter every
engine keeps, is the text length of each value fetched, counted alike for rows and for arrays
(without a Python object per value)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


def columns_of(names: Sequence[str], rows: Sequence[tuple]) -> dict[str, np.ndarray]:
    """A result's rows as one array per column (``_columns``' default)."""
    return {name: np.array([row[i] for row in rows]) for i, name in enumerate(names)}


def fetched_bytes(rows) -> int:
    """What a result moved into Python, measured alike for every engine: the length of each
    value's text (NULL: 0). Not the wire size, which only a client-server engine has."""
    return sum(len(str(v)) for row in rows for v in row if v is not None)


def _digits(values: np.ndarray) -> int:
    """Total characters of the integers' decimal text, signs included: one pass per digit
    the largest has (each a vectorised comparison), for class sizes a handful."""
    if not len(values):
        return 0
    negative = values < 0
    signs = int(np.count_nonzero(negative))
    magnitude = np.abs(values) if signs else values
    top = magnitude.max()
    total, bound = len(values) + signs, 10
    while bound <= top:
        total += int(np.count_nonzero(magnitude >= bound))
        bound *= 10
    return total


def text_bytes(columns: dict[str, np.ndarray]) -> int:
    """``fetched_bytes`` of a result of integers and booleans fetched as arrays:
    the length of each value's text (NULL: 0), the same count as over the rows, without a
    string per value."""
    total = 0
    for values in columns.values():
        if isinstance(values, np.ma.MaskedArray):
            values = values.compressed()
        if values.dtype == bool:
            true = int(np.count_nonzero(values))
            total += 4 * true + 5 * (len(values) - true)  # "True", "False"
        elif values.dtype.kind in "iuf":
            total += _digits(values)  # integers (a float64 here is DuckDB's HUGEINT: a whole number)
        else:
            total += sum(len(str(v)) for v in values.tolist() if v is not None)
    return total
