"""A validated generalization hierarchy and its integer encoding.

Encoding (the layout ARX calls ``int[value][level]``): the leaf code of a value is its row
index in the hierarchy; the code of a generalized value at level ``l`` is dense per level,
in order of first appearance. ``leaves[l][code]`` counts the hierarchy rows under a value,
which is what ARX's loss metric calls the value's domain share (divided by the row count).
"""

from __future__ import annotations

import gc
import hashlib
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from itertools import count
from operator import eq, itemgetter
from typing import NamedTuple, cast, overload

from sqlanon.errors import HierarchyError, cut

_SHOW = 5  # how many offending values an error message lists


@contextmanager
def collection_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a hierarchy's millions of values are held: they
    are strings and ints in tuples (no cycle to find), and the collector's passes over the
    growing heap took two thirds of the time of reading a 1 M-row hierarchy.

    On the way out, what was made meanwhile is moved to the oldest generation (``freeze`` then
    ``unfreeze``), so young collections do not walk those strings again: 0.3 s of a 1 M-row
    hierarchy's run. Nothing leaks: a full collection still sees them."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()


def columns_of(rows: Sequence[Sequence[str]], width: int) -> list[list[str]]:
    """The rows' fields by level (one pass per level at C speed, no tuple per row)."""
    return [list(map(itemgetter(level), rows)) for level in range(width)]


class CodedColumn(Sequence[str]):
    """A level's values by row, held as its distinct values and each row's code: a hierarchy
    built from its levels' encoding keeps that encoding, and a level's million values are made
    as strings only when a reader walks them."""

    __slots__ = ("labels", "codes")

    def __init__(self, labels: Sequence[str], codes: Sequence[int]) -> None:
        self.labels, self.codes = labels, codes

    def __len__(self) -> int:
        return len(self.codes)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, slice):
            return tuple(map(self.labels.__getitem__, self.codes[index]))
        return self.labels[self.codes[index]]

    def __iter__(self) -> Iterator[str]:
        return map(self.labels.__getitem__, self.codes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(map(eq, self, other))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"CodedColumn({len(self.labels)} values, {len(self)} rows)"


def level_columns(levels: Sequence[Level]) -> tuple[Sequence[str], ...]:
    """The levels' values by row: a level of distinct values is its labels, any other one a
    ``CodedColumn``."""
    return tuple(
        level.labels if isinstance(level.codes, range) else CodedColumn(level.labels, level.codes) for level in levels
    )


@dataclass(frozen=True)
class Hierarchy:
    """One attribute's hierarchy, held by level: ``columns[l][i]`` is value ``i`` at level ``l``
    (``rows[i][l]`` row by row). By level, since a hierarchy of a million values read row by row
    is a million tuples that the garbage collector then walks; its rows are made only when
    asked for. A column is a tuple of strings, or a ``CodedColumn`` when the hierarchy was
    built from its levels' encoding (``from_levels``)."""

    attribute: str
    columns: tuple[Sequence[str], ...]
    source: str = "<memory>"
    #: the line of each row in ``source`` (empty: row ``i`` is on line ``i + 1``), for messages
    lines: tuple[int, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_rows(
        cls,
        attribute: str,
        rows: Sequence[Sequence[str]] | Sequence[tuple[int, Sequence[str]]],
        source: str = "<memory>",
        lines: Sequence[int] | None = None,
    ) -> "Hierarchy":
        """Validate rows and build a hierarchy. The rows may be paired with their line numbers
        (all of them or none), or the numbers given as ``lines``."""
        with collection_paused():
            if lines is None and rows and _is_numbered(rows[0]):
                numbered = [_numbered(item) for item in rows]
                lines = [line for line, _ in numbered]
                rows = [row for _, row in numbered]
            table = cast(Sequence[Sequence[str]], rows)
            numbers = tuple(lines) if lines is not None else ()
            width = len(table[0]) if table else 0  # no row: no column, which the validation refuses
            if set(map(len, table)) - {width}:
                _refuse_ragged(f"hierarchy for '{attribute}' ({source})", table, numbers, width)
            return cls.from_columns(attribute, columns_of(table, width), source, numbers)

    @classmethod
    def from_columns(
        cls, attribute: str, columns: Sequence[Sequence[str]], source: str = "<memory>", lines: Sequence[int] = ()
    ) -> "Hierarchy":
        """Validate a hierarchy given by level (every column as long) and build it; ``lines``
        as the field (empty: the rows are numbered from 1)."""
        with collection_paused():
            held = tuple(map(tuple, columns))
            numbers = tuple(lines)
            where = f"hierarchy for '{attribute}' ({source})"
            _refuse_empty(where, held)
            levels = [_level(column) for column in held]
            _check(where, levels, held, numbers)
            return cls._encoded(attribute, held, source, numbers, levels)

    @classmethod
    def from_levels(cls, attribute: str, levels: Sequence[Level], source: str = "<memory>") -> "Hierarchy":
        """Validate a hierarchy given by its levels' encoding (rows numbered from 1) and build
        it; its columns are those of the encoding (``CodedColumn``), not strings per row."""
        with collection_paused():
            columns = level_columns(levels)
            where = f"hierarchy for '{attribute}' ({source})"
            _refuse_empty(where, columns)
            _check(where, levels, columns, ())
            return cls._encoded(attribute, columns, source, (), levels)

    @classmethod
    def _encoded(
        cls,
        attribute: str,
        columns: tuple[Sequence[str], ...],
        source: str,
        lines: tuple[int, ...],
        levels: Sequence[Level],
    ) -> "Hierarchy":
        hierarchy = cls(attribute, columns, source, lines)
        # the validation encoded every level already: the cached property takes that encoding
        hierarchy.__dict__["encoded"] = EncodedHierarchy.from_levels(levels, hierarchy)
        return hierarchy

    def line(self, index: int) -> int:
        """The line of row ``index`` in the source (its position when the rows were not numbered)."""
        return self.lines[index] if index < len(self.lines) else index + 1

    @property
    def height(self) -> int:
        """The top level (number of columns minus one)."""
        return len(self.columns) - 1

    @property
    def size(self) -> int:
        """The number of rows: one per original value."""
        return len(self.columns[0])

    @property
    def values(self) -> list[str]:
        return list(self.columns[0])

    @cached_property
    def rows(self) -> tuple[tuple[str, ...], ...]:
        """``rows[i][l]``: value ``i`` at level ``l``, made on first use."""
        return tuple(zip(*self.columns))

    @cached_property
    def checksum(self) -> str:
        """SHA-256 of the rows as ARX's layout writes them (';' between levels, a newline
        between rows, none after the last): what a manifest names the hierarchy by."""
        digest = hashlib.sha256()
        for start in range(0, self.size, _DIGEST_ROWS):  # in slices: no copy of a large hierarchy as text
            text = "\n".join(map(";".join, zip(*(column[start : start + _DIGEST_ROWS] for column in self.columns))))
            digest.update(("\n" if start else "").encode("utf-8") + text.encode("utf-8"))
        return "sha256:" + digest.hexdigest()

    @cached_property
    def encoded(self) -> "EncodedHierarchy":
        return EncodedHierarchy.build(self)


#: rows per slice of ``Hierarchy.checksum``
_DIGEST_ROWS = 1 << 16


def _is_numbered(item: object) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int) and not isinstance(item[1], str)


def _numbered(item: object) -> tuple[int, tuple[str, ...]]:
    line, row = cast(tuple[int, Sequence[str]], item)
    return line, tuple(row)


def _refuse_ragged(where: str, rows: Sequence[Sequence[str]], lines: Sequence[int], width: int) -> None:
    numbers = lines or range(1, len(rows) + 1)
    ragged = [(line, len(row)) for line, row in zip(numbers, rows) if len(row) != width]
    shown = ", ".join(f"line {line} has {n}" for line, n in ragged[:_SHOW])
    raise HierarchyError(
        f"{where}: rows of unequal length; line {numbers[0]} has {width} fields but "
        f"{shown} ({len(ragged)} such rows). Every row needs one field per level."
    )


def _refuse_empty(where: str, columns: Sequence[Sequence[str]]) -> None:
    if not columns or not columns[0]:
        raise HierarchyError(f"{where} is empty: it needs one row per value of the attribute")


def _check(where: str, levels: Sequence[Level], columns: Sequence[Sequence[str]], lines: Sequence[int]) -> None:
    """Refuse duplicate original values and a value with two parents, on the levels' encoding
    (whole columns at C speed: lists filled through ``map``; no numpy, which the command
    line's help must not load). Only a hierarchy that breaks a rule is walked row by row, for
    the message."""
    numbers = lines or range(1, len(columns[0]) + 1)
    if len(levels[0].labels) != len(levels[0].codes):
        _refuse_duplicates(where, columns[0], numbers)
    # a value of level 0 is on one row, so it has one parent; above, each code must have one
    for level in range(1, len(levels) - 1):
        if len(levels[level + 1].labels) == 1:  # one value above: the one parent of every value
            continue
        below, above = levels[level].codes, levels[level + 1].codes
        parent = [0] * len(levels[level].labels)
        any(map(parent.__setitem__, below, above))  # the last parent seen: any other one differs from it
        if not all(map(eq, map(parent.__getitem__, below), above)):
            _refuse_two_parents(where, level, columns[level], columns[level + 1], numbers)


class Level(NamedTuple):
    """One level encoded: its distinct values in order of first appearance, each row's code
    (the value's position there) and the rows under each value."""

    labels: tuple[str, ...]
    codes: Sequence[int]
    leaves: tuple[int, ...]


def _level(column: Sequence[str]) -> Level:
    if column[-1] == column[0] and column.count(column[0]) == len(column):
        # one value (the top; every level of a deep hierarchy above its groups): no dict
        return Level((column[0],), [0] * len(column), (len(column),))
    distinct = dict.fromkeys(column)
    if len(distinct) == len(column):  # each value on one row (level 0): codes are the positions
        return Level(tuple(column), range(len(column)), (1,) * len(column))
    code = dict(zip(distinct, count()))
    codes = list(map(code.__getitem__, column))
    rows = Counter(codes)
    return Level(tuple(code), codes, tuple(map(rows.__getitem__, range(len(code)))))


def _refuse_duplicates(where: str, values: Sequence[str], lines: Sequence[int]) -> None:
    seen: dict[str, int] = {}
    duplicates = []
    for line, value in zip(lines, values):
        if value in seen:
            duplicates.append((value, seen[value], line))
        else:
            seen[value] = line
    shown = ", ".join(f"{cut(v)} (lines {a} and {b})" for v, a, b in duplicates[:_SHOW])
    raise HierarchyError(
        f"{where}: duplicate original values {shown} ({len(duplicates)} in all). "
        "Each value must appear in exactly one row."
    )


def _refuse_two_parents(
    where: str, level: int, below: Sequence[str], above: Sequence[str], lines: Sequence[int]
) -> None:
    """The first row whose value at ``level`` has another parent than on its first row."""
    parent: dict[str, tuple[str, int]] = {}
    for line, value, up in zip(lines, below, above):
        if value in parent and parent[value][0] != up:
            first_up, first_line = parent[value]
            raise HierarchyError(
                f"{where} is not functional: value {cut(value)} at level {level} maps to "
                f"{cut(first_up)} (line {first_line}) and to {cut(up)} (line {line}) at level "
                f"{level + 1}. A value must have exactly one generalization per level."
            )
        parent.setdefault(value, (up, line))


@dataclass(frozen=True)
class EncodedHierarchy:
    """Integer form of a hierarchy.

    ``columns[l][i]``: code at level ``l`` of leaf ``i`` (``codes[i][l]`` row by row, made on
    first use); ``labels[l][c]``: the text of code ``c``; ``leaves[l][c]``: number of
    hierarchy rows generalized to ``c`` at level ``l``.
    """

    columns: tuple[Sequence[int], ...]
    labels: tuple[tuple[str, ...], ...]
    leaves: tuple[tuple[int, ...], ...]
    distinct: tuple[int, ...] = field(default=())
    #: the hierarchy it encodes (its source and lines name the rows in messages)
    origin: Hierarchy | None = field(default=None, compare=False, repr=False)

    @classmethod
    def build(cls, hierarchy: Hierarchy) -> "EncodedHierarchy":
        with collection_paused():
            return cls.from_levels([_level(column) for column in hierarchy.columns], hierarchy)

    @classmethod
    def from_levels(cls, levels: Sequence[Level], hierarchy: Hierarchy) -> "EncodedHierarchy":
        return cls(
            columns=tuple(level.codes for level in levels),
            labels=tuple(level.labels for level in levels),
            leaves=tuple(level.leaves for level in levels),
            distinct=tuple(len(level.labels) for level in levels),
            origin=hierarchy,
        )

    @property
    def size(self) -> int:
        """The number of leaves (rows of the hierarchy)."""
        return len(self.columns[0])

    def leaf(self, code: int) -> tuple[int, ...]:
        """The codes of leaf ``code`` at every level (``codes[code]`` without making ``codes``)."""
        return tuple(column[code] for column in self.columns)

    @cached_property
    def codes(self) -> tuple[tuple[int, ...], ...]:
        """``codes[i][l]``: code at level ``l`` of leaf ``i``."""
        with collection_paused():
            return tuple(zip(*self.columns))
