"""Matching a column's values to its hierarchy: what to say when values are missing (and the
likely cause: spaces around the values), and the refusal of a header row read as a value.

Every engine finds the missing values its own way and hands them here, so the message is the
same whichever engine ran.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlanon.errors import HierarchyError, cut
from sqlanon.hierarchy.model import EncodedHierarchy, Hierarchy

_SHOW = 5
NULL_HINT = " (map NULL and empty fields with a hierarchy row whose first field is empty, e.g. ';*')"


def refuse_missing_values(
    column: str, where: str, found: Iterable[tuple[str, int]], hierarchy: EncodedHierarchy
) -> None:
    """Raise ``missing_values_error`` when an engine ``found`` values of ``column`` that no
    hierarchy row holds (value as text, NULL as '', rows; in any order): ordered here, most
    rows first, then by value, so neither the engine nor a database's collation changes the
    message."""
    missing = sorted(((value, int(rows)) for value, rows in found), key=lambda r: (-r[1], r[0]))
    if missing:
        raise missing_values_error(column, where, missing, hierarchy)


def missing_values_error(
    column: str, where: str, missing: Sequence[tuple[str, int]], hierarchy: EncodedHierarchy
) -> HierarchyError:
    """The error for data values of ``column`` (read from ``where``) that no hierarchy row
    holds. ``missing``: (value as text, NULL as '', rows), most rows first."""
    rows = sum(n for _, n in missing)
    shown = ", ".join("NULL/empty" if v == "" else cut(v) for v, _ in missing[:_SHOW])
    head = (
        f"column '{column}' of {where} has {len(missing)} value(s) missing from its hierarchy "
        f"({rows} rows), e.g. {shown}."
    )
    cause = _padding(missing, hierarchy)
    if cause:
        return HierarchyError(f"{head} {cause}")
    hint = NULL_HINT if any(v == "" for v, _ in missing) else ""
    return HierarchyError(f"{head} Add a row for each to the hierarchy file{hint}.")


def _padding(missing: Sequence[tuple[str, int]], hierarchy: EncodedHierarchy) -> str | None:
    """Spaces around values, in the hierarchy or in the data, when the values without them match."""
    origin = hierarchy.origin
    source = origin.source if origin is not None else "the hierarchy"
    leaves = hierarchy.labels[0]
    absent = {v for v, _ in missing}
    padded = [(i, v) for i, v in enumerate(leaves) if v != v.strip() and v.strip() in absent]
    if padded:
        i, v = padded[0]
        line = origin.line(i) if origin is not None else i + 1
        return (
            f"The hierarchy's values are padded with spaces: line {line} of {source} holds {cut(v)} where the "
            f"data has {cut(v.strip())} ({len(padded)} such line(s)). Remove the spaces around the separators "
            "in the hierarchy file."
        )
    stripped = {v: i for i, v in enumerate(leaves)}
    data_padded = [(v, stripped[v.strip()]) for v, _ in missing if v != v.strip() and v.strip() in stripped]
    if data_padded:
        v, i = data_padded[0]
        line = origin.line(i) if origin is not None else i + 1
        return (
            f"The data's values carry spaces the hierarchy's do not: {cut(v)} in the data, {cut(v.strip())} on "
            f"line {line} of {source} ({len(data_padded)} such value(s)). Trim the column's values, or write "
            "them in the hierarchy as the data has them."
        )
    return None


def refuse_header_row(hierarchy: Hierarchy, first_rows: int) -> None:
    """Refuse a first row that is a header: ARX hierarchies have none, and a header read as a
    value is silently one more leaf (it changes the loss of every generalization above it).

    ``first_rows``: the data's rows holding the first row's value. Hierarchies often list
    values the data lacks, so absence alone proves nothing; the row must also look like
    column names: its first field is the attribute's name, or its fields are distinct and it
    is a root of its own while every other row shares one root (a header's last field is a
    word such as "level4" where the real rows have "*"). With two levels a root of its own
    counts only when the others' root is "*": there, several roots (top-level groups) are a
    plausible hierarchy, and one of them may be absent from the data."""
    if first_rows or hierarchy.size < 2:
        return
    first = tuple(column[0] for column in hierarchy.columns)
    named = first[0].strip().casefold() == hierarchy.attribute.strip().casefold()
    tops = set(hierarchy.columns[-1][1:])
    own_root = (
        hierarchy.height >= 1
        and len(tops) == 1
        and first[-1] not in tops
        and len(set(first)) == len(first)
        and (hierarchy.height >= 2 or tops == {"*"})
    )
    if not (named or own_root):
        return
    why = (
        "its first field is the column's name"
        if named
        else f"it is a root of its own ({cut(first[-1])}) while every other row generalizes to {cut(next(iter(tops)))}"
    )
    raise HierarchyError(
        f"hierarchy for '{hierarchy.attribute}' ({hierarchy.source}): line {hierarchy.line(0)} "
        f"{cut(';'.join(first))} looks like a header ({why}, and no row of the data holds {cut(first[0])}). "
        "ARX hierarchies have no header: remove the header line."
    )
