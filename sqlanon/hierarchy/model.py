"""A validated generalization hierarchy and its integer encoding.

Encoding (the layout ARX calls ``int[value][level]``): the leaf code of a value is its row
index in the hierarchy; the code of a generalized value at level ``l`` is dense per level,
in order of first appearance. ``leaves[l][code]`` counts the hierarchy rows under a value,
which is what ARX's loss metric calls the value's domain share (divided by the row count).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Sequence, cast

from sqlanon.errors import HierarchyError, cut

_SHOW = 5  # how many offending values an error message lists


@dataclass(frozen=True)
class Hierarchy:
    """Rows of one attribute's hierarchy: ``rows[i][l]`` is value ``i`` at level ``l``."""

    attribute: str
    rows: tuple[tuple[str, ...], ...]
    source: str = "<memory>"
    #: the line of each row in ``source`` (empty when the rows were not numbered), for messages
    lines: tuple[int, ...] = field(default=(), compare=False, repr=False)

    @classmethod
    def from_rows(
        cls,
        attribute: str,
        rows: Sequence[Sequence[str]] | Sequence[tuple[int, Sequence[str]]],
        source: str = "<memory>",
    ) -> "Hierarchy":
        """Validate rows (optionally paired with their line numbers) and build a hierarchy."""
        numbered: list[tuple[int, tuple[str, ...]]] = [
            _numbered(item) if _is_numbered(item) else (i, tuple(cast(Sequence[str], item)))
            for i, item in enumerate(rows, start=1)
        ]
        _validate(attribute, numbered, source)
        return cls(attribute, tuple(row for _, row in numbered), source, tuple(line for line, _ in numbered))

    def line(self, index: int) -> int:
        """The line of row ``index`` in the source (its position when the rows were not numbered)."""
        return self.lines[index] if index < len(self.lines) else index + 1

    @property
    def height(self) -> int:
        """The top level (number of columns minus one)."""
        return len(self.rows[0]) - 1

    @property
    def values(self) -> list[str]:
        return [row[0] for row in self.rows]

    @cached_property
    def encoded(self) -> "EncodedHierarchy":
        return EncodedHierarchy.build(self)


def _is_numbered(item: object) -> bool:
    return isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], int) and not isinstance(item[1], str)


def _numbered(item: object) -> tuple[int, tuple[str, ...]]:
    line, row = cast(tuple[int, Sequence[str]], item)
    return line, tuple(row)


def _validate(attribute: str, numbered: list[tuple[int, tuple[str, ...]]], source: str) -> None:
    where = f"hierarchy for '{attribute}' ({source})"
    if not numbered:
        raise HierarchyError(f"{where} is empty: it needs one row per value of the attribute")
    width = len(numbered[0][1])
    ragged = [(line, len(row)) for line, row in numbered if len(row) != width]
    if ragged:
        shown = ", ".join(f"line {line} has {n}" for line, n in ragged[:_SHOW])
        raise HierarchyError(
            f"{where}: rows of unequal length; line {numbered[0][0]} has {width} fields but "
            f"{shown} ({len(ragged)} such rows). Every row needs one field per level."
        )
    seen: dict[str, int] = {}
    duplicates = []
    for line, row in numbered:
        if row[0] in seen:
            duplicates.append((row[0], seen[row[0]], line))
        else:
            seen[row[0]] = line
    if duplicates:
        shown = ", ".join(f"{cut(v)} (lines {a} and {b})" for v, a, b in duplicates[:_SHOW])
        raise HierarchyError(
            f"{where}: duplicate original values {shown} ({len(duplicates)} in all). "
            "Each value must appear in exactly one row."
        )
    for level in range(width - 1):
        parent: dict[str, tuple[str, int]] = {}
        for line, row in numbered:
            value, up = row[level], row[level + 1]
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

    ``codes[i][l]``: code at level ``l`` of leaf ``i``; ``labels[l][c]``: the text of code ``c``;
    ``leaves[l][c]``: number of hierarchy rows generalized to ``c`` at level ``l``.
    """

    codes: tuple[tuple[int, ...], ...]
    labels: tuple[tuple[str, ...], ...]
    leaves: tuple[tuple[int, ...], ...]
    distinct: tuple[int, ...] = field(default=())
    #: the hierarchy it encodes (its source and lines name the rows in messages)
    origin: Hierarchy | None = field(default=None, compare=False, repr=False)

    @classmethod
    def build(cls, hierarchy: Hierarchy) -> "EncodedHierarchy":
        levels = hierarchy.height + 1
        lookup: list[dict[str, int]] = [{} for _ in range(levels)]
        codes = []
        for row in hierarchy.rows:
            codes.append(tuple(lookup[l].setdefault(row[l], len(lookup[l])) for l in range(levels)))
        leaves = [[0] * len(lookup[l]) for l in range(levels)]
        for row_codes in codes:
            for l, c in enumerate(row_codes):
                leaves[l][c] += 1
        labels = tuple(tuple(lookup[l]) for l in range(levels))
        return cls(
            codes=tuple(codes),
            labels=labels,
            leaves=tuple(tuple(x) for x in leaves),
            distinct=tuple(len(lookup[l]) for l in range(levels)),
            origin=hierarchy,
        )
