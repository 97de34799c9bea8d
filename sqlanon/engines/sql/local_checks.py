"""Local check placement for a SQL engine: its base class table fetched once as Arrow into
the kernel (``sqlanon/kernel/runner.py``), which then answers every check in process.

The database still does the data-proportional work (read, encode, compress to
``sqlanon_classes``; write and verify the released table); what crosses into Python is the
class table only — one row per distinct combination of QI (and sensitive) codes — and its
size is reported (``class_table_bytes``: the Arrow buffers' bytes).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from sqlglot import exp

from sqlanon.core.needs import Need
from sqlanon import sql as c
from sqlanon.kernel.runner import Kernel
from sqlanon.kernel.tables import table
from sqlanon.criteria.population import POP


def fetch_kernel(store) -> Kernel:
    """The kernel over ``store``'s base class table (a prepared ``SqlEngine``)."""
    layout = store.layout()
    d, s = len(layout.qi_names), len(layout.sensitives)
    population = layout.subset is not None
    lnx = Need.LNX in layout.needs
    names = (
        [c.qi(j) for j in range(d)]
        + [c.sensitive(i) for i in range(s)]
        + ["n"]
        + ([POP] if population else [])
        + (["lnx"] if lnx else [])
    )
    data = store.fetch_arrow(
        exp.select(*(c.col(name) for name in names)).from_(c.table(c.CLASSES)), layout.base_classes
    )
    store.class_table_bytes = data.nbytes

    def column(name: str, dtype) -> np.ndarray:
        # population-only rows carry NULL sensitive codes and lnx (n = 0: they weigh nothing)
        return numeric(data.column(name), dtype)

    n = column("n", np.int64)
    base = table(
        (0,) * d,
        [column(c.qi(j), np.int64) for j in range(d)],
        [column(c.sensitive(i), np.int64) for i in range(s)],
        n,
        n * column("lnx", np.float64) if lnx else None,
        column(POP, np.int64) if population else None,
    )
    sensitives = []
    for name in layout.sensitives:
        values, counts = store.sensitive_values(name)
        sensitives.append((name, values, np.array(counts, np.int64) / layout.rows))
    return Kernel(layout.hierarchies, base, sensitives, store.settings, store.aux_tables, _scanned(store))


def _scanned(store):
    """A kernel pass reads rows in process: counted in ``rows_scanned``, not in ``queries``
    (those are the database's)."""

    def count(rows: int) -> None:
        store.rows_scanned += rows

    return count


def numeric(values: pa.ChunkedArray, dtype) -> np.ndarray:
    """A numeric Arrow column as a numpy array of ``dtype``, NULL as 0, read from its buffers:
    pyarrow's own ``to_numpy`` (and ``pa.scalar``) import pandas on their first call in a
    process, ~0.3-1 s that a one-shot run would pay inside prepare for nothing."""
    parts = []
    for chunk in values.chunks:
        if pa.types.is_decimal(chunk.type):  # a database's SUM of integers (the population counts)
            chunk = pc.cast(chunk, pa.float64() if np.dtype(dtype).kind == "f" else pa.int64())
        try:
            kind = np.dtype(str(chunk.type))  # int8..uint64, float ("float32"), double ("float64")
        except (TypeError, ValueError):
            kind = None
        if kind is None or kind.kind not in "iuf":  # no such column today: pyarrow's own way
            parts.append(pc.fill_null(chunk, pa.scalar(0, chunk.type)).to_numpy(zero_copy_only=False).astype(dtype))
            continue
        data = np.frombuffer(chunk.buffers()[1], dtype=kind, count=chunk.offset + len(chunk))[chunk.offset :].astype(
            dtype
        )
        if chunk.null_count:  # a NULL's slot holds anything: zero it by the validity bitmap
            bits = np.unpackbits(np.frombuffer(chunk.buffers()[0], np.uint8), bitorder="little")
            data[bits[chunk.offset : chunk.offset + len(chunk)] == 0] = 0
        parts.append(data)
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype)
