"""Per-node queries rendered once per job: the wide layout lets nodes differ only in the level
columns they read (``NodeTemplate``)."""

from __future__ import annotations

from typing import Sequence

from sqlanon.sql.trees import col, ident, wide_column, wide_leaves
from sqlanon.sql.dialects import render
from sqlanon.lattice import Node


SLOT = "@"  # stands for a level inside a template identifier; never part of a real name


#: the slot column a template groups by, replaced per node by its keys (``NodeTemplate``)
KEYS = "sqlanon_keys@"


#: the slot of a node's place in a batch in a tagged template, replaced per node (``NodeTemplate``)
TAG = "sqlanon_tag@"


class NodeTemplate:
    """A per-node query in the wide layout, built and rendered once per job.

    In the wide layout nodes differ only in which level column of each QI they read, so the
    tree is built with slot identifiers (``q<j>_@``) and rendered once; per node the quoted
    slot identifiers are replaced by the quoted real ones, both rendered by sqlglot. This saves
    the ~3 ms of tree building and rendering that would otherwise dominate a 2 ms check. A
    lean check's template groups by the one slot column ``KEYS``, replaced by the node's
    keys (``group_key_names``), so one template serves every node whatever keys it leaves out.
    """

    def __init__(self, build, dimensions: int, dialect: str):
        self.dialect = dialect
        self.dimensions = dimensions
        self.sql = render(build((SLOT,) * dimensions), dialect)
        # only the QIs whose slot the template holds: a lean template groups by KEYS alone,
        # and 2 x d replacements that find nothing cost more than the rest of its render
        slots = (
            (j, ident(wide_column(j, SLOT)).sql(dialect), ident(wide_leaves(j, SLOT)).sql(dialect))
            for j in range(dimensions)
        )
        self._tokens = [(j, code, leaves) for j, code, leaves in slots if code in self.sql or leaves in self.sql]
        self._keys = col(KEYS, "c").sql(dialect)
        self._tag = col(TAG).sql(dialect)

        # (j, level) -> the quoted real identifiers: rendering them per check cost ~30 us each
        self._real: dict[tuple[int, int], tuple[str, str]] = {}
        self._columns: dict[str, str] = {}  # a key's name -> its qualified, quoted text

    def render(self, node: Node, keys: Sequence[str] = (), tag: int | None = None) -> str:
        sql = self.sql if tag is None else self.sql.replace(self._tag, str(int(tag)))
        for j, code, leaves in self._tokens:
            real = self._real.get((j, node[j]))
            if real is None:
                real = self._real[j, node[j]] = (
                    ident(wide_column(j, node[j])).sql(self.dialect),
                    ident(wide_leaves(j, node[j])).sql(self.dialect),
                )
            sql = sql.replace(code, real[0]).replace(leaves, real[1])
        if keys:
            columns = self._columns
            for name in keys:
                if name not in columns:
                    columns[name] = col(name, "c").sql(self.dialect)
            sql = sql.replace(self._keys, ", ".join(columns[name] for name in keys))
        return sql
