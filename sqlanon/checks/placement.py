"""Where each node's check runs: ``[engine] checks = "auto" | "sql" | "local"``.

The engine holding the data always reads, encodes, compresses to the base class table,
writes and verifies. A check then runs either as a query in that engine (``sql``) or in
process over the base class table fetched once as Arrow (``local``, ``kernel/runner.py``).
Both give the same figures; they differ in cost:

* a SQL check pays the engine's query latency (parsing, planning, a round trip), measured
  once after prepare (``Store.query_latency``: the median of three check-shaped queries over
  none of the class table's rows; ~1 ms DuckDB, ~0.5 ms PostgreSQL here), plus its scan of the
  class table (the engine's ``row_seconds`` a row);
* a local check pays ``KERNEL_ROW_SECONDS`` a class-table row, and nothing per query, after
  one fetch of the table, which must fit ``local_budget`` (default: a quarter of the
  memory available, by /proc/meminfo; 1 GiB where it cannot be read).

``auto`` takes ``local`` when the table fits the budget and its estimated check is the
cheaper, else ``sql``; the latency is measured only when the choice depends on it, that is
when the engine scans a row for less than the kernel (no engine here does: DuckDB's lean
check costs 1.9-2.8x the kernel per row at 20 k-370 k rows, ``bench/placement_rows.py``, so
it checks locally whatever fits, and prepare spends no queries on timing). The
decision is made once per session (it knows the job and the prepared data) and held by every
checker (``Checker.placement``), together with what follows from it: roll-up and history on
by default where a snapshot costs nothing to keep (local checks: arrays), off in SQL (a temp
table costs about a check; bench/README.md, "Engines"). Engines only declare what they can
(``capabilities.placements``) and measure what a query costs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from sqlanon.engines.capabilities import Where
from sqlanon.engines.store import Store
from sqlanon.errors import ConfigError
from sqlanon.core.snapshots import SnapshotSettings
from sqlanon.engines.memory.io import available_memory

#: seconds per class-table row of a local check (the compiled regroup, sums, verdicts):
#: 0.18-0.25 ms for the 6,500-8,900 rows an ADULT check regroups on average (bench/README.md,
#: "Check placement"); ~2x that per row on tables past the caches (bench/placement_rows.py),
#: still under half of DuckDB's
KERNEL_ROW_SECONDS = 25e-9
#: bytes per cell of the fetched class table (int64 / float64 columns)
CELL_BYTES = 8
#: the share of the available memory that local checks may take by default
MEMORY_SHARE = 0.25
_UNITS = {
    "b": 1,
    "kb": 1000,
    "kib": 1024,
    "mb": 1000**2,
    "mib": 1024**2,
    "gb": 1000**3,
    "gib": 1024**3,
    "tb": 1000**4,
    "tib": 1024**4,
}


def parse_size(text: str) -> int:
    """``"512MB"`` -> bytes (the formats config.py accepts)."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*", text)
    assert match is not None, f"not a size: {text!r} (the job's validation refuses it)"
    number, unit = match.groups()
    return int(float(number) * _UNITS[unit.lower()])


def budget(local_budget: str | None) -> int:
    """Bytes the class table of local checks may take."""
    if local_budget is not None:
        return parse_size(local_budget)
    available = available_memory()
    return int(MEMORY_SHARE * available) if available is not None else 1024**3


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


@dataclass(frozen=True)
class Placement:
    """Where the checks run (``where``: "sql" or "local"), why (the report's
    ``checks_placement_reason``), and the engine's query latency in seconds when ``auto``
    measured it."""

    where: Where
    why: str
    latency: float | None = None

    def snapshot_settings(self, requested: SnapshotSettings, capable: bool = True) -> SnapshotSettings:
        """The job's snapshot switches, roll-up and history left unset taking this placement's
        default: on where keeping a snapshot costs nothing (arrays), off in SQL; off whatever
        the job says when the engine cannot store snapshots (``capable``)."""
        if not capable:
            return replace(requested, rollup=False, history=False)
        local = self.where == "local"
        return requested.resolved(rollup=local, history=local)


def for_intervals(engine: Store) -> Placement:
    """The ordered-interval algorithms run no per-node check: nothing is fetched for them."""
    where: Where = "sql" if "sql" in engine.capabilities.placements else "local"
    return Placement(where, "the ordered-interval search reads the class table itself")


def decide(
    requested: str,
    engine: Store,
    rows: int,
    columns: int,
    local_budget: str | None,
    settle: Callable[[], None] | None = None,
) -> Placement:
    """The placement for a class table of ``rows`` rows and ``columns`` columns. ``settle`` is
    called before the engine's latency is measured (the session waits there for background
    work that would skew the timing)."""
    able = engine.capabilities.placements
    if requested == "sql" and "sql" not in able:
        raise ConfigError(
            f'engine.checks = "sql": the {engine.name} engine runs no SQL, its checks run in process; '
            'remove engine.checks or set it to "auto"'
        )
    if "local" not in able:
        return Placement("sql", f"the {engine.name} engine has no local checks")
    if "sql" not in able:
        return Placement("local", f"the {engine.name} engine checks in process only")
    if requested == "sql":
        return Placement("sql", 'engine.checks = "sql"')
    needed, allowed = rows * columns * CELL_BYTES, budget(local_budget)
    if needed > allowed:
        if requested == "local":
            raise ConfigError(
                f'engine.checks = "local": the base class table ({rows:,} rows x {columns} columns, about '
                f"{_size(needed)}) does not fit the local budget of {_size(allowed)}; raise engine.local_budget "
                '(e.g. "4GB"), or set engine.checks = "auto" or "sql" to check in the database'
            )
        return Placement("sql", f"the class table ({_size(needed)}) exceeds the local budget ({_size(allowed)})")
    if requested == "local":
        return Placement("local", 'engine.checks = "local"')
    # both placements are open: the engine runs SQL checks, so it declares their cost
    row_seconds = engine.row_seconds
    assert row_seconds is not None, f"the {engine.name} engine runs SQL checks but declares no row_seconds"
    local, scan = rows * KERNEL_ROW_SECONDS, rows * row_seconds
    if local <= scan:  # a query costs its latency on top: measuring it cannot change the choice
        return Placement(
            "local",
            f"a local check (~{local * 1e3:.2f} ms: {rows:,} rows x {KERNEL_ROW_SECONDS * 1e9:.0f} ns) "
            f"costs less than a query's scan alone (~{scan * 1e3:.2f} ms: {rows:,} rows x "
            f"{row_seconds * 1e9:.0f} ns), whatever its latency",
        )
    if settle is not None:
        settle()
    latency = engine.query_latency()
    assert latency is not None, f"the {engine.name} engine runs SQL checks but measures no query latency"
    sql = latency + rows * row_seconds
    measured = f"{latency * 1e3:.2f} ms measured latency + {rows:,} rows x {row_seconds * 1e9:.0f} ns"
    if local <= sql:
        return Placement(
            "local",
            f"a local check (~{local * 1e3:.2f} ms) costs less than a query (~{sql * 1e3:.2f} ms: {measured})",
            latency,
        )
    return Placement(
        "sql",
        f"a query (~{sql * 1e3:.2f} ms: {measured}) costs less than a local check (~{local * 1e3:.2f} ms)",
        latency,
    )
