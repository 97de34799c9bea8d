"""Where each node's check runs: ``[engine] checks = "auto" | "sql" | "local"``.

The engine holding the data always reads, encodes, compresses to the base class table,
writes and verifies. A check then runs either as a query in that engine (``sql``) or in
process over the base class table fetched once as Arrow (``local``, ``engines/kernel.py``).
Both give the same figures; they differ in cost:

* a SQL check pays the engine's query latency (planning, a round trip: ~2-3 ms DuckDB,
  ~100-200 ms PostgreSQL and Spark) plus its scan of the class table (``row_seconds`` a row);
* a local check pays ``KERNEL_ROW_SECONDS`` a class-table row, and nothing per query, after
  one fetch of the table, which must fit ``local_budget`` (default: a quarter of the
  memory available, by /proc/meminfo; 1 GiB where it cannot be read).

``auto`` takes ``local`` when the table fits the budget and its estimated check is the
cheaper, else ``sql``. The decision is the session's (it knows the job and the prepared
data); engines only declare what they can (``placements``) and what a query costs.
"""

from __future__ import annotations

import re

from sqlanon.errors import ConfigError

#: seconds per class-table row of a local check (the compiled regroup, sums, verdicts):
#: 0.18-0.25 ms for the 6,500-8,900 rows an ADULT check regroups on average (bench/README.md,
#: "Check placement")
KERNEL_ROW_SECONDS = 25e-9
#: per engine: seconds a lean check query costs beside its scan, and seconds per class-table
#: row it scans (measured: DuckDB 2-3 ms a check on ADULT, PostgreSQL 100-200 ms, Spark ~200 ms;
#: issue 16). Kept here, not in the engines: the decision is the session's.
QUERY_COSTS = {"duckdb": (0.002, 20e-9), "postgres": (0.1, 50e-9), "spark": (0.2, 50e-9)}
#: bytes per cell of the fetched class table (int64 / float64 columns)
CELL_BYTES = 8
#: the share of the available memory that local checks may take by default
MEMORY_SHARE = 0.25
_UNITS = {"b": 1, "kb": 1000, "kib": 1024, "mb": 1000 ** 2, "mib": 1024 ** 2, "gb": 1000 ** 3, "gib": 1024 ** 3,
          "tb": 1000 ** 4, "tib": 1024 ** 4}


def parse_size(text: str) -> int:
    """``"512MB"`` -> bytes (the formats config.py accepts)."""
    number, unit = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]+)\s*", text).groups()
    return int(float(number) * _UNITS[unit.lower()])


def budget(local_budget: str | None) -> int:
    """Bytes the class table of local checks may take."""
    if local_budget is not None:
        return parse_size(local_budget)
    from sqlanon.engines.memory_io import available_memory

    available = available_memory()
    return int(MEMORY_SHARE * available) if available is not None else 1024 ** 3


def _size(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return ""


def decide(requested: str, engine, rows: int, columns: int, local_budget: str | None) -> tuple[str, str]:
    """(placement, why) for a class table of ``rows`` rows and ``columns`` columns."""
    able = engine.placements
    if requested == "sql" and "sql" not in able:
        raise ConfigError(f"engine.checks = \"sql\": the {engine.name} engine runs no SQL, its checks run in process; "
                          "remove engine.checks or set it to \"auto\"")
    if "local" not in able:
        return "sql", f"the {engine.name} engine has no local checks"
    if "sql" not in able:
        return "local", f"the {engine.name} engine checks in process only"
    if requested == "sql":
        return "sql", "engine.checks = \"sql\""
    needed, allowed = rows * columns * CELL_BYTES, budget(local_budget)
    if needed > allowed:
        if requested == "local":
            raise ConfigError(
                f"engine.checks = \"local\": the base class table ({rows:,} rows x {columns} columns, about "
                f"{_size(needed)}) does not fit the local budget of {_size(allowed)}; raise engine.local_budget "
                "(e.g. \"4GB\"), or set engine.checks = \"auto\" or \"sql\" to check in the database")
        return "sql", f"the class table ({_size(needed)}) exceeds the local budget ({_size(allowed)})"
    if requested == "local":
        return "local", "engine.checks = \"local\""
    local = rows * KERNEL_ROW_SECONDS
    latency, per_row = QUERY_COSTS.get(engine.name, (engine.query_latency, engine.row_seconds))
    sql = latency + rows * per_row
    if local <= sql:
        return "local", f"a local check (~{local * 1e3:.2f} ms) costs less than a query (~{sql * 1e3:.2f} ms)"
    return "sql", f"a query (~{sql * 1e3:.2f} ms) costs less than a local check (~{local * 1e3:.2f} ms)"
