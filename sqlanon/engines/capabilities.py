"""What an engine can do, declared on its profile and read by the job layer, the session and
the checker instead of probing the engine: where its checks can run, what it reads and writes,
whether it batches checks and keeps snapshots, whether it takes a research subset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Where = Literal["sql", "local"]
Kind = Literal["csv", "parquet", "duckdb", "postgres", "spark", "arrow"]


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do (see ``engines/store.py``). ``inputs`` and ``outputs`` are in the
    order error messages list them; ``tables``: the catalog a table without a path is read
    from (``Source.catalog``); ``csv_encodings``: the CSV text encodings it reads itself (None:
    any codec Python knows)."""

    placements: tuple[Where, ...]
    inputs: tuple[Kind, ...]
    outputs: tuple[Kind, ...]
    batches: bool = False
    snapshots: bool = True
    research_subset: bool = False
    tables: Literal["postgres", "spark"] = "postgres"
    csv_encodings: tuple[str, ...] | None = None

    def __post_init__(self):
        if not self.placements or not set(self.placements) <= {"sql", "local"}:
            raise ValueError(f"placements must be some of 'sql', 'local', got {self.placements!r}")
